#include "refscope/analysis/cycles.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>

#include "refscope/analysis/descriptions.h"
#include "native_holders.h"
#include "retaining_edges.h"

namespace refscope::analysis {
namespace {

using detail::is_native;

template <typename T>
void release(std::vector<T>& v) {
    std::vector<T>().swap(v);
}

// Sort key group for ranked(): uncollectable cycles with their own cause
// first, then those only held by another leak (usually many, all pointing
// at the same few causes), then garbage, then alive.
int rank_group(CycleFate fate) {
    switch (fate) {
        case CycleFate::HeldFromOutside:
        case CycleFate::InvisibleEdge: return 0;
        case CycleFate::HeldByLeak: return 1;
        case CycleFate::CollectableGarbage: return 2;
        case CycleFate::Alive: return 3;
    }
    return 4;
}

std::string references(int64_t count) {
    return std::to_string(count) + (count == 1 ? " reference" : " references");
}

// How the walk below reached a native member: the edge into it, and the
// Python member at the top of that chain.
struct NativeHold {
    uint32_t edge;
    uint32_t holder;
};

// The Python object above each native member of cycle `c`, for every native
// member one is found for: a breadth-first walk from all the cycle's Python
// members at once (in member order), forward over retaining edges into
// native members, so each gets a nearest Python holder inside the cycle and
// the chain of edges down to it. Forward, not detail::python_holder_chain's
// walk back over in-edges: the cycle finder runs before the in-edges are
// built (the pipeline builds them for the suspects, once this stage and the
// dominator tree have freed their scratch). classify() and explain() both
// ask it, so the holder whose tp_traverse decides the wording is the one
// the sentence names. It stops as soon as every native member has its
// holder (at worst one pass over the cycle's edges, beside Tarjan's own).
std::unordered_map<uint32_t, NativeHold> native_members_holders(const GraphIndex& index,
                                                                std::span<const uint32_t> members,
                                                                const std::vector<uint32_t>& cycle_of,
                                                                uint32_t c) {
    const Snapshot& s = index.snapshot();
    const size_t natives = static_cast<size_t>(
        std::count_if(members.begin(), members.end(), [&](uint32_t m) { return is_native(s, m); }));
    std::unordered_map<uint32_t, NativeHold> held;  // native member -> how it was reached
    std::vector<uint32_t> queue;
    const auto reach = [&](uint32_t from, uint32_t python) {
        for (const uint32_t e : index.out_edges(from)) {
            const uint32_t to = s.edge_target[e];
            if (!is_native(s, to) || cycle_of[to] != c || !index.retains(e)) continue;
            if (held.emplace(to, NativeHold{e, python}).second) queue.push_back(to);
        }
    };
    for (size_t i = 0; i < members.size() && held.size() < natives; ++i) {
        if (!is_native(s, members[i])) reach(members[i], members[i]);
    }
    for (size_t head = 0; head < queue.size() && held.size() < natives; ++head) {
        reach(queue[head], held.at(queue[head]).holder);
    }
    return held;
}

// The edges from the Python holder down to `native` (first edge out of the
// holder), as detail::hold_through wants them; empty if the walk
// found none.
std::vector<uint32_t> chain_to(const GraphIndex& index, const std::unordered_map<uint32_t, NativeHold>& held,
                               uint32_t native) {
    std::vector<uint32_t> chain;
    for (auto at = held.find(native); at != held.end(); at = held.find(index.source(chain.back()))) {
        chain.push_back(at->second.edge);
    }
    std::reverse(chain.begin(), chain.end());
    return chain;
}

}  // namespace

std::string_view cycle_fate_name(CycleFate fate) {
    switch (fate) {
        case CycleFate::HeldFromOutside: return "held from outside";
        case CycleFate::InvisibleEdge: return "invisible edge";
        case CycleFate::HeldByLeak: return "held by leak";
        case CycleFate::CollectableGarbage: return "collectable garbage";
        case CycleFate::Alive: return "alive";
    }
    return "?";
}

Cycles::Cycles(const GraphIndex& index, const RootClasses& roots, const RetentionPaths& paths)
    : index_(&index), roots_(&roots), paths_(&paths) {
    find_components();
    classify();
    find_holders();
    for (const CycleInfo& info : info_) {
        FateTotals& t = totals_[static_cast<int>(info.fate)];
        ++t.cycles;
        t.objects += info.members;
        t.bytes += info.bytes;
    }
}

void Cycles::find_components() {
    const uint32_t nodes = index_->node_count();
    const detail::RetainingEdges edges(*index_);

    // Pearce's rindex: 0 = unvisited; while a node is on the DFS path or the
    // component stack it holds the smallest visit index it can reach (visit
    // indexes count up from 1 and are handed back as nodes complete); once
    // its component is complete it holds that component's number, counting
    // down from `nodes`. Finished numbers stay above every live index, so
    // "rindex[w] < rindex[v]" is true only for a w still on the stack.
    std::vector<uint32_t> rindex(nodes, 0);
    std::vector<uint64_t> self_loop((size_t{nodes} + 63) / 64, 0);
    uint32_t next_index = 1;
    uint32_t next_component = nodes;
    // 8 bytes a frame: the search goes as deep as the heap (10M frames on the
    // 10M-object benchmark), so each byte here is up to a byte per node of
    // the stage's peak. The end of the node's out-edges is read from the
    // offsets again (in cache: the frame's node is the one being searched),
    // and the "root" flag lives in a bitmap by depth.
    struct Frame {
        uint32_t node;
        uint32_t position;  // the out-edge being looked at; kept while its target is searched
    };
    // Per depth: nothing below that frame reached an older node still on the stack.
    std::vector<uint64_t> root_at((size_t{nodes} + 63) / 64, 0);
    const auto set_root = [&](size_t depth) { root_at[depth >> 6] |= uint64_t{1} << (depth & 63); };
    // Heap graphs make deep searches, so both stacks get their largest
    // possible size up front (the frames uninitialised, `open` reserved):
    // only the pages actually reached are ever touched, and growing by
    // doubling would copy (and fault in) everything again and again.
    auto frames = std::make_unique_for_overwrite<Frame[]>(nodes);
    size_t depth = 0;  // frames in use
    std::vector<uint32_t> open;  // finished nodes whose component is not complete yet
    open.reserve(nodes);

    for (uint32_t start = 0; start < nodes; ++start) {
        if (rindex[start] != 0) continue;
        rindex[start] = next_index++;
        set_root(0);
        frames[depth++] = {start, edges.first(start)};
        while (depth > 0) {
            Frame& frame = frames[depth - 1];
            if (frame.position < edges.last(frame.node)) {
                const uint32_t e = edges.edge_at(frame.position);
                if (!edges.retains(e)) {
                    ++frame.position;
                    continue;
                }
                const uint32_t w = edges.target(e);
                if (w == frame.node) {
                    self_loop[w >> 6] |= uint64_t{1} << (w & 63);
                } else if (rindex[w] == 0 && edges.first(w) == edges.last(w)) {
                    // A leaf (a str, an int: about half of a heap) is a
                    // component of its own: numbered at once, without a
                    // frame to push and pop. Its number is above every live
                    // index, as if it had been searched.
                    rindex[w] = next_component--;
                } else if (rindex[w] == 0) {
                    // Descend; the position stays on this edge so that w's
                    // result is folded in when the search comes back.
                    rindex[w] = next_index++;
                    set_root(depth);
                    frames[depth++] = {w, edges.first(w)};
                    continue;
                } else if (rindex[w] < rindex[frame.node]) {
                    rindex[frame.node] = rindex[w];
                    root_at[(depth - 1) >> 6] &= ~(uint64_t{1} << ((depth - 1) & 63));
                }
                ++frame.position;
                continue;
            }
            const uint32_t v = frame.node;
            --depth;
            const bool root = (root_at[depth >> 6] >> (depth & 63)) & 1u;
            if (!root) {
                open.push_back(v);
                continue;
            }
            --next_index;
            while (!open.empty() && rindex[v] <= rindex[open.back()]) {
                rindex[open.back()] = next_component;
                open.pop_back();
                --next_index;
            }
            rindex[v] = next_component--;
        }
    }
    frames.reset();
    release(open);
    release(root_at);

    // Component sizes, then cycle ids in order of each cycle's smallest
    // member. `entry` holds a component's size until the component gets a
    // cycle id (marked by the top bit; sizes and ids stay below 2^31).
    constexpr uint32_t kAssigned = 0x80000000u;
    const uint32_t components = nodes - next_component;
    std::vector<uint32_t> entry(components, 0);
    for (uint32_t n = 0; n < nodes; ++n) ++entry[nodes - rindex[n]];
    std::vector<uint32_t> sizes;
    for (uint32_t n = 0; n < nodes; ++n) {
        uint32_t& e = entry[nodes - rindex[n]];
        if (e & kAssigned) {
            rindex[n] = e & ~kAssigned;
        } else if (e >= 2 || ((self_loop[n >> 6] >> (n & 63)) & 1u)) {
            const uint32_t id = static_cast<uint32_t>(sizes.size());
            sizes.push_back(e);
            e = kAssigned | id;
            rindex[n] = id;
        } else {
            rindex[n] = kNoCycle;
        }
    }
    release(entry);
    release(self_loop);
    cycle_of_ = std::move(rindex);

    const uint32_t cycles = static_cast<uint32_t>(sizes.size());
    member_offset_.assign(size_t{cycles} + 1, 0);
    for (uint32_t c = 0; c < cycles; ++c) member_offset_[c + 1] = member_offset_[c] + sizes[c];
    members_.resize(member_offset_[cycles]);
    std::vector<uint32_t> cursor(member_offset_.begin(), member_offset_.end() - 1);
    for (uint32_t n = 0; n < nodes; ++n) {
        if (cycle_of_[n] != kNoCycle) members_[cursor[cycle_of_[n]]++] = n;
    }
    info_.assign(cycles, CycleInfo{});
    for (uint32_t c = 0; c < cycles; ++c) info_[c].members = sizes[c];
}

void Cycles::classify() {
    const Snapshot& s = index_->snapshot();
    const uint32_t cycles = count();
    if (cycles == 0) return;

    for (uint32_t c = 0; c < cycles; ++c) {
        CycleInfo& info = info_[c];
        for (uint32_t n : members(c)) info.bytes += s.node_size[n];
        info.reachable = paths_->reachable(members(c).front());
    }
    // The member with the most unexplained surplus (ties: smallest id).
    for (const NodeCount& held : roots_->unexplained_nodes()) {
        const uint32_t c = cycle_of_[held.node];
        if (c == kNoCycle) continue;
        CycleInfo& info = info_[c];
        if (held.references > info.unexplained) {
            info.culprit_node = held.node;
            info.unexplained = held.references;
        }
    }

    // Owned references between members that tp_traverse does not report.
    // Which types report any GC-visible edge at all is computed only once a
    // candidate turns up: most heaps have none.
    std::vector<uint8_t> type_traverses;
    const auto traverses = [&](uint32_t node) {
        if (type_traverses.empty()) {
            type_traverses.assign(s.types.size() + 1, 0);
            for (uint32_t source = 0; source < index_->node_count(); ++source) {
                for (const uint32_t e : index_->out_edges(source)) {
                    if (s.edge_flags[e] & format::kEdgeGcVisible) {
                        type_traverses[std::min<size_t>(s.node_type[source], s.types.size())] = 1;
                        break;
                    }
                }
            }
        }
        return type_traverses[std::min<size_t>(s.node_type[node], s.types.size())] != 0;
    };
    for (uint32_t c = 0; c < cycles; ++c) {
        CycleInfo& info = info_[c];
        int culprit_rank = -1;
        std::optional<std::unordered_map<uint32_t, NativeHold>> native_holder;  // on first need
        for (uint32_t n : members(c)) {
            // Whether n's holder's type traverses depends on n and c only:
            // found at n's first candidate edge, reused for the others (a
            // native array in a cycle has thousands of element edges).
            int holder_traverses = -1;  // -1: not looked up yet
            for (uint32_t e : index_->out_edges(n)) {
                // hidden_from_gc leaves out edges into native nodes: what
                // decides is whether the reference into the next Python
                // object is seen, so only those edges can be culprits.
                // Asked first: its first test reads the edge's flags, in
                // order, and rules out nearly every edge before the target's
                // cycle is read at random (0.8 s of 30M edges in a heap that
                // is one big cycle).
                if (!index_->hidden_from_gc(e, n) || cycle_of_[s.edge_target[e]] != c) {
                    continue;
                }
                if (holder_traverses < 0) {
                    // A native source speaks for the Python object holding it.
                    uint32_t holder = n;
                    if (is_native(s, n)) {
                        if (!native_holder) {
                            native_holder = native_members_holders(*index_, members(c), cycle_of_, c);
                        }
                        const auto found = native_holder->find(n);
                        holder = found == native_holder->end() ? kNoNode : found->second.holder;
                    }
                    holder_traverses = holder != kNoNode && traverses(holder) ? 1 : 0;
                }
                const bool type_traverses_elsewhere = holder_traverses == 1;
                // Preferred: a type with no tp_traverse at all, then a
                // described C++ reference (the member to fix) over an
                // implicit one such as an instance's __class__.
                const bool described = s.edge_kind[e] == static_cast<uint8_t>(format::EdgeKind::Native);
                const int rank = (type_traverses_elsewhere ? 0 : 2) + (described ? 1 : 0);
                if (info.culprit_edge == kNoEdge || rank > culprit_rank) {
                    info.culprit_edge = e;
                    info.culprit_type_traverses = type_traverses_elsewhere;
                    culprit_rank = rank;
                }
            }
            if (culprit_rank == 3) break;
        }
        if (info.reachable) {
            info.fate = CycleFate::Alive;
            info.culprit_node = kNoNode;  // its surplus is not why it lives
            info.unexplained = 0;
        } else if (info.culprit_node != kNoNode) {
            info.fate = CycleFate::HeldFromOutside;
        } else if (info.culprit_edge != kNoEdge) {
            info.fate = CycleFate::InvisibleEdge;
        } else {
            info.fate = CycleFate::CollectableGarbage;  // until find_holders() says otherwise
        }
    }
}

void Cycles::find_holders() {
    const bool pending = std::any_of(info_.begin(), info_.end(), [](const CycleInfo& info) {
        return info.fate == CycleFate::CollectableGarbage;
    });
    if (!pending) return;

    // What the collector cannot free, outside the roots' reach: objects with
    // unexplained surplus and members of cycles it cannot see. A multi-source
    // BFS from them over retaining edges (staying outside what the roots
    // reach) records for each object the nearest such holder.
    const uint32_t nodes = index_->node_count();
    const uint32_t* targets = index_->snapshot().edge_target.data();
    std::vector<uint32_t> holder(nodes, kNoNode);
    std::vector<uint32_t> queue;
    const auto seed = [&](uint32_t n) {
        if (paths_->reachable(n) || holder[n] != kNoNode) return;
        holder[n] = n;
        queue.push_back(n);
    };
    for (const NodeCount& held : roots_->unexplained_nodes()) seed(held.node);
    for (uint32_t c = 0; c < count(); ++c) {
        if (info_[c].fate != CycleFate::InvisibleEdge) continue;
        for (uint32_t n : members(c)) seed(n);
    }
    for (size_t head = 0; head < queue.size(); ++head) {
        const uint32_t n = queue[head];
        for (uint32_t e : index_->out_edges(n)) {
            if (!index_->retains(e)) continue;
            const uint32_t t = targets[e];
            if (holder[t] != kNoNode || paths_->reachable(t)) continue;
            holder[t] = holder[n];
            queue.push_back(t);
        }
    }
    for (uint32_t c = 0; c < count(); ++c) {
        CycleInfo& info = info_[c];
        if (info.fate != CycleFate::CollectableGarbage) continue;
        const uint32_t h = holder[members(c).front()];
        if (h == kNoNode) continue;
        info.fate = CycleFate::HeldByLeak;
        info.culprit_node = h;
        info.unexplained = roots_->unexplained(h);
    }
}

std::vector<TypeTally> Cycles::top_types(uint32_t cycle, size_t limit) const {
    const Snapshot& s = index_->snapshot();
    std::vector<std::pair<uint32_t, uint64_t>> typed;  // (type, size) per member
    typed.reserve(members(cycle).size());
    for (uint32_t n : members(cycle)) typed.emplace_back(s.node_type[n], s.node_size[n]);
    std::sort(typed.begin(), typed.end());
    std::vector<TypeTally> tallies;
    for (const auto& [type, size] : typed) {
        if (tallies.empty() || tallies.back().type != type) tallies.push_back({type, 0, 0});
        ++tallies.back().objects;
        tallies.back().bytes += size;
    }
    std::sort(tallies.begin(), tallies.end(), [](const TypeTally& a, const TypeTally& b) {
        if (a.objects != b.objects) return a.objects > b.objects;
        if (a.bytes != b.bytes) return a.bytes > b.bytes;
        return a.type < b.type;
    });
    if (limit != 0 && tallies.size() > limit) tallies.resize(limit);
    return tallies;
}

std::string Cycles::explain(uint32_t cycle) const {
    const Snapshot& s = index_->snapshot();
    const CycleInfo& info = info_[cycle];
    std::string invisible;
    if (info.culprit_edge != kNoEdge) {
        // "Wrapper holds Wrapper::value": for a C++ member, the Python
        // object above it and the members leading to the reference, as
        // classify() found them.
        const uint32_t source = index_->source(info.culprit_edge);
        const std::vector<uint32_t> chain =
            is_native(s, source)
                ? chain_to(*index_, native_members_holders(*index_, members(cycle), cycle_of_, cycle), source)
                : std::vector<uint32_t>{};
        const auto [type, edge] = detail::hold_through(*index_, info.culprit_edge, chain);
        invisible = info.culprit_type_traverses
                        ? type + "'s tp_traverse does not report " + edge
                        : type + " holds " + edge + " without tp_traverse";
    }
    // Name the holder ("type ast.AST @ 0x…"): a bare "type @ 0x…" does not
    // say which class.
    const auto held_by = [&](uint32_t node) { return describe_node_at(s, node); };
    switch (info.fate) {
        case CycleFate::Alive:
            return "alive: reachable from the roots" +
                   (invisible.empty() ? std::string()
                                      : "; once it is not, it stays: " + invisible);
        case CycleFate::HeldFromOutside:
            return "uncollectable: held from outside the graph (unexplained refcount surplus on " +
                   held_by(info.culprit_node) + ", " + references(info.unexplained) + ")" +
                   (invisible.empty() ? std::string() : "; also " + invisible);
        case CycleFate::InvisibleEdge:
            return "uncollectable: " + invisible +
                   ", so the garbage collector cannot see this cycle";
        case CycleFate::HeldByLeak: {
            std::string text = "uncollectable: retained by " + describe_node(s, info.culprit_node);
            const uint32_t holder_cycle = cycle_of_[info.culprit_node];
            if (info.unexplained > 0) {
                text += ", which is held from outside the graph (unexplained refcount surplus, " +
                        references(info.unexplained) + ")";
            } else if (holder_cycle != kNoCycle) {
                text += ", which is in an uncollectable cycle (" +
                        std::string(cycle_fate_name(info_[holder_cycle].fate)) + ")";
            }
            return text;
        }
        case CycleFate::CollectableGarbage:
            return "collectable garbage: unreachable, nothing outside the graph holds it and the "
                   "collector sees every reference in it; the next gc.collect() frees it";
    }
    return "?";
}

std::vector<uint32_t> Cycles::ranked(size_t limit) const {
    std::vector<uint32_t> ids(count());
    for (uint32_t c = 0; c < count(); ++c) ids[c] = c;
    const auto before = [this](uint32_t a, uint32_t b) {
        const CycleInfo& x = info_[a];
        const CycleInfo& y = info_[b];
        const int gx = rank_group(x.fate);
        const int gy = rank_group(y.fate);
        if (gx != gy) return gx < gy;
        if (x.bytes != y.bytes) return x.bytes > y.bytes;
        if (x.members != y.members) return x.members > y.members;
        return a < b;
    };
    if (limit != 0 && limit < ids.size()) {
        std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(limit), ids.end(),
                          before);
        ids.resize(limit);
    } else {
        std::sort(ids.begin(), ids.end(), before);
    }
    return ids;
}

}  // namespace refscope::analysis

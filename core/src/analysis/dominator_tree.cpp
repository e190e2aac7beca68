#include "refscope/analysis/dominator_tree.h"

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <utility>

#include "retaining_edges.h"

namespace refscope::analysis {
namespace {

constexpr uint32_t kUnnumbered = 0xFFFFFFFFu;

// One bit per node ("is an explained root", "has unexplained surplus"; the
// semidominator pass tests these for every vertex, and a bitmap stays in
// cache) or per edge ("is a tree edge of the depth-first search").
class NodeBits {
public:
    explicit NodeBits(uint32_t count) : words_((size_t{count} + 63) / 64, 0) {}
    void set(uint32_t n) { words_[n >> 6] |= uint64_t{1} << (n & 63); }
    bool test(uint32_t n) const { return (words_[n >> 6] >> (n & 63)) & 1u; }

private:
    std::vector<uint64_t> words_;
};

template <typename T>
void release(std::vector<T>& v) {
    std::vector<T>().swap(v);
}

// The depth-first numbering from the super-root. Vertices are "slots": node
// ids, then node_count for the super-root and node_count + 1 for the
// unexplained-holders root. Numbers are preorder; a vertex's DFS parent always
// has a smaller number, and so do all its dominators.
struct Numbering {
    std::vector<uint32_t> number;  // per slot: preorder number, or kUnnumbered
    std::vector<uint32_t> vertex;  // per number: slot
    std::vector<uint32_t> parent;  // per number: the DFS parent's number (0 for the super-root)
    // Per edge: the search reached its target through it. The parent is
    // where every semidominator search starts (it is always a predecessor,
    // with a smaller number), so these edges need no place in the
    // predecessor lists: 4 bytes a reachable node less at the semidominator
    // pass's peak, and one step less per vertex.
    NodeBits tree_edge{0};
    uint32_t count = 0;
    uint32_t unexplained_root = kUnnumbered;  // its number, when present
};

Numbering number_vertices(const GraphIndex& index, const RootClasses& roots, DominatorRoots mode) {
    const uint32_t nodes = index.node_count();
    const detail::RetainingEdges edges(index);
    Numbering out;
    out.tree_edge = NodeBits(index.edge_count());
    out.number.assign(size_t{nodes} + 2, kUnnumbered);
    out.vertex.resize(size_t{nodes} + 2);
    out.parent.resize(size_t{nodes} + 2);
    const auto visit = [&](uint32_t slot, uint32_t parent_number) {
        const uint32_t k = out.count++;
        out.number[slot] = k;
        out.vertex[k] = slot;
        out.parent[k] = parent_number;
        return k;
    };

    // One frame per depth level (a recursive DFS would overflow the stack on
    // a million-long chain): the vertex's number and where it is in its
    // out-edge list.
    struct Frame {
        uint32_t number;
        uint32_t position;
        uint32_t end;
    };
    std::vector<Frame> stack;
    // As deep as the graph, in the worst case (a chain) and nearly so on
    // heaps: reserved at that size, so that only the pages reached are
    // touched and nothing is copied as it grows.
    stack.reserve(size_t{nodes} + 1);
    // "Seen" is tested for every edge: a bitmap stays in cache where the
    // number column (40 MB on a 10M-node heap) would miss.
    NodeBits seen(nodes);
    const auto search_from = [&](uint32_t start, uint32_t parent_number) {
        if (start >= nodes || seen.test(start)) return;
        seen.set(start);
        stack.push_back({visit(start, parent_number), edges.first(start), edges.last(start)});
        while (!stack.empty()) {
            Frame& frame = stack.back();
            if (frame.position == frame.end) {
                stack.pop_back();
                continue;
            }
            const uint32_t e = edges.edge_at(frame.position++);
            if (!edges.retains(e)) continue;
            const uint32_t target = edges.target(e);
            if (seen.test(target)) continue;
            seen.set(target);
            out.tree_edge.set(e);
            const uint32_t first = edges.first(target);
            const uint32_t end = edges.last(target);
            // `frame` dies at the push; a leaf (no out-edges) needs none.
            const uint32_t k = visit(target, frame.number);
            if (first != end) stack.push_back({k, first, end});
        }
    };

    visit(nodes, 0);  // the super-root is number 0
    for (uint32_t root : roots.root_nodes()) search_from(root, 0);
    if (mode == DominatorRoots::ExplainedAndUnexplained) {
        // Always present in this mode, even with nothing under it, so that the
        // tree's shape does not depend on whether the heap leaks.
        out.unexplained_root = visit(nodes + 1, 0);
        for (const NodeCount& held : roots.unexplained_nodes()) {
            search_from(held.node, out.unexplained_root);
        }
    }
    return out;
}

// Predecessors of every numbered node, as numbers, grouped by node (CSR):
// the semidominator pass reads a vertex's predecessors from one contiguous
// run instead of chasing in-edge id → source → number through three columns
// at random. Virtual predecessors are not listed: the caller knows them from
// bitmaps; nor are tree edges: the pass starts from the DFS parent.
//
// Grouping is the index's two-pass scheme (graph_index.cpp): distribute into
// buckets of 2^16 consecutive target nodes (a few hundred sequential
// streams), then counting-sort each bucket with its counters in cache. Edges
// are read in source order, so every pass streams through memory.
struct Predecessors {
    std::vector<uint32_t> offset;  // node_count + 1
    std::vector<uint32_t> number;
};

Predecessors list_predecessors(const GraphIndex& index, const Numbering& numbering) {
    const Snapshot& s = index.snapshot();
    const uint32_t nodes = index.node_count();
    const uint32_t* targets = s.edge_target.data();
    const uint8_t* flags = s.edge_flags.data();
    const uint8_t* kinds = s.edge_kind.data();
    const uint32_t* number = numbering.number.data();
    // A retaining edge from a numbered node always leads to a numbered node:
    // the depth-first search followed it. Listed: those that are not the
    // search's tree edges.
    const NodeBits& tree_edge = numbering.tree_edge;
    const auto listed = [&](uint32_t e) {
        return (flags[e] & format::kEdgeOwned) != 0 &&
               kinds[e] != static_cast<uint8_t>(format::EdgeKind::Weak) && !tree_edge.test(e);
    };
    // Both passes walk the nodes and their out-edges (the edges' sources are
    // not stored per edge); with grouped edges that is edge id order.
    constexpr uint32_t kShift = 16;
    constexpr uint32_t kBucket = 1u << kShift;
    const uint32_t buckets = (nodes >> kShift) + 1;

    std::vector<uint32_t> bucket_start(size_t{buckets} + 1, 0);
    for (uint32_t n = 0; n < nodes; ++n) {
        if (number[n] == kUnnumbered) continue;
        for (const uint32_t e : index.out_edges(n)) {
            if (listed(e)) ++bucket_start[(targets[e] >> kShift) + 1];
        }
    }
    for (uint32_t b = 0; b < buckets; ++b) bucket_start[b + 1] += bucket_start[b];
    const uint32_t total = bucket_start[buckets];

    Predecessors out;
    out.number.resize(total);
    std::vector<uint16_t> low_bits(total);
    {
        std::vector<uint32_t> cursor(bucket_start.begin(), bucket_start.end() - 1);
        for (uint32_t n = 0; n < nodes; ++n) {
            const uint32_t p = number[n];
            if (p == kUnnumbered) continue;
            for (const uint32_t e : index.out_edges(n)) {
                if (!listed(e)) continue;
                const uint32_t t = targets[e];
                const uint32_t position = cursor[t >> kShift]++;
                out.number[position] = p;
                low_bits[position] = static_cast<uint16_t>(t & (kBucket - 1));
            }
        }
    }
    out.offset.assign(size_t{nodes} + 1, 0);
    std::vector<uint32_t> slot(kBucket);
    std::vector<uint32_t> scratch;
    for (uint32_t b = 0; b < buckets; ++b) {
        const uint32_t begin = bucket_start[b];
        const uint32_t end = bucket_start[b + 1];
        const uint32_t first = b << kShift;
        const uint32_t in_bucket = std::min(kBucket, nodes - first);
        if (in_bucket == 0) break;
        std::fill(slot.begin(), slot.begin() + in_bucket, 0);
        for (uint32_t j = begin; j < end; ++j) ++slot[low_bits[j]];
        uint32_t offset = begin;
        for (uint32_t k = 0; k < in_bucket; ++k) {
            out.offset[first + k] = offset;
            const uint32_t c = slot[k];
            slot[k] = offset;  // from here on: the next free position
            offset += c;
        }
        scratch.assign(out.number.begin() + begin, out.number.begin() + end);
        for (uint32_t j = begin; j < end; ++j) out.number[slot[low_bits[j]]++] = scratch[j - begin];
    }
    out.offset[nodes] = total;
    return out;
}

// Semidominators and immediate dominators over the numbering (semi-NCA).
// Returns idom per number (a number); consumes `parent` and `number`.
std::vector<uint32_t> immediate_dominators(const GraphIndex& index, const RootClasses& roots,
                                           Numbering& numbering) {
    const uint32_t nodes = index.node_count();
    const uint32_t count = numbering.count;
    const uint32_t* vertex = numbering.vertex.data();

    NodeBits explained_root(nodes);
    for (uint32_t r : roots.root_nodes()) explained_root.set(r);
    NodeBits unexplained_holder(nodes);
    const bool with_unexplained = numbering.unexplained_root != kUnnumbered;
    if (with_unexplained) {
        for (const NodeCount& held : roots.unexplained_nodes()) unexplained_holder.set(held.node);
    }
    Predecessors predecessors = list_predecessors(index, numbering);
    numbering.tree_edge = NodeBits(0);

    // Link-eval forest with Lengauer and Tarjan's balanced linking. Simple
    // linking (each vertex under its DFS parent) lets compressed paths grow
    // with the depth of the search, and heap searches are millions deep: on
    // a 10M-object heap evals walked 13 steps on average, each a cache miss.
    // Balanced linking keeps the trees shallow.
    //
    // Vertices are indexed number + 1 so that 0 is the null vertex (its
    // `best` and `size` are 0, which ends the loops in link()). `best[x]`
    // stands for semi(label(x)) in the paper: only that value is ever used.
    // An unprocessed vertex's semidominator is its own index.
    struct ForestEntry {
        uint32_t ancestor;
        uint32_t best;
        uint32_t size;
        uint32_t child;
    };
    std::vector<ForestEntry> forest;
    forest.reserve(size_t{count} + 1);
    forest.push_back({0, 0, 0, 0});
    for (uint32_t x = 1; x <= count; ++x) forest.push_back({0, x, 1, 0});
    // By number, as numbers; in the storage of `number`, done with (every
    // entry is written before it is read).
    std::vector<uint32_t> semi = std::move(numbering.number);
    std::vector<uint32_t> path;  // compression stack, reused

    // Smallest best on the path from x to the root of its tree, excluding
    // the root; compresses that path on the way.
    const auto eval = [&](uint32_t x) {
        const uint32_t a = forest[x].ancestor;
        if (a == 0) return forest[x].best;
        if (forest[a].ancestor != 0) {
            path.clear();
            uint32_t y = x;
            while (forest[forest[y].ancestor].ancestor != 0) {
                path.push_back(y);
                y = forest[y].ancestor;
            }
            // From the top down, so each vertex folds in an already
            // compressed ancestor.
            while (!path.empty()) {
                ForestEntry& z = forest[path.back()];
                path.pop_back();
                const ForestEntry& up = forest[z.ancestor];
                if (up.best < z.best) z.best = up.best;
                z.ancestor = up.ancestor;
            }
        }
        return std::min(forest[x].best, forest[forest[x].ancestor].best);
    };
    const auto link = [&](uint32_t v, uint32_t w) {
        uint32_t s = w;
        const uint32_t w_best = forest[w].best;
        while (w_best < forest[forest[s].child].best) {
            ForestEntry& es = forest[s];
            ForestEntry& c = forest[es.child];
            if (es.size + forest[c.child].size >= 2 * c.size) {
                c.ancestor = s;
                es.child = c.child;
            } else {
                c.size = es.size;
                es.ancestor = es.child;
                s = es.child;
            }
        }
        forest[s].best = w_best;
        forest[v].size += forest[w].size;
        if (forest[v].size < 2 * forest[w].size) std::swap(s, forest[v].child);
        while (s != 0) {
            forest[s].ancestor = v;
            s = forest[s].child;
        }
    };

    // The vertices to come are known, so their predecessor lists and then
    // the forest entries those name are fetched ahead in stages: the cache
    // misses overlap instead of being paid one after another.
    const uint32_t* pred_offset = predecessors.offset.data();
    const uint32_t* pred = predecessors.number.data();
    constexpr uint32_t kOffsetsAhead = 24;
    constexpr uint32_t kListAhead = 12;
    constexpr uint32_t kForestAhead = 4;
    for (uint32_t i = count; i-- > 1;) {
        if (i > kOffsetsAhead && vertex[i - kOffsetsAhead] < nodes) {
            __builtin_prefetch(&pred_offset[vertex[i - kOffsetsAhead]]);
        }
        if (i > kListAhead && vertex[i - kListAhead] < nodes) {
            __builtin_prefetch(&pred[pred_offset[vertex[i - kListAhead]]]);
        }
        if (i > kForestAhead && vertex[i - kForestAhead] < nodes) {
            const uint32_t ahead = i - kForestAhead;
            const uint32_t first = pred_offset[vertex[ahead]];
            const uint32_t end = std::min(pred_offset[vertex[ahead] + 1], first + 6);
            for (uint32_t j = first; j < end; ++j) {
                if (pred[j] > ahead) __builtin_prefetch(&forest[pred[j] + 1]);
            }
        }
        const uint32_t v = vertex[i];
        // As a number. The DFS parent is a predecessor with a smaller
        // number, so it is where the minimum starts (its edge is not listed).
        uint32_t s = numbering.parent[i];
        if (v >= nodes || explained_root.test(v)) {
            // The super-root is a predecessor (of the explained roots and of
            // the unexplained-holders root) and number 0 is the minimum.
            s = 0;
        } else {
            if (with_unexplained && unexplained_holder.test(v)) {
                s = std::min(s, eval(numbering.unexplained_root + 1) - 1);
            }
            for (uint32_t j = pred_offset[v]; j < pred_offset[v + 1] && s != 0; ++j) {
                const uint32_t p = pred[j];
                // An unprocessed predecessor is unlinked: its own number.
                s = std::min(s, p < i ? p : eval(p + 1) - 1);
            }
        }
        semi[i] = s;
        forest[i + 1].best = s + 1;
        link(numbering.parent[i] + 1, i + 1);
    }
    release(forest);
    release(path);
    release(predecessors.offset);
    release(predecessors.number);

    // idom(w) is the nearest common ancestor, in the dominator tree built so
    // far, of parent(w) and semi(w): walk up from the parent until at or
    // above semi(w). Increasing numbers see every ancestor finished first.
    std::vector<uint32_t> idom = std::move(numbering.parent);
    idom.resize(count);
    idom[0] = 0;
    for (uint32_t i = 1; i < count; ++i) {
        uint32_t x = idom[i];
        while (x > semi[i]) x = idom[x];
        idom[i] = x;
    }
    return idom;
}

}  // namespace

DominatorTree::DominatorTree(const GraphIndex& index, const RootClasses& roots, DominatorRoots mode)
    : mode_(mode), node_count_(index.node_count()) {
    if (node_count_ > 0xFFFFFFF0u) {
        throw std::invalid_argument("snapshot too large for the dominator tree's 32-bit ids");
    }
    const uint32_t nodes = node_count_;
    const uint32_t slots = nodes + 2;
    Numbering numbering = number_vertices(index, roots, mode);
    std::vector<uint32_t> idom_number = immediate_dominators(index, roots, numbering);
    const uint32_t count = numbering.count;
    const auto id_of = [nodes](uint32_t slot) {
        return slot < nodes ? slot : slot == nodes ? kSuperRoot : kUnexplainedRoot;
    };

    // Subtree sums in decreasing number order: every dominator has a smaller
    // number than what it dominates, so a vertex's total is complete before
    // it is added to its dominator. They add up straight in the results
    // (by slot): no number-indexed copy to allocate and then scatter. The
    // slots of the vertices a few steps ahead are known, so their entries
    // are fetched early.
    const auto& sizes = index.snapshot().node_size;
    idom_.assign(slots, kNoNode);
    retained_size_.assign(slots, 0);
    retained_count_.assign(slots, 0);
    child_offset_.assign(size_t{slots} + 1, 0);
    const uint32_t* vertex = numbering.vertex.data();
    constexpr uint32_t kAhead = 8;
    for (uint32_t i = count; i-- > 1;) {
        if (i > 2 * kAhead) __builtin_prefetch(&vertex[idom_number[i - 2 * kAhead]]);
        if (i > kAhead) {
            const uint32_t ahead = vertex[i - kAhead];
            __builtin_prefetch(&retained_size_[ahead]);
            __builtin_prefetch(&retained_count_[ahead]);
            __builtin_prefetch(&idom_[ahead]);
            if (ahead < nodes) sizes.prefetch(ahead);
            const uint32_t up = vertex[idom_number[i - kAhead]];
            __builtin_prefetch(&retained_size_[up]);
            __builtin_prefetch(&retained_count_[up]);
            __builtin_prefetch(&child_offset_[up + 1]);
        }
        const uint32_t v = vertex[i];
        const uint32_t d = vertex[idom_number[i]];
        if (v < nodes) {
            retained_size_[v] += sizes[v];
            retained_count_[v] += 1;
        }
        retained_size_[d] += retained_size_[v];
        retained_count_[d] += retained_count_[v];
        idom_[v] = id_of(d);
        ++child_offset_[d + 1];
    }
    reachable_count_ = count - 1 - (mode == DominatorRoots::ExplainedAndUnexplained ? 1 : 0);
    release(idom_number);
    release(numbering.vertex);

    // Children grouped by dominator, each group in increasing slot order.
    // child_offset_[d] serves as d's cursor and ends up at the end of d's
    // group, which is where d + 1's starts: shifting by one restores it.
    for (uint32_t s = 0; s < slots; ++s) child_offset_[s + 1] += child_offset_[s];
    children_.resize(child_offset_[slots]);
    for (uint32_t s = 0; s < slots; ++s) {
        if (idom_[s] == kNoNode) continue;
        children_[child_offset_[slot(idom_[s])]++] = id_of(s);
    }
    for (uint32_t s = slots; s > 0; --s) child_offset_[s] = child_offset_[s - 1];
    child_offset_[0] = 0;
}

std::vector<uint32_t> DominatorTree::children_by_retained_size(uint32_t node) const {
    const auto list = children(node);
    std::vector<uint32_t> sorted(list.begin(), list.end());
    std::sort(sorted.begin(), sorted.end(), [this](uint32_t a, uint32_t b) {
        const uint64_t sa = retained_size(a);
        const uint64_t sb = retained_size(b);
        return sa != sb ? sa > sb : a < b;
    });
    return sorted;
}

std::vector<uint32_t> DominatorTree::dominators_of(uint32_t node) const {
    std::vector<uint32_t> chain;
    for (uint32_t d = idom(node); d != kNoNode; d = d == kSuperRoot ? kNoNode : idom(d)) {
        chain.push_back(d);
    }
    return chain;
}

std::vector<uint32_t> DominatorTree::top_retained(size_t limit) const {
    // "a ranks before b": larger retained size, then smaller id.
    const auto before = [this](uint32_t a, uint32_t b) {
        const uint64_t sa = retained_size_[a];
        const uint64_t sb = retained_size_[b];
        return sa != sb ? sa > sb : a < b;
    };
    std::vector<uint32_t> result;
    if (limit == 0 || limit >= reachable_count_) {
        result.reserve(reachable_count_);
        for (uint32_t n = 0; n < node_count_; ++n) {
            if (idom_[n] != kNoNode) result.push_back(n);
        }
        std::sort(result.begin(), result.end(), before);
        return result;
    }
    // A bounded heap whose top is the worst of the best `limit` so far.
    std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(before)> best(before);
    for (uint32_t n = 0; n < node_count_; ++n) {
        if (idom_[n] == kNoNode) continue;
        if (best.size() < limit) {
            best.push(n);
        } else if (before(n, best.top())) {
            best.pop();
            best.push(n);
        }
    }
    result.resize(best.size());
    for (size_t i = result.size(); i-- > 0;) {
        result[i] = best.top();
        best.pop();
    }
    return result;
}

}  // namespace refscope::analysis

#include "refscope/analysis/retention_paths.h"

#include <algorithm>
#include <unordered_map>

#include "native_holders.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/inferred_holders.h"

namespace refscope::analysis {
namespace {

std::string references(int64_t count) {
    return std::to_string(count) + (count == 1 ? " reference" : " references");
}

std::string cannot_see(int64_t count) {
    return references(count) + " that the GC cannot see (unexplained refcount surplus)" +
           " \u2014 a C/C++ holder or a leak";
}

// The likely C++ holder of `surplus_node` (the object with unexplained
// surplus the explanation names), appended as a clause of its own.
void add_inferred_holder(const GraphIndex& index, const RootClasses& roots, uint32_t surplus_node,
                         NoPathExplanation& result) {
    auto inferred = infer_holder(index, roots, surplus_node);
    if (!inferred) return;
    result.likely_holder = inferred->holder;
    result.likely_holder_edges = std::move(inferred->edges);
    result.text += "; " + inferred->text;
}

}  // namespace

std::string_view reason_name(NoPathExplanation::Reason reason) {
    switch (reason) {
        case NoPathExplanation::Reason::UnexplainedSurplus: return "unexplained surplus";
        case NoPathExplanation::Reason::HeldByUnexplained: return "held by unexplained";
        case NoPathExplanation::Reason::HeldByInvisibleReference: return "held by invisible reference";
        case NoPathExplanation::Reason::NoHolderFound: return "no holder found";
    }
    return "?";
}

RetentionPaths::RetentionPaths(const GraphIndex& index, const RootClasses& roots)
    : index_(&index), roots_(&roots) {
    const uint32_t node_count = index.node_count();
    visits_.assign(node_count, Visit{});

    // "Seen" is a bitmap (1.25 MB for 10M nodes: it stays in cache), tested
    // for every edge; distance and parent are written once per node. Testing
    // visits_ itself would be a cache miss per edge.
    std::vector<uint64_t> seen((size_t{node_count} + 63) / 64, 0);
    const auto mark = [&](uint32_t node) {
        uint64_t& word = seen[node >> 6];
        const uint64_t bit = uint64_t{1} << (node & 63);
        const bool was_seen = (word & bit) != 0;
        word |= bit;
        return !was_seen;
    };

    // Each node enters the queue at most once, so a flat array is the queue.
    std::vector<uint32_t> queue(node_count);
    size_t head = 0;
    size_t tail = 0;
    for (uint32_t root : roots.root_nodes()) {
        if (!mark(root)) continue;
        visits_[root].distance = 0;
        queue[tail++] = root;
    }
    const uint32_t* targets = index.snapshot().edge_target.data();
    uint32_t next_distance = 1;
    size_t level_end = tail;  // the queue holds whole BFS levels in order
    // The BFS visits nodes in an order unrelated to their ids, so every node
    // costs cache misses (its offsets, its edges' targets/flags/kinds). The
    // queue tells us which nodes come next: prefetch their offsets, and a few
    // steps later their edges, so the misses overlap instead of queueing up.
    constexpr size_t kOffsetsAhead = 16;
    constexpr size_t kEdgesAhead = 8;
    const bool prefetch_edges = !index.had_to_sort_out_edges();
    const uint32_t* offsets = index.out_offsets();
    const uint8_t* flags = index.snapshot().edge_flags.data();
    const uint8_t* kinds = index.snapshot().edge_kind.data();
    while (head < tail) {
        if (head == level_end) {
            ++next_distance;
            level_end = tail;
        }
        if (head + kOffsetsAhead < tail) __builtin_prefetch(&offsets[queue[head + kOffsetsAhead]]);
        if (prefetch_edges && head + kEdgesAhead < tail) {
            const uint32_t first = offsets[queue[head + kEdgesAhead]];
            __builtin_prefetch(&targets[first]);
            __builtin_prefetch(&flags[first]);
            __builtin_prefetch(&kinds[first]);
        }
        const uint32_t node = queue[head++];
        for (uint32_t e : index.out_edges(node)) {
            if (!index.retains(e)) continue;
            const uint32_t target = targets[e];
            if (!mark(target)) continue;
            visits_[target] = {e, next_distance};
            queue[tail++] = target;
        }
    }
    reachable_count_ = tail;
}

std::optional<RetentionPath> RetentionPaths::path_to(uint32_t node) const {
    if (node >= visits_.size() || !reachable(node)) return std::nullopt;
    RetentionPath path;
    path.target = node;
    path.edges.reserve(visits_[node].distance);
    uint32_t current = node;
    while (visits_[current].parent_edge != kNoEdge) {
        path.edges.push_back(visits_[current].parent_edge);
        current = index_->source(visits_[current].parent_edge);
    }
    std::reverse(path.edges.begin(), path.edges.end());
    path.root_node = current;
    path.root_record = roots_->roots_of(current).front();
    return path;
}

NoPathExplanation RetentionPaths::explain_unreachable(uint32_t node, uint32_t search_limit) const {
    const Snapshot& s = index_->snapshot();
    NoPathExplanation result;
    if (const int64_t own = roots_->unexplained(node); own > 0) {
        result.reason = NoPathExplanation::Reason::UnexplainedSurplus;
        result.unexplained = own;
        result.text = "no path from GC roots: " + cannot_see(own);
        add_inferred_holder(*index_, *roots_, node, result);
        return result;
    }

    // Backwards BFS over retaining in-edges; `toward` maps each visited node
    // to its edge one step closer to the target, so the chain can be rebuilt.
    std::unordered_map<uint32_t, uint32_t> toward;
    std::vector<uint32_t> queue{node};
    toward.emplace(node, kNoEdge);
    size_t head = 0;
    while (head < queue.size() && result.holder == kNoNode) {
        const uint32_t current = queue[head++];
        for (uint32_t e : index_->in_edges(current)) {
            if (!index_->retains(e)) continue;
            const uint32_t source = index_->source(e);
            if (result.invisible_edge == kNoEdge && index_->hidden_from_gc(e)) {
                result.invisible_edge = e;
            }
            if (!toward.emplace(source, e).second) continue;
            if (roots_->unexplained(source) > 0) {
                result.holder = source;
                break;
            }
            if (queue.size() >= search_limit) {
                result.search_truncated = true;
                break;
            }
            queue.push_back(source);
        }
        if (result.search_truncated) break;
    }

    if (result.holder != kNoNode) {
        result.reason = NoPathExplanation::Reason::HeldByUnexplained;
        result.unexplained = roots_->unexplained(result.holder);
        for (uint32_t at = result.holder; at != node;) {
            const uint32_t e = toward.at(at);
            result.holder_edges.push_back(e);
            at = index_->target(e);
        }
        const size_t hops = result.holder_edges.size();
        result.text = "no path from GC roots: retained by " + describe_node(s, result.holder) +
                      (hops == 1 ? "" : " (" + std::to_string(hops) + " hops away)") +
                      ", which has " + cannot_see(result.unexplained);
        add_inferred_holder(*index_, *roots_, result.holder, result);
    } else if (result.invisible_edge != kNoEdge) {
        result.reason = NoPathExplanation::Reason::HeldByInvisibleReference;
        // A C++ member (a native source) is named through the Python
        // object that holds it: "Wrapper holds Wrapper::value".
        const auto [holder, edge] = detail::invisible_hold(*index_, result.invisible_edge);
        result.text = "no path from GC roots: held through a reference the garbage collector cannot "
                      "see: " + holder + " holds " + edge + " without reporting it in tp_traverse, so the "
                      "collector can never free it";
    } else if (result.search_truncated) {
        result.text = "no path from GC roots; the search for a holder with unexplained surplus "
                      "stopped after " + std::to_string(search_limit) + " objects";
    } else {
        result.text = "no path from GC roots and no retainer with unexplained surplus: "
                      "garbage the collector has not freed yet (e.g. an unreachable cycle)";
    }
    return result;
}

}  // namespace refscope::analysis

// RetentionPaths: why is this object alive? The shortest chain of retaining
// references from a root.
//
// One multi-source BFS from every object with a RootRef (interpreter roots
// first, so that at equal length sys.modules wins over a frame local), over
// edges that retain (owned, not weak). Objects held only by unexplained
// surplus are deliberately not sources: having no path is how the analysis
// points at C/C++ holders and leaks. The BFS keeps one parent edge and a
// distance per node and uses an explicit queue: heaps contain chains of a
// million objects.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/root_classes.h"

namespace refscope::analysis {

inline constexpr uint32_t kUnreached = 0xFFFFFFFFu;

struct RetentionPath {
    uint32_t root_node = kNoNode;  // where the chain starts (== target for a root)
    uint32_t root_record = 0;      // index into snapshot.roots explaining root_node
    std::vector<uint32_t> edges;   // edge ids, root_node → … → target
    uint32_t target = kNoNode;
};

// Why an object has no retention path, in data and in plain words.
struct NoPathExplanation {
    enum class Reason {
        UnexplainedSurplus,  // the object itself is held by references the GC cannot see
        HeldByUnexplained,   // something that retains it is
        HeldByInvisibleReference,  // retained through an owned edge tp_traverse does not report
        NoHolderFound,       // nothing found: garbage not yet collected, or inconsistent
    };
    Reason reason = Reason::NoHolderFound;
    int64_t unexplained = 0;        // of the target, or of the holder
    uint32_t holder = kNoNode;      // HeldByUnexplained: the nearest such retainer
    std::vector<uint32_t> holder_edges;  // holder → … → target
    // HeldByInvisibleReference: the nearest owned edge into a GC-tracked
    // object that tp_traverse does not report (the collector cannot see the
    // cycle it closes, so it can never free it).
    uint32_t invisible_edge = 0xFFFFFFFFu;
    bool search_truncated = false;  // the backward search hit its bound
    // An inference, not a fact (inferred_holders.h): the object with
    // unexplained surplus (the target, or `holder`) reaches an instance of a
    // type the collector cannot traverse and nobody describes, whose C++
    // member probably holds it. kNoNode when nothing was inferred.
    uint32_t likely_holder = kNoNode;
    std::vector<uint32_t> likely_holder_edges;  // the object with surplus → … → likely_holder
    std::string text;  // ends with the inference's sentence when there is one
};

std::string_view reason_name(NoPathExplanation::Reason reason);  // "unexplained surplus", ...

class RetentionPaths {
public:
    RetentionPaths(const GraphIndex& index, const RootClasses& roots);

    bool reachable(uint32_t node) const { return visits_[node].distance != kUnreached; }
    // Hops from the nearest root; kUnreached if no root retains the node.
    uint32_t distance(uint32_t node) const { return visits_[node].distance; }
    // The edge through which the BFS first reached the node; kNoEdge for roots
    // and unreached nodes.
    uint32_t parent_edge(uint32_t node) const { return visits_[node].parent_edge; }
    uint64_t reachable_count() const { return reachable_count_; }

    std::optional<RetentionPath> path_to(uint32_t node) const;

    // For a node with no path. Searches backwards over retaining in-edges for
    // the nearest object with unexplained surplus, visiting at most
    // `search_limit` objects so that a query stays fast on any heap.
    NoPathExplanation explain_unreachable(uint32_t node, uint32_t search_limit = 1'000'000) const;

private:
    const GraphIndex* index_;
    const RootClasses* roots_;
    // Side by side: the BFS writes both when it reaches a node, one cache miss.
    struct Visit {
        uint32_t parent_edge = kNoEdge;
        uint32_t distance = kUnreached;
    };
    std::vector<Visit> visits_;
    uint64_t reachable_count_ = 0;
};

}  // namespace refscope::analysis

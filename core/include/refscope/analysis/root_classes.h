// RootClasses: who holds each object from outside the graph.
//
// For an object, surplus = refcount − owned in-edges: references that no
// object in the snapshot accounts for. The probe's RootRefs explain surplus in
// a fixed order — interpreter, thread stacks, extension types — and whatever
// is left is *unexplained surplus*: a C static, a C++ holder or a leak. That is
// the headline signal, so it is computed for every object, not on demand.
//
// Immortal objects (3.12+) and native (non-PyObject) nodes have no meaningful
// refcount; they take no part in the arithmetic, though their RootRefs still
// make them roots.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "refscope/analysis/graph_index.h"

namespace refscope::analysis {

// The explained classes share their numbers with format::RootKind.
enum class RootClass : uint8_t {
    Interpreter = 0,
    ThreadStack = 1,
    Extension = 2,
    Unexplained = 3,
};
inline constexpr int kRootClassCount = 4;

// "interpreter", "thread stack", "extension", "unexplained" (also the JSON names).
std::string_view root_class_name(RootClass root_class);
inline RootClass root_class_of(format::RootKind kind) { return static_cast<RootClass>(kind); }

// How one object's refcount is accounted for.
struct SurplusBreakdown {
    bool counted = false;      // false for immortal and native nodes
    int64_t refcount = 0;
    uint32_t owned_in = 0;     // incoming edges flagged kEdgeOwned
    int64_t surplus = 0;       // refcount − owned_in (0 when !counted)
    std::array<int64_t, 3> explained{};  // per format::RootKind
    int64_t unexplained = 0;   // surplus left after every RootRef (> 0 is the signal)
    int64_t overexplained = 0; // RootRefs claiming more references than the surplus
};

struct RootClassTotals {
    uint64_t records = 0;     // RootRef records of this kind (0 for Unexplained)
    uint64_t objects = 0;     // distinct objects in this class
    uint64_t references = 0;  // references this class accounts for
};

struct NodeCount {
    uint32_t node = 0;
    int64_t references = 0;
};

class RootClasses {
public:
    explicit RootClasses(const GraphIndex& index);

    uint32_t owned_in(uint32_t node) const { return index_->owned_in_degree(node); }
    // Recomputes the breakdown from the stored owned_in and the node's RootRefs
    // with the same code the constructor uses, so the two never disagree.
    SurplusBreakdown breakdown(uint32_t node) const;
    int64_t unexplained(uint32_t node) const;

    // Indexes into snapshot.roots of the records that hold `node`, in
    // explanation order (interpreter, thread stack, extension; then file order).
    std::span<const uint32_t> roots_of(uint32_t node) const;
    bool is_root(uint32_t node) const { return !roots_of(node).empty(); }
    // Every node with at least one RootRef, ordered by the class of its first
    // record and then by node id: the sources of the retention BFS.
    const std::vector<uint32_t>& root_nodes() const { return root_nodes_; }

    const RootClassTotals& totals(RootClass root_class) const {
        return totals_[static_cast<int>(root_class)];
    }
    // Objects with unexplained surplus, by node id.
    const std::vector<NodeCount>& unexplained_nodes() const { return unexplained_; }
    // (Ranked for people: LeakSuspects::rank_unexplained.)
    // Objects whose refcount is below their owned in-edges: the snapshot is
    // inconsistent there (a racing thread, a probe bug). `references` is the
    // (negative) surplus.
    const std::vector<NodeCount>& negative_surplus_nodes() const { return negative_; }
    uint64_t overexplained_references() const { return overexplained_; }
    // RootRef records naming a node that does not exist; ignored.
    uint64_t invalid_root_records() const { return invalid_records_; }

private:
    SurplusBreakdown breakdown(uint32_t node, std::span<const uint32_t> records) const;

    const GraphIndex* index_;
    std::vector<uint32_t> root_order_;  // valid record indexes sorted by (node, kind, index)
    std::vector<uint32_t> root_nodes_;
    std::array<RootClassTotals, kRootClassCount> totals_{};
    std::vector<NodeCount> unexplained_;
    std::vector<NodeCount> negative_;
    uint64_t overexplained_ = 0;
    uint64_t invalid_records_ = 0;
};

}  // namespace refscope::analysis

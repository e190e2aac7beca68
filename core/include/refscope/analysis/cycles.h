// Cycles: strongly connected components of the retaining graph (owned, not
// weak references), and whether Python's collector can free each of them.
//
// A component is a cycle when it has two or more objects, or one object that
// retains itself. For each cycle: its members, their total shallow size, a
// histogram of their types, whether it is reachable from the explained roots,
// and its fate:
//
//   alive               reachable from the roots: in use, not garbage.
//   held from outside   unreachable, but a member has unexplained refcount
//                       surplus: something outside the graph (C/C++ code, a
//                       leak) holds it, so the collector treats it as alive.
//   invisible edge      unreachable, and an owned reference inside the cycle
//                       is not reported by tp_traverse: the collector cannot
//                       see the cycle, so counts that reference as external.
//                       This is nanobind's `w.value = w` and closure cycles.
//   held by leak        unreachable, nothing wrong inside, but retained by an
//                       object outside it that is itself held from outside
//                       the graph or in an uncollectable cycle.
//   collectable garbage unreachable, no surplus, every reference visible and
//                       nothing uncollectable holds it: the next
//                       gc.collect() frees it.
//
// The first three unreachable fates are "uncollectable". A cycle both held
// from outside and closed by an invisible edge gets the first fate; its
// culprit edge is still recorded and the reason names both.
//
// Tarjan's algorithm in Pearce's one-word-per-node form ("A space-efficient
// algorithm for finding strongly connected components", 2016), iterative with
// an explicit frame stack: heaps hold million-long chains and million-node
// cycles.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"

namespace refscope::analysis {

inline constexpr uint32_t kNoCycle = 0xFFFFFFFFu;

enum class CycleFate : uint8_t {
    HeldFromOutside = 0,
    InvisibleEdge = 1,
    HeldByLeak = 2,
    CollectableGarbage = 3,
    Alive = 4,
};
inline constexpr int kCycleFateCount = 5;

// "held from outside", "invisible edge", "held by leak", "collectable
// garbage", "alive" (also the JSON names).
std::string_view cycle_fate_name(CycleFate fate);
inline bool uncollectable(CycleFate fate) {
    return fate == CycleFate::HeldFromOutside || fate == CycleFate::InvisibleEdge ||
           fate == CycleFate::HeldByLeak;
}

struct CycleInfo {
    uint32_t members = 0;          // objects in the cycle
    uint64_t bytes = 0;            // their shallow sizes
    bool reachable = false;        // from the explained roots
    CycleFate fate = CycleFate::CollectableGarbage;
    // HeldFromOutside: the member with the most unexplained surplus.
    // HeldByLeak: the nearest object outside the cycle that holds it and that
    // the collector cannot free. Otherwise kNoNode.
    uint32_t culprit_node = kNoNode;
    int64_t unexplained = 0;       // unexplained references of culprit_node (0 if none)
    // An owned edge between two members that tp_traverse does not report, or
    // kNoEdge. Set whenever one exists, whatever the fate (an alive cycle with
    // one becomes uncollectable the moment its roots let go). Preferred: an
    // edge whose source's type reports no GC-visible edge anywhere in the
    // snapshot (the type has no tp_traverse at all).
    uint32_t culprit_edge = kNoEdge;
    bool culprit_type_traverses = false;  // the culprit edge's source type reports other edges
};

struct TypeTally {
    uint32_t type = 0;  // type id
    uint32_t objects = 0;
    uint64_t bytes = 0;
};

class Cycles {
public:
    // `paths` supplies reachability from the explained roots.
    Cycles(const GraphIndex& index, const RootClasses& roots, const RetentionPaths& paths);

    uint32_t count() const { return static_cast<uint32_t>(info_.size()); }
    // The cycle containing the node, or kNoCycle (not on any cycle).
    uint32_t cycle_of(uint32_t node) const { return cycle_of_[node]; }
    // cycle_of for every node (kNoCycle outside a cycle).
    std::span<const uint32_t> cycle_ids() const { return cycle_of_; }
    std::span<const uint32_t> members(uint32_t cycle) const {
        return {members_.data() + member_offset_[cycle], members_.data() + member_offset_[cycle + 1]};
    }
    const CycleInfo& info(uint32_t cycle) const { return info_[cycle]; }

    // Member types, most objects first (then most bytes, then type id); at
    // most `limit` (0 = all).
    std::vector<TypeTally> top_types(uint32_t cycle, size_t limit) const;

    // The fate in one sentence, e.g. "uncollectable: fixture.Wrapper holds
    // .value without tp_traverse, so the garbage collector cannot see this
    // cycle".
    std::string explain(uint32_t cycle) const;

    // Cycle ids, uncollectable first — those with a cause of their own (held
    // from outside, invisible edge) before those merely held by leak — then
    // collectable garbage, then alive; within each group most bytes first,
    // then most members, then id. At most `limit` (0 = all).
    std::vector<uint32_t> ranked(size_t limit) const;

    // Per fate: cycles, objects and bytes.
    struct FateTotals {
        uint64_t cycles = 0;
        uint64_t objects = 0;
        uint64_t bytes = 0;
    };
    const FateTotals& totals(CycleFate fate) const { return totals_[static_cast<int>(fate)]; }

private:
    void find_components();
    void classify();
    void find_holders();

    const GraphIndex* index_;
    const RootClasses* roots_;
    const RetentionPaths* paths_;
    std::vector<uint32_t> cycle_of_;       // per node
    std::vector<uint32_t> member_offset_;  // cycles + 1
    std::vector<uint32_t> members_;        // grouped by cycle, increasing node id
    std::vector<CycleInfo> info_;
    std::array<FateTotals, kCycleFateCount> totals_{};
};

}  // namespace refscope::analysis

// Objects and shallow bytes per type or per module: the first answer to "what
// is using the memory?" (the CLI's `summary`, the app's summary view).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/snapshot.h"

namespace refscope::analysis {

// Type and Module need only the snapshot (group_objects); Cycle and Dominator
// need an analysis first (group_by_cycle, group_by_dominator).
enum class GroupBy { Type, Module, Cycle, Dominator };

// "type", "module", "cycle", "dominator" (the CLI's --by values and JSON names).
std::string_view group_by_name(GroupBy by);

struct GroupTotal {
    std::string name;
    uint64_t objects = 0;
    uint64_t bytes = 0;  // shallow sizes
};

// One entry per distinct type name (or module name), most bytes first, then
// most objects, then by name. Types that share a name (two classes `Node` in
// one module) are one group: a person cannot tell them apart by name anyway.
// Throws std::invalid_argument for GroupBy::Cycle and GroupBy::Dominator.
std::vector<GroupTotal> group_objects(const Snapshot& snapshot, GroupBy by);

// In the two groupings below, `selected` (node ids, each at most once) limits
// the count to those objects, as `summary --filter` does; nullptr counts every
// object. Groups left without a selected object are dropped. Order: most
// bytes first, then most objects, then by name.

// One group per cycle (Cycles: non-trivial strongly connected components),
// named "cycle #12 (uncollectable: invisible edge): 3 × fixture.Wrapper,
// 2 × function" — its id, fate and up to three member types, "…" when there
// are more — and one "(not in a cycle)" group for every other object.
std::vector<GroupTotal> group_by_cycle(const Cycles& cycles, const Snapshot& snapshot,
                                       const std::vector<uint32_t>* selected = nullptr);

// One group per top-level retainer: each child of the dominator tree's
// super-root (held by roots) and of its unexplained-holders root, with
// everything it dominates. Named by describe_node() (with " @ address" when
// that has none) plus " (held by roots)" or " (unexplained holder)"; objects
// and bytes are its retained count and size
// (with a selection: the selected objects in its subtree). Objects the tree
// does not reach form one "(unreachable)" group. The tree's `index` must be
// over `snapshot`.
std::vector<GroupTotal> group_by_dominator(const DominatorTree& tree, const Snapshot& snapshot,
                                           const std::vector<uint32_t>* selected = nullptr);

}  // namespace refscope::analysis

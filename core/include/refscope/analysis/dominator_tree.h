// DominatorTree: what does this object keep alive? Object d dominates n when
// every chain of retaining references from the roots to n passes through d;
// freeing d (dropping the references to it) frees everything it dominates.
// The retained size of d is the shallow size of its dominator subtree.
//
// The graph is the snapshot's retaining edges (owned, not weak: a weak
// reference never keeps anything alive) plus virtual vertices:
//
//   super-root ──▶ every explained root (RootClasses::root_nodes())
//        └──────▶ "unexplained holders" ──▶ every object with unexplained
//                                            surplus          (optional)
//
// With the second virtual root, objects held only by C/C++ code or leaked
// get a dominator and retained sizes too (a leaked subgraph shows what it
// holds). An object held both from a root and by unexplained surplus is then
// dominated by the super-root, not by the root: neither holder alone keeps it
// alive, and that is the honest answer. The CLI and the app should use
// DominatorRoots::ExplainedAndUnexplained (the default).
//
// Objects reached from neither (garbage: cycles the collector has not freed
// yet, or cycles closed by a reference the GC cannot see and with no surplus)
// have no dominator: idom() is kNoNode and their retained size and count are
// 0. Cycles (cycles.h) reports such a cycle's total size instead.
//
// Algorithm: semi-NCA (Georgiadis et al., "Finding dominators in practice")
// over the CSR index: an iterative depth-first numbering, semidominators by
// Lengauer-Tarjan link-eval (balanced linking, iterative path compression),
// then immediate dominators as nearest common ancestors. Everything is 32-bit
// flat arrays; the scratch (about 40 bytes per reachable object plus 6 per
// retaining reference, at its peak) is freed before the constructor returns.
// What stays: about 28 bytes per object.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/root_classes.h"

namespace refscope::analysis {

// Sentinels for the virtual vertices, distinct from every node id and from
// kNoNode (which means "not reached").
inline constexpr uint32_t kSuperRoot = 0xFFFFFFFEu;
inline constexpr uint32_t kUnexplainedRoot = 0xFFFFFFFDu;

enum class DominatorRoots : uint8_t {
    Explained,                 // super-root → explained roots only
    ExplainedAndUnexplained,   // also → "unexplained holders" → objects with unexplained surplus
};

class DominatorTree {
public:
    // Throws std::invalid_argument if the snapshot has too many nodes for the
    // sentinels (more than 0xFFFFFFF0; the format caps counts at 2^31).
    DominatorTree(const GraphIndex& index, const RootClasses& roots,
                  DominatorRoots mode = DominatorRoots::ExplainedAndUnexplained);

    DominatorRoots mode() const { return mode_; }
    uint32_t node_count() const { return node_count_; }

    // Reached from the super-root over retaining edges (through the explained
    // roots, or through the unexplained holders when the mode includes them).
    bool reachable(uint32_t node) const { return idom_[node] != kNoNode; }
    uint32_t reachable_count() const { return reachable_count_; }

    // The immediate dominator: a node id, kSuperRoot, kUnexplainedRoot, or
    // kNoNode when the node is not reachable. idom(kUnexplainedRoot) is
    // kSuperRoot; idom(kSuperRoot) is kNoNode.
    uint32_t idom(uint32_t node) const { return idom_[slot(node)]; }

    // Shallow bytes of the node and everything it dominates (0 if not
    // reachable). Accepts kSuperRoot (all reachable bytes) and kUnexplainedRoot.
    uint64_t retained_size(uint32_t node) const { return retained_size_[slot(node)]; }
    // Objects in the dominator subtree, the node itself included (0 if not
    // reachable; the virtual roots do not count themselves).
    uint32_t retained_count(uint32_t node) const { return retained_count_[slot(node)]; }

    // Immediate dominator-tree children, by increasing node id; kUnexplainedRoot
    // appears among the super-root's children (last) when present.
    std::span<const uint32_t> children(uint32_t node) const {
        const uint32_t s = slot(node);
        return {children_.data() + child_offset_[s], children_.data() + child_offset_[s + 1]};
    }
    // The same, largest retained size first (ties by node id): for tree views.
    std::vector<uint32_t> children_by_retained_size(uint32_t node) const;

    // The chain of dominators from the node's immediate dominator up to the
    // super-root (last element kSuperRoot); empty if not reachable.
    std::vector<uint32_t> dominators_of(uint32_t node) const;

    // Real nodes (no sentinels) with the largest retained size, largest first,
    // ties by node id; at most `limit` (0 = every reachable node). Nested
    // results are expected: a module and its __dict__ both retain its contents.
    std::vector<uint32_t> top_retained(size_t limit) const;

private:
    uint32_t slot(uint32_t node) const {
        if (node == kSuperRoot) return node_count_;
        if (node == kUnexplainedRoot) return node_count_ + 1;
        return node;
    }

    DominatorRoots mode_;
    uint32_t node_count_ = 0;
    uint32_t reachable_count_ = 0;  // real nodes
    // Indexed by slot: node ids, then the super-root, then the unexplained root.
    std::vector<uint32_t> idom_;            // node id or sentinel, as idom() returns
    std::vector<uint64_t> retained_size_;
    std::vector<uint32_t> retained_count_;
    std::vector<uint32_t> child_offset_;    // slots + 1
    std::vector<uint32_t> children_;        // node ids or kUnexplainedRoot
};

}  // namespace refscope::analysis

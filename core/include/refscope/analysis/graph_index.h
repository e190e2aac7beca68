// GraphIndex: the reference graph of one Snapshot as compressed sparse rows
// (CSR), built once and shared by every analysis.
//
// Out-edges need no copy: the snapshot stores edges grouped by source, so a
// node's out-edges are the contiguous edge ids [out_offset[n], out_offset[n+1]).
// When the snapshot holds edge_first offsets (read from a file, walked by
// the probe, or after Snapshot::drop_edge_sources) the index uses them as
// they are; with an edge_source column it counts its own.
// In-edges are a counting sort of edge ids by target, built on first use
// (in_edges(), in_degree(), build_in_edges()): the BFS and the dominator
// tree walk out-edges only, and the in-edges (16 bytes a node at 3 edges a
// node) are for queries (referrers, "why is this not collectable") and the
// leak suspects, which run after the dominator tree and the cycle finder
// have freed their scratch. Building them before would add their size to
// those stages' peak, so those stages read out-edges only (the cycle finder
// finds the Python holder of a C++ member walking forward from the cycle's
// Python members). The owned in-degrees RootClasses needs are counted when
// the index is built. Ids and offsets are 32-bit (the format
// caps counts at 2^31), which keeps a 10M-node / 30M-edge index at about
// 240 MB with its in-edges instead of twice that.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "refscope/snapshot.h"

namespace refscope::analysis {

inline constexpr uint32_t kNoEdge = 0xFFFFFFFFu;

// The edge ids leaving one node. Usually a plain interval of edge ids; when a
// snapshot violates the grouped-by-source contract the index falls back to a
// permutation, and the range reads ids through it.
class EdgeIds {
public:
    class iterator {
    public:
        using value_type = uint32_t;
        using difference_type = std::ptrdiff_t;
        iterator() = default;
        iterator(const uint32_t* order, uint32_t position) : order_(order), position_(position) {}
        uint32_t operator*() const { return order_ ? order_[position_] : position_; }
        iterator& operator++() { ++position_; return *this; }
        iterator operator++(int) { iterator old = *this; ++position_; return old; }
        bool operator==(const iterator& other) const { return position_ == other.position_; }
    private:
        const uint32_t* order_ = nullptr;
        uint32_t position_ = 0;
    };

    EdgeIds(const uint32_t* order, uint32_t first, uint32_t last)
        : order_(order), first_(first), last_(last) {}
    iterator begin() const { return {order_, first_}; }
    iterator end() const { return {order_, last_}; }
    uint32_t size() const { return last_ - first_; }
    bool empty() const { return first_ == last_; }

private:
    const uint32_t* order_;
    uint32_t first_;
    uint32_t last_;
};

class GraphIndex {
public:
    // Keeps a reference to `snapshot`, which must outlive the index. Throws
    // std::invalid_argument if the columns disagree in length or an edge
    // names a node that does not exist (the reader should have refused such a
    // file; the index must not read out of bounds either way).
    explicit GraphIndex(const Snapshot& snapshot);
    // out_offsets() may point into the index itself.
    GraphIndex(const GraphIndex&) = delete;
    GraphIndex& operator=(const GraphIndex&) = delete;

    const Snapshot& snapshot() const { return *snapshot_; }
    uint32_t node_count() const { return node_count_; }
    uint32_t edge_count() const { return edge_count_; }

    EdgeIds out_edges(uint32_t node) const {
        return {out_order_.empty() ? nullptr : out_order_.data(), out_offsets_[node],
                out_offsets_[node + 1]};
    }
    // Edge ids whose target is `node`, in increasing edge id order.
    // The first call builds every node's in-edges (thread-safe; a second
    // thread waits for the first); std::bad_alloc if they do not fit.
    std::span<const uint32_t> in_edges(uint32_t node) const {
        build_in_edges();
        return {in_edge_.data() + in_offset_[node], in_edge_.data() + in_offset_[node + 1]};
    }
    // Builds the in-edges now if no call has yet: for a pipeline that wants
    // the cost counted where it chooses, and queries answered at once after.
    // Once built, a call is one load (in_degree() runs in per-node loops); a
    // build that throws leaves nothing behind, and the next call tries again.
    void build_in_edges() const {
        if (!in_edges_built_.load(std::memory_order_acquire)) sort_in_edges();
    }
    // Whether they are built: lets a test check that a stage which should
    // not need them (the BFS, the dominator tree, the cycle finder) did not.
    bool in_edges_built() const { return in_edges_built_.load(std::memory_order_acquire); }
    // node_count + 1 offsets: node n's out-edges start at out_offsets()[n].
    // For traversals that prefetch ahead; edge ids are positions only when
    // !had_to_sort_out_edges().
    const uint32_t* out_offsets() const { return out_offsets_; }
    uint32_t out_degree(uint32_t node) const { return out_offsets_[node + 1] - out_offsets_[node]; }
    uint32_t in_degree(uint32_t node) const {
        build_in_edges();
        return in_offset_[node + 1] - in_offset_[node];
    }
    // In-edges flagged kEdgeOwned (weak or not): the references to the node
    // that the snapshot accounts for (RootClasses::owned_in).
    uint32_t owned_in_degree(uint32_t node) const { return owned_in_[node]; }

    // A binary search over the out-offsets when the snapshot holds
    // edge_first: fine for a path or a node's in-edges; a pass over every
    // edge should walk the nodes' out-edges instead (and pass the source to
    // what asks for it, as hidden_from_gc(edge, source)).
    uint32_t source(uint32_t edge) const { return snapshot_->source_of(edge); }
    uint32_t target(uint32_t edge) const { return snapshot_->edge_target[edge]; }
    format::EdgeKind kind(uint32_t edge) const {
        return static_cast<format::EdgeKind>(snapshot_->edge_kind[edge]);
    }
    // Whether the edge keeps its target alive: an owned reference that is not
    // a weak reference. Retention paths follow only these.
    bool retains(uint32_t edge) const {
        return (snapshot_->edge_flags[edge] & format::kEdgeOwned) != 0 &&
               kind(edge) != format::EdgeKind::Weak;
    }
    // A reference the garbage collector cannot see — the one definition the
    // CLI, the app's views and both exports use. It keeps its target alive
    // (retains()), tp_traverse does not report it, and its target is a
    // Python object that can take part in a cycle: one the collector tracks,
    // or one of a type the collector never tracks that holds references
    // itself (a `Wrapper` type without Py_TPFLAGS_HAVE_GC holding `.value`).
    // An untracked object of a type that has tracked instances (a tuple of
    // strs the collector untracked, a code object's co_names) holds only
    // atomic objects: it can close no cycle. A reference from a C/C++
    // object a describe callback reported counts into any Python object (C++
    // keeps whatever it holds alive). Not hidden: references into native
    // nodes (the next native → Python edge is the one that matters) and
    // unreported references to atomic objects — the str keys of every dict,
    // ints — which can close no cycle and would mark every dict.
    // This form looks the source up (source(): a binary search once the
    // sources were dropped); a pass over every edge, which knows each
    // edge's source, passes it.
    bool hidden_from_gc(uint32_t edge) const { return hidden_from_gc(edge, kNoNode); }
    // `from`: the edge's source, or kNoNode to look it up when needed.
    bool hidden_from_gc(uint32_t edge, uint32_t from) const {
        if (!retains(edge) || (snapshot_->edge_flags[edge] & format::kEdgeGcVisible) != 0) return false;
        const uint32_t to = target(edge);
        const uint8_t target_flags = snapshot_->node_flags[to];
        if (target_flags & format::kNodeNative) return false;
        if ((target_flags & format::kNodeGcTracked) != 0) return true;
        if (from == kNoNode) from = source(edge);  // looked up last, and only if needed
        if ((snapshot_->node_flags[from] & format::kNodeNative) != 0) return true;
        const uint32_t type = snapshot_->node_type[to];
        return out_degree(to) > 0 && !(type < type_tracked_.size() && type_tracked_[type]);
    }
    // True when the snapshot's edges were not grouped by source and the index
    // had to sort them (a contract violation worth reporting, not fatal).
    bool had_to_sort_out_edges() const { return !out_order_.empty(); }

private:
    void count_owned_in();
    void sort_in_edges() const;

    const Snapshot* snapshot_;
    uint32_t node_count_ = 0;
    uint32_t edge_count_ = 0;
    std::vector<uint32_t> out_offset_;  // node_count + 1, unless the snapshot has edge_first
    const uint32_t* out_offsets_ = nullptr;  // out_offset_ or the snapshot's edge_first
    std::vector<uint32_t> out_order_;   // empty unless edges were not grouped by source
    // Built on first use (build_in_edges): written once under the mutex,
    // then the flag set; read-only after.
    mutable std::mutex in_edges_mutex_;
    mutable std::atomic<bool> in_edges_built_{false};
    mutable std::vector<uint32_t> in_offset_;  // node_count + 1
    mutable std::vector<uint32_t> in_edge_;    // edge ids grouped by target
    std::vector<uint32_t> owned_in_;    // node_count
    std::vector<uint8_t> type_tracked_;  // per type id: some instance is GC-tracked
};

// The node at `address`, or kNoNode. A linear scan: the CLI looks up one
// address per run, which is cheaper than building a map of 10M addresses.
uint32_t find_node_by_address(const Snapshot& snapshot, uint64_t address);

}  // namespace refscope::analysis

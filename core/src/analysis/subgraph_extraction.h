// The state of one subgraph extraction (extract_subgraph in subgraph.h),
// shared by the files that do its steps: subgraph_selection.cpp chooses the
// drawn nodes and groups, subgraph_labels.cpp adds the edges between them and
// writes node text and clusters, subgraph.cpp runs the steps in order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "refscope/analysis/subgraph.h"

namespace refscope::analysis::detail {

using format::EdgeKind;

// One bit per snapshot node: 1.25 MB for 10M nodes, so an extraction never
// allocates per-node structures proportional to the heap beyond these.
class NodeBits {
public:
    explicit NodeBits(size_t count) : words_((count + 63) / 64, 0) {}
    bool test(uint32_t n) const { return (words_[n >> 6] >> (n & 63)) & 1u; }
    // True if the bit was clear.
    bool set(uint32_t n) {
        uint64_t& word = words_[n >> 6];
        const uint64_t bit = uint64_t{1} << (n & 63);
        const bool was_clear = (word & bit) == 0;
        word |= bit;
        return was_clear;
    }
    void clear(uint32_t n) { words_[n >> 6] &= ~(uint64_t{1} << (n & 63)); }

private:
    std::vector<uint64_t> words_;
};

inline bool contains(const std::vector<uint32_t>& sorted, uint32_t value) {
    return std::binary_search(sorted.begin(), sorted.end(), value);
}

inline void sort_unique(std::vector<uint32_t>& values) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
}

// Running totals of the edges between an anchor and one group node.
struct GroupEdges {
    uint32_t group = 0;
    uint32_t first_edge = kNoEdge;
    uint32_t count = 0;
    uint8_t kind = 0;
    bool mixed_kinds = false;
    bool gc_invisible = false;
    bool all_weak = true;
    bool any_owned = false;
};

// The stretch of a long path drawn as one node (subgraph index `node`):
// `before` → first_edge → … → last_edge → `after` (snapshot nodes).
struct Elision {
    uint32_t before;
    uint32_t node;
    uint32_t after;
    uint32_t first_edge;
    uint32_t last_edge;
};

class Extraction {
public:
    Extraction(const GraphIndex& index, const RootClasses& roots, const RetentionPaths& paths,
               const SubgraphOptions& options)
        : index_(index), s_(index.snapshot()), roots_(roots), paths_(paths), options_(options),
          selected_(index.node_count()), taken_(index.node_count()),
          seen_here_(index.node_count()), overflow_(index.node_count()),
          bfs_seen_(index.node_count()),
          type_count_(s_.types.size() + 1, 0), type_bytes_(s_.types.size() + 1, 0),
          type_group_(s_.types.size() + 1, kNoNode) {}

    Subgraph run(std::span<const uint32_t> targets);

private:
    uint32_t select(uint32_t node);
    void add_path_edges(uint32_t first, const std::vector<uint32_t>& edges);
    void add_retention_paths(uint32_t target);
    void add_alternative_paths(const RetentionPath& shortest);
    void add_neighbourhood();
    void expand(uint32_t node, uint32_t distance, bool referrers);
    void add_edges_between_drawn_nodes();
    void describe_nodes();
    void make_clusters();
    uint32_t type_slot(uint32_t node) const {
        const uint32_t t = s_.node_type[node];
        return t < s_.types.size() ? t : static_cast<uint32_t>(s_.types.size());
    }
    uint32_t sub_index(uint32_t node) const {
        const auto it = std::lower_bound(lookup_.begin(), lookup_.end(),
                                         std::pair<uint32_t, uint32_t>{node, 0});
        return it != lookup_.end() && it->first == node ? it->second : kNoNode;
    }
    bool room() const { return out_.nodes.size() < options_.max_nodes; }

    const GraphIndex& index_;
    const Snapshot& s_;
    const RootClasses& roots_;
    const RetentionPaths& paths_;
    const SubgraphOptions& options_;
    Subgraph out_;

    NodeBits selected_;   // drawn as its own node
    NodeBits taken_;      // drawn, or a member of a group node
    NodeBits seen_here_;  // neighbours of the node being expanded (cleared after)
    NodeBits overflow_;   // of those, the ones in the busy node's mixed group
    NodeBits bfs_seen_;
    std::vector<std::pair<uint32_t, uint32_t>> bfs_queue_;  // (node, distance)

    std::vector<uint32_t> targets_;       // sorted
    std::vector<uint32_t> path_nodes_;    // sorted at the end
    std::vector<uint32_t> path_edges_;    // sorted at the end
    std::vector<uint32_t> holders_;       // sorted at the end
    std::vector<std::pair<uint32_t, uint32_t>> lookup_;  // (snapshot node, subgraph index)
    std::vector<GroupEdges> group_edges_;
    std::vector<Elision> elisions_;

    // Per-type scratch for one expansion, indexed by type id (+1 slot for bad ids).
    std::vector<uint32_t> type_count_;
    std::vector<uint64_t> type_bytes_;
    std::vector<uint32_t> type_group_;
    std::vector<uint32_t> touched_types_;
    std::vector<uint32_t> candidates_;
};

}  // namespace refscope::analysis::detail

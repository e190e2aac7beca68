// Out-edge positions and the "retains" test as raw arrays, for the iterative
// depth-first searches of the dominator tree and the cycle finder.
//
// Those searches keep one frame per depth level: the node and its position in
// its out-edge list. GraphIndex::out_edges() yields edge ids through an
// iterator, which cannot resume at a stored position when the index had to
// sort edges (a snapshot that broke the grouped-by-source contract). For that
// rare case this copies the order once; normally edge id == position.
#pragma once

#include <cstdint>
#include <vector>

#include "refscope/analysis/graph_index.h"

namespace refscope::analysis::detail {

class RetainingEdges {
public:
    explicit RetainingEdges(const GraphIndex& index)
        : offsets_(index.out_offsets()),
          targets_(index.snapshot().edge_target.data()),
          flags_(index.snapshot().edge_flags.data()),
          kinds_(index.snapshot().edge_kind.data()) {
        if (index.had_to_sort_out_edges()) {
            order_.reserve(index.edge_count());
            for (uint32_t n = 0; n < index.node_count(); ++n) {
                for (uint32_t e : index.out_edges(n)) order_.push_back(e);
            }
        }
    }

    uint32_t first(uint32_t node) const { return offsets_[node]; }
    uint32_t last(uint32_t node) const { return offsets_[node + 1]; }
    // The edge id at a position in [first(n), last(n)).
    uint32_t edge_at(uint32_t position) const {
        return order_.empty() ? position : order_[position];
    }
    uint32_t target(uint32_t edge) const { return targets_[edge]; }
    // Same rule as GraphIndex::retains: owned and not a weak reference.
    bool retains(uint32_t edge) const {
        return (flags_[edge] & format::kEdgeOwned) != 0 &&
               kinds_[edge] != static_cast<uint8_t>(format::EdgeKind::Weak);
    }

private:
    const uint32_t* offsets_;
    const uint32_t* targets_;
    const uint8_t* flags_;
    const uint8_t* kinds_;
    std::vector<uint32_t> order_;  // empty unless the index sorted out-edges
};

}  // namespace refscope::analysis::detail

#include "path_rows.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace refscope::graphviz {

std::vector<std::vector<uint32_t>> path_rows(const analysis::Subgraph& subgraph) {
    if (!subgraph.clusters.empty()) return {};
    const size_t n = subgraph.nodes.size();
    // The on-path edges must make one chain: at most one in and one out per
    // node, one start, every on-path node reached.
    std::vector<uint32_t> next(n, kNoRow);
    std::vector<uint8_t> has_prev(n, 0);
    size_t on_path_nodes = 0;
    for (const analysis::SubgraphNode& node : subgraph.nodes) on_path_nodes += node.on_path ? 1 : 0;
    for (const analysis::SubgraphEdge& e : subgraph.edges) {
        if (!e.on_path || e.from >= n || e.to >= n || e.from == e.to) continue;
        if (next[e.from] == e.to) continue;  // parallel references: one hop
        if (next[e.from] != kNoRow || has_prev[e.to]) return {};
        next[e.from] = e.to;
        has_prev[e.to] = 1;
    }
    uint32_t start = kNoRow;
    for (uint32_t i = 0; i < n; ++i) {
        if (!subgraph.nodes[i].on_path || has_prev[i] || next[i] == kNoRow) continue;
        if (start != kNoRow) return {};  // two chains
        start = i;
    }
    if (start == kNoRow) return {};
    std::vector<uint32_t> chain;
    for (uint32_t at = start; at != kNoRow && chain.size() <= n; at = next[at]) chain.push_back(at);
    if (chain.size() > n || chain.size() != on_path_nodes || chain.size() <= kLongestUnwrappedPath) return {};

    const auto width = static_cast<size_t>(std::ceil(std::sqrt(1.5 * static_cast<double>(chain.size()))));
    const size_t per_row = std::max<size_t>(width, 4);
    std::vector<std::vector<uint32_t>> rows;
    for (size_t i = 0; i < chain.size(); i += per_row) {
        rows.emplace_back(chain.begin() + static_cast<std::ptrdiff_t>(i),
                          chain.begin() + static_cast<std::ptrdiff_t>(std::min(chain.size(), i + per_row)));
    }
    return rows;
}

}  // namespace refscope::graphviz

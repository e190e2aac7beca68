// Subgraph extraction's entry points (subgraph.h): the steps of one
// extraction in order, picking targets of a type, and the number and size
// formatting the drawn labels use. The steps live in subgraph_selection.cpp
// and subgraph_labels.cpp.
#include "refscope/analysis/subgraph.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "refscope/analysis/descriptions.h"
#include "subgraph_extraction.h"

namespace refscope::analysis {
namespace detail {

Subgraph Extraction::run(std::span<const uint32_t> targets) {
    for (uint32_t t : targets) {
        if (t < index_.node_count()) targets_.push_back(t);
    }
    sort_unique(targets_);
    for (uint32_t t : targets_) select(t);
    for (uint32_t t : targets_) add_retention_paths(t);
    sort_unique(path_nodes_);
    sort_unique(path_edges_);
    sort_unique(holders_);

    lookup_.reserve(out_.nodes.size());
    for (uint32_t i = 0; i < out_.nodes.size(); ++i) lookup_.push_back({out_.nodes[i].node, i});
    std::sort(lookup_.begin(), lookup_.end());

    add_neighbourhood();
    add_edges_between_drawn_nodes();
    describe_nodes();
    make_clusters();
    return std::move(out_);
}

}  // namespace detail

std::string_view cluster_by_name(ClusterBy by) {
    switch (by) {
        case ClusterBy::None: return "none";
        case ClusterBy::Module: return "module";
        case ClusterBy::Type: return "type";
        case ClusterBy::Cycle: return "cycle";
    }
    return "?";
}

uint32_t Subgraph::find(uint32_t snapshot_node) const {
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].node == snapshot_node) return i;
    }
    return kNoNode;
}

Subgraph extract_subgraph(const GraphIndex& index, const RootClasses& roots,
                          const RetentionPaths& paths, std::span<const uint32_t> targets,
                          const SubgraphOptions& options) {
    detail::Extraction extraction(index, roots, paths, options);
    return extraction.run(targets);
}

std::vector<uint32_t> pick_targets_of_type(const GraphIndex& index, const RootClasses& roots,
                                           const RetentionPaths& paths,
                                           std::string_view type_name, size_t limit) {
    const Snapshot& s = index.snapshot();
    std::vector<uint8_t> wanted(s.types.size(), 0);
    bool any = false;
    for (size_t t = 0; t < s.types.size(); ++t) {
        if (s.strings.view(s.types[t].name) == type_name) wanted[t] = 1, any = true;
    }
    std::vector<uint32_t> found;
    if (!any || limit == 0) return found;
    for (uint32_t n = 0; n < index.node_count(); ++n) {
        const uint32_t t = s.node_type[n];
        if (t < wanted.size() && wanted[t]) found.push_back(n);
    }
    // Most telling first: no path (a leak), unexplained surplus, far from roots.
    const auto rank = [&](uint32_t n) {
        const bool reachable = paths.reachable(n);
        return std::tuple(reachable, roots.unexplained(n) <= 0,
                          reachable ? ~paths.distance(n) : 0u, n);
    };
    const size_t keep = std::min(limit, found.size());
    std::partial_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(keep), found.end(),
                      [&](uint32_t a, uint32_t b) { return rank(a) < rank(b); });
    found.resize(keep);
    return found;
}

}  // namespace refscope::analysis

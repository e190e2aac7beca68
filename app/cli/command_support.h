// What the verbs share: the analyses most of them need, and the conversion
// of snapshot nodes, roots and edges into the plain reports of reports.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "refscope/analysis/finalizer_traps.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "reports.h"

namespace refscope::cli {

inline constexpr size_t kDefaultTop = 20;

// The index, root classes and BFS for the verbs that need them. Members
// refer to each other: built in place, never moved.
struct Analysis {
    explicit Analysis(const Snapshot& snapshot) : index(snapshot), roots(index), paths(index, roots) {}
    Analysis(const Analysis&) = delete;
    Analysis& operator=(const Analysis&) = delete;
    analysis::GraphIndex index;
    analysis::RootClasses roots;
    analysis::RetentionPaths paths;
};

// --top N: N, `fallback` when not given, everything (SIZE_MAX) for 0.
size_t limit_or_all(std::optional<size_t> top, size_t fallback);

NodeReport node_report(const Snapshot& s, const analysis::RootClasses& roots, uint32_t node);
// Without the refcount arithmetic (surplus null, unexplained 0): for verbs
// that did not need RootClasses.
NodeReport plain_node_report(const Snapshot& s, uint32_t node);
RootReport root_report(const Snapshot& s, const RootRef& root);
// The edge into (or out of) `node`, and `node`.
HopReport hop_report(const Analysis& a, uint32_t edge, uint32_t node);
std::vector<HopReport> hops_along(const Analysis& a, const std::vector<uint32_t>& edges);
FinalizerReport finalizer_report(const Snapshot& s, const analysis::RootClasses& roots,
                                 const analysis::FinalizerTrap& trap);
// Reads a snapshot other than options.file (diff B and C, suspects
// --baseline/--third): a ReadError then names that file, not the first one.
Snapshot read_other_snapshot(const std::string& path);

// Throws LookupError when no object is at `address`.
uint32_t node_at(const Snapshot& s, uint64_t address);

}  // namespace refscope::cli

// What the verbs share: loading a snapshot with the analysis stages a verb
// needs (analysis::SnapshotAnalysis, the pipeline the app uses too), and the
// conversion of snapshot nodes, roots and edges into the plain reports of
// reports.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "refscope/analysis/comparison.h"
#include "refscope/analysis/finalizer_traps.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "reports.h"

namespace refscope::cli {

inline constexpr size_t kDefaultTop = 20;

// Reads `path` and builds the stages `stages` asks for (on two threads where
// the pipeline can). For the files other than options.file (diff B and C,
// suspects --baseline/--third) a ReadError names that file, not the first.
analysis::SharedAnalysis load_analysis(const std::string& path, analysis::AnalysisOptions stages);

// --top N: N, `fallback` when not given, everything (SIZE_MAX) for 0.
size_t limit_or_all(std::optional<size_t> top, size_t fallback);

NodeReport node_report(const Snapshot& s, const analysis::RootClasses& roots, uint32_t node);
// Without the refcount arithmetic (surplus null, unexplained 0): for verbs
// that did not need RootClasses.
NodeReport plain_node_report(const Snapshot& s, uint32_t node);
RootReport root_report(const Snapshot& s, const RootRef& root);
// The edge into (or out of) `node`, and `node`.
// Needs the analysis' graph.
HopReport hop_report(const analysis::SnapshotAnalysis& a, uint32_t edge, uint32_t node);
std::vector<HopReport> hops_along(const analysis::SnapshotAnalysis& a, const std::vector<uint32_t>& edges);
FinalizerReport finalizer_report(const Snapshot& s, const analysis::RootClasses& roots,
                                 const analysis::FinalizerTrap& trap);
// Throws LookupError when no object is at `address`.
uint32_t node_at(const Snapshot& s, uint64_t address);

}  // namespace refscope::cli

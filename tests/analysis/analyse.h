// The tests' one way to analyse a hand-built snapshot: the pipeline the app
// and the CLI run (analysis::SnapshotAnalysis), with the stages asked for.
// Shared, so a test can hand it to models and comparisons that keep it.
#pragma once

#include <memory>
#include <utility>

#include "refscope/analysis/snapshot_analysis.h"

namespace refscope::testing {

using AnalysisPtr = std::shared_ptr<const analysis::SnapshotAnalysis>;

inline AnalysisPtr analyse(Snapshot snapshot, const analysis::AnalysisOptions& stages = {}) {
    return analysis::SnapshotAnalysis::analyse(std::move(snapshot), stages);
}

}  // namespace refscope::testing

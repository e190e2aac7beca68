// The analysis and export verbs, one function each: read what they need,
// build their report and render it as text or JSON. run_verb() (commands.cpp)
// dispatches to them with the snapshot named by options.file already loaded
// with the stages the verb reads (stages_for, commands.cpp).
#pragma once

#include <ostream>

#include "arguments.h"
#include "refscope/analysis/comparison.h"
#include "refscope/snapshot.h"

namespace refscope::cli {

// commands_analysis.cpp
void run_retained(const CliOptions& options, const analysis::SnapshotAnalysis& a, std::ostream& out);
void run_cycles(const CliOptions& options, const analysis::SnapshotAnalysis& a, std::ostream& out);
void run_query(const CliOptions& options, const analysis::SnapshotAnalysis& a, std::ostream& out);

// commands_diff.cpp (reads the other snapshots itself)
void run_diff(const CliOptions& options, const Snapshot& older, std::ostream& out);

// commands_suspects.cpp (reads --baseline and --third itself)
void run_suspects(const CliOptions& options, const analysis::SharedAnalysis& file, std::ostream& out);

// commands_export.cpp
void run_export_path(const CliOptions& options, const analysis::SnapshotAnalysis& a, std::ostream& out);
void run_export_heapsnapshot(const CliOptions& options, const analysis::SnapshotAnalysis& a, std::ostream& out);

}  // namespace refscope::cli

// The verbs: each reads the snapshot, runs the analysis it needs (info and
// summary need no index) and renders its report as text or JSON. The first
// five live in commands.cpp (reports.h, text_output, json_output); the
// analysis and export verbs in commands_*.cpp (verbs.h).
#pragma once

#include <ostream>
#include <stdexcept>

#include "arguments.h"

namespace refscope::cli {

// A request that cannot be answered from this snapshot (no object at that
// address, no instance of that type): exit status 1.
class LookupError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws format::ReadError, LookupError, or std::invalid_argument for a
// snapshot the analysis cannot index; UsageError and FilterUsageError (exit
// 2), analysis::SnapshotMismatchError, graphviz::GraphvizError and
// exporting::HeapsnapshotError (exit 1) from the newer verbs.
void run_verb(const CliOptions& options, std::ostream& out);

}  // namespace refscope::cli

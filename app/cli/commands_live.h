// The live verbs (commands_live.cpp): `listen` and `processes`. They read no
// snapshot file and parse their own options from CliOptions::live_args.
#pragma once

#include <ostream>

#include "arguments.h"

namespace refscope::cli {

// Throws UsageError for bad options and live::ListenError when the
// listener cannot start (or --count was not reached by --timeout).
void run_live_verb(const CliOptions& options, std::ostream& out);

}  // namespace refscope::cli

// The snapshot header: who took the snapshot of which process, when.
#pragma once

#include <Python.h>

#include "refscope/snapshot.h"

namespace refscope::probe {

// Fills everything but walk_ns. Reads sys.argv/sys.executable through the
// sys dict without running Python code; call before the walk starts.
void fill_header(SnapshotHeader& header, bool collected_first, uint64_t sequence,
                 const std::string& label);

}  // namespace refscope::probe

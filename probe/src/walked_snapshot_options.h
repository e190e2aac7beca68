// How the probe encodes a walked snapshot, to a file or on the live
// connection.
#pragma once

#include "refscope/format/snapshot_io.h"

namespace refscope::probe {

// The walker's address map gives every address one node by construction, so
// the writer's duplicate-address check (a sort of every address: 8 bytes per
// node and ~4 % of the time, inside the target) is skipped.
inline format::WriteOptions walked_snapshot_options() {
    format::WriteOptions options;
    options.check_addresses = false;
    return options;
}

}  // namespace refscope::probe

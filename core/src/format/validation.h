// The cross-reference rules of a snapshot (every id in range, columns of equal
// length, edges grouped by source). The writer checks them before writing, so
// that the probe learns about a bad snapshot at once; the reader checks them
// after decoding, so that the analysis can index without bounds checks.
#pragma once

#include <optional>
#include <string>

#include "refscope/format/constants.h"
#include "refscope/snapshot.h"

namespace refscope::format {

struct SnapshotDefect {
    SectionId section;    // where the offending value is stored
    std::string message;  // "edge 12: target 99 is out of range (40 nodes)"
};

// Every rule; the reader passes check_addresses = false and runs
// address_defect() on its node-decoding thread instead, where it costs no
// time (sorting ten million addresses takes most of a second).
std::optional<SnapshotDefect> find_defect(const Snapshot& snapshot, bool check_addresses = true);

// Node addresses: none is 0, no two Python objects share one, and no two
// native nodes of one type share one (a C++ object may be reported under
// several types, and may sit at its Python object's address). Reads only the
// node columns. Needs memory for a sorted copy of the addresses.
std::optional<SnapshotDefect> address_defect(const Snapshot& snapshot);

}  // namespace refscope::format

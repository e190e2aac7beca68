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

std::optional<SnapshotDefect> find_defect(const Snapshot& snapshot);

}  // namespace refscope::format

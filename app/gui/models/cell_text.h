// How numbers, sizes and previews read in the app's cells. The text follows
// the CLI (human_bytes, with_thousands, describe_node…) so the app and
// `refscope-cli` say the same things; the raw values go to SortKeyRole.
#pragma once

#include <cstdint>
#include <string_view>

#include <QString>

#include "refscope/snapshot.h"

namespace refscope::app {

QString to_qstring(std::string_view utf8);

// "1,234,567".
QString count_text(uint64_t count);
// "+12", "-3", "0" (deltas).
QString signed_count_text(int64_t count);
// "56.0 KiB".
QString bytes_text(uint64_t bytes);
// "+1.2 MiB", "-48 B", "0 B".
QString signed_bytes_text(int64_t bytes);
// "1,234 bytes" (tooltips: the exact figure behind a rounded cell).
QString exact_bytes_text(uint64_t bytes);

// A preview as the object table shows it: a str as a quoted literal
// ('it\'s …'), anything else (numbers, names, "len 3") as plain text with
// control characters escaped; empty when the object has none.
QString preview_text(const Snapshot& snapshot, uint32_t node, size_t max_bytes = 60);

// Hops from the nearest GC root, "∞" when there is no path.
QString distance_text(uint32_t distance);

// Order-preserving maps of signed values onto uint64 sort keys.
inline uint64_t signed_sort_key(int64_t value) {
    return static_cast<uint64_t>(value) ^ 0x8000000000000000ull;
}

}  // namespace refscope::app

// Export of a Snapshot as a V8 heap snapshot (`.heapsnapshot` JSON), so that
// a Python heap opens in Chrome DevTools' Memory panel and in the tools that
// read that format (memlab, heapsnapshot parsers). docs/heapsnapshot.md is the
// mapping: which node and edge types Python objects and references become,
// what the synthetic root nodes are, how ids are made.
//
// The writer streams: nodes, edges and strings go through a fixed buffer to
// the output as they are produced, so a 10-million-object heap never exists as
// one JSON string. What it keeps besides the snapshot and the caller's
// analysis objects is the output string table (names de-duplicated through a
// flat hash table), one 32-bit slot per snapshot string and one per object
// (name caches), and a 256 KiB output buffer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <ostream>
#include <stdexcept>
#include <string>

#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/snapshot.h"

namespace refscope::exporting {

// Output failed (disk full, unwritable directory, closed stream) or the
// snapshot is too large for the format's 32-bit node offsets.
class HeapsnapshotError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct HeapsnapshotOptions {
    // false (default): str, numbers, functions, code and list/tuple become
    // V8's string / number / closure / code / array nodes, so DevTools shows
    // their values and groups them as "(string)", "(closure)"...
    // true: every Python object is an "object" node named by its type's
    // qualified name, so DevTools' Summary is one row per Python type.
    bool python_types_only = false;
};

// What was written; counts are of the .heapsnapshot (synthetic nodes and
// root edges included), not of the Snapshot.
struct HeapsnapshotStats {
    uint64_t nodes = 0;
    uint64_t edges = 0;
    uint64_t strings = 0;
    uint64_t bytes = 0;
    uint64_t synthetic_nodes = 0;  // root + one per root class / thread
};

// The node ids the export gives (docs/heapsnapshot.md): the synthetic root is
// 1 (memlab and DevTools recognise it by that), the other synthetic nodes get
// even ids 2, 4, 6..., and snapshot node n gets the odd id 2n + 3, whatever
// the number of synthetic nodes, so ids name the same object in exports of the
// same Snapshot with different options.
inline constexpr uint64_t kHeapsnapshotRootId = 1;
inline constexpr uint64_t heapsnapshot_object_id(uint32_t node) { return 2ull * node + 3; }

// Writes to `out` (not closed). `index` and `roots` must be built over the
// same Snapshot. Throws HeapsnapshotError when a write fails.
HeapsnapshotStats write_heapsnapshot(const analysis::GraphIndex& index,
                                     const analysis::RootClasses& roots, std::FILE* out,
                                     const HeapsnapshotOptions& options = {});
HeapsnapshotStats write_heapsnapshot(const analysis::GraphIndex& index,
                                     const analysis::RootClasses& roots, std::ostream& out,
                                     const HeapsnapshotOptions& options = {});

// Writes `path` atomically: a temporary file beside it, flushed and fsync'ed,
// then renamed over it. On any failure the temporary file is removed, `path`
// is untouched, and HeapsnapshotError says what failed and where.
HeapsnapshotStats write_heapsnapshot_file(const analysis::GraphIndex& index,
                                          const analysis::RootClasses& roots,
                                          const std::string& path,
                                          const HeapsnapshotOptions& options = {});
// The same for a caller without analysis objects: builds the GraphIndex and
// RootClasses itself (std::invalid_argument from GraphIndex for a snapshot
// whose edges name missing nodes).
HeapsnapshotStats write_heapsnapshot_file(const Snapshot& snapshot, const std::string& path,
                                          const HeapsnapshotOptions& options = {});

}  // namespace refscope::exporting

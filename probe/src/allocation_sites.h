// Allocation sites: after the walk, while the GIL is still held and the
// collector still off (so every node is still the object the walk saw),
// reads tracemalloc's traceback for each object into
// Snapshot::allocations (format section Allocations, docs/format.md).
//
// tracemalloc keeps its table in C; the probe asks for each object's memory
// block with _PyTraceMalloc_GetTraceback, the C function tracemalloc's own
// get_object_traceback() ends in: no Python code runs, nothing is imported.
// Whether tracemalloc traces is asked of the `_tracemalloc` builtins when it
// is imported (through their C function pointers), else read from -X
// tracemalloc / PYTHONTRACEMALLOC. The tracebacks hold (file, line) pairs
// only; the function of each line is found among the code objects the walk
// saw (the innermost one whose line table has that line), so a site reads
// "app/views.py:12 in create_order".
#pragma once

#include <cstdint>

namespace refscope::probe {

class HeapWalker;

struct AllocationStats {
    bool tracing = false;        // tracemalloc was tracing
    uint64_t traced_objects = 0; // nodes with a traceback
    uint64_t tracebacks = 0;     // distinct tracebacks
    uint64_t frames = 0;         // distinct frames
    uint64_t lookup_failures = 0;  // objects whose lookup raised (cleared)
    double seconds = 0;
};

// Fills walker.snapshot().allocations when tracemalloc is tracing; leaves it
// empty otherwise. GIL held, collector disabled, right after walk().
AllocationStats record_allocation_sites(HeapWalker& walker);

}  // namespace refscope::probe

// What changed between two snapshots of one process, and which objects
// allocated between snapshots 1 and 2 are still alive in snapshot 3 (the
// three-snapshot technique for finding leaks).
//
// Matching rule: an object of A and an object of B are "the same object" when
// they have the same address AND the same type name. Type ids are per
// snapshot, so names are compared through each snapshot's string table (both
// sides are mapped to one shared set of names first). An address reused by an
// object of another type is therefore a freed object in A plus a new object in
// B. An address freed and reused by an object of the SAME type between the two
// snapshots cannot be told apart from an object that lived all along: a heap
// snapshot holds no allocation serial number. Such objects count as surviving
// — except tuples, which cannot change: a tuple holding other objects (by
// address) than the old one at its address is new, and the old one freed.
// CPython's free lists hand tuple addresses out again and again (an
// lru_cache's keys, *args), so this matters where leaks accumulate.
//
// Everything is flat: one open-addressing table over A's nodes (16-byte slots
// holding address, shared type-name id and node id), one byte per node of A
// (matched) and one per node of B (is_new), and each snapshot's first edge
// per node (for tuples' contents). No per-node heap allocations; the table
// and those offsets cost about 350 MB for 10M nodes while matching and are
// freed after.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "refscope/snapshot.h"

namespace refscope::analysis {

// Thrown when two snapshots cannot be diffed: they come from different
// processes, or they are given in the wrong order.
class SnapshotMismatchError : public std::runtime_error {
public:
    enum class Reason { DifferentProcesses, WrongOrder };
    SnapshotMismatchError(Reason reason, const std::string& message)
        : std::runtime_error(message), reason_(reason) {}
    Reason reason() const { return reason_; }

private:
    Reason reason_;
};

// Throws SnapshotMismatchError unless `older` and `newer` are snapshots of one
// process in that order:
// - different processes: the pids differ, or the executables differ (a pid
//   reused by another program). A pid of 0 on both sides (hand-built or
//   unknown) counts as the same process.
// - wrong order: both sequence numbers are set (> 0) and older's is not
//   smaller; or both sequences are 0 and both times are set and older's time
//   is later than newer's.
void check_snapshot_order(const Snapshot& older, const Snapshot& newer);

// "pid 123 (python3 app.py)": how errors and reports name a snapshot's process.
std::string describe_process(const Snapshot& snapshot);

struct DiffOptions {
    // Skip check_snapshot_order (a CLI --force): diff whatever was given.
    bool allow_mismatch = false;
};

// Counts and shallow bytes of one type name in A and in B.
struct TypeDelta {
    std::string name;
    uint64_t objects_a = 0;
    uint64_t objects_b = 0;
    uint64_t bytes_a = 0;
    uint64_t bytes_b = 0;
    uint64_t new_objects = 0;  // in B, not in A
    uint64_t new_bytes = 0;
    uint64_t freed_objects = 0;  // in A, not in B
    uint64_t freed_bytes = 0;
    int64_t object_delta() const { return static_cast<int64_t>(objects_b - objects_a); }
    int64_t byte_delta() const { return static_cast<int64_t>(bytes_b - bytes_a); }
};

struct DiffTotals {
    uint64_t objects_a = 0, objects_b = 0;
    uint64_t bytes_a = 0, bytes_b = 0;
    uint64_t matched = 0;  // objects in both (same address and type name)
    uint64_t new_objects = 0, new_bytes = 0;
    uint64_t freed_objects = 0, freed_bytes = 0;
};

struct SnapshotDiff {
    DiffTotals totals;
    // One entry per type name present in A or B whose counts or bytes
    // changed or that had new/freed objects; unchanged types are left out.
    // Sorted by byte delta, largest growth first (largest shrink last), then
    // object delta (descending), then name.
    std::vector<TypeDelta> types;
    // The same per module (TypeDelta::name is the module's name), grouped as
    // module_name() groups objects (a module object belongs to itself), same
    // order: the summary by module's Δ columns read it.
    std::vector<TypeDelta> modules;
    std::vector<uint32_t> new_nodes;    // node ids of B, increasing
    std::vector<uint32_t> freed_nodes;  // node ids of A, increasing
    // One byte per node of B: 1 = new (no match in A). The filter's `new`
    // flag and the views read this column.
    std::vector<uint8_t> is_new;
};

// A = older, B = newer. Throws SnapshotMismatchError (see check_snapshot_order)
// unless options.allow_mismatch.
SnapshotDiff diff_snapshots(const Snapshot& a, const Snapshot& b, const DiffOptions& options = {});

// The three-snapshot technique: objects allocated between snapshots 1 and 2
// (in 2, not in 1) and still alive in 3 (matched 2 -> 3 by address and type
// name). Reported as nodes of snapshot 3, where their retention can be
// explored.
struct SurvivorGroup {
    std::string type;
    uint64_t objects = 0;
    uint64_t bytes = 0;  // shallow, as in snapshot 3
};

struct SurvivorReport {
    uint64_t allocated_between = 0;  // objects new in 2 relative to 1
    uint64_t freed_again = 0;        // of those, gone by 3
    uint64_t survivor_bytes = 0;
    std::vector<uint32_t> survivors;  // node ids of snapshot 3, increasing
    // One byte per node of snapshot 3: 1 = survivor. Pass it to the filter as
    // its `new` column to query survivors (`new type:app.*`).
    std::vector<uint8_t> is_survivor;
    // Per type name, most bytes first, then most objects, then name.
    std::vector<SurvivorGroup> groups;
};

// Throws SnapshotMismatchError unless 1, 2, 3 are one process in that order
// (or options.allow_mismatch).
SurvivorReport find_survivors(const Snapshot& first, const Snapshot& second, const Snapshot& third,
                              const DiffOptions& options = {});

}  // namespace refscope::analysis

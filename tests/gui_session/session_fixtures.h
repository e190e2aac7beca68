// Snapshots for the app's tests, built in memory (tests/analysis/snapshot_builder.h)
// or generated (tests/format/synthetic_heap.cpp) and written to temporary files.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include <QString>

#include "refscope/snapshot.h"
#include "analyse.h"
#include "session/analysis_ptr.h"

namespace refscope::testing {

// A process whose module `app` keeps every app.Session it ever made in a
// dict that is never pruned (`registry`), reached from sys.modules['app']:
//   module app -> __dict__ -['registry']-> dict -['user-i']-> app.Session -.token-> str
// `sessions` Session objects; the first n of a snapshot with more sessions
// have the same addresses (the same objects, as two snapshots of one
// process see them). Refcounts match the owned references exactly.
Snapshot make_registry_snapshot(uint32_t sessions, uint64_t sequence, int64_t pid = 5150,
                                const std::string& executable = "/usr/bin/python3");

// Writes make_synthetic_heap(nodes) to `path` (heap-shaped: chains, hubs,
// roots, ~2.7 edges per node). Returns false on failure.
bool write_synthetic_heap(const QString& path, size_t nodes, uint64_t seed = 1);

// Objects and bytes per type name, counted by walking the snapshot node by
// node: an independent check of what the app counts (group_objects).
std::map<std::string, std::pair<uint64_t, uint64_t>> tally_types(const Snapshot& snapshot);

}  // namespace refscope::testing

// TEST HOOK ONLY: summarises a snapshot as Python objects for tests/probe
// (refscope._probe._debug_walk). Runs after the walk, so creating Python
// objects here cannot disturb the snapshot.
#pragma once

#include <Python.h>

#include <cstdint>
#include <vector>

#include "refscope/snapshot.h"

namespace refscope::probe {

// Returns a new dict: counts, consistency checks, the objects with the most
// unexplained surplus, and per watched address the node's facts, in-edges
// and roots.
PyObject* debug_report(const Snapshot& snapshot, const std::vector<uint64_t>& watch);

}  // namespace refscope::probe

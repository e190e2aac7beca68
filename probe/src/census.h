// refscope._probe._census: which objects exist, for refscope.leak_check.
// Runs after a walk: the first pass reads the snapshot (and type objects,
// still alive: no Python code has run since the walk) into C++ vectors; only
// then are Python objects created for the result.
#pragma once

#include <Python.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "refscope/snapshot.h"

namespace refscope::probe {

struct CensusFilter {
    // Instances of these types (or subclasses) are counted; when empty, every
    // object whose module's top-level package is not excluded is.
    std::vector<PyTypeObject*> types;
    std::unordered_set<std::string> excluded_packages;
};

// Returns a new list of (address, type address, qualified name, module) for
// the matching Python objects of the snapshot (native nodes excluded). A
// class is listed under its own name and module, with its metaclass as type.
PyObject* census(const Snapshot& snapshot, const CensusFilter& filter);

}  // namespace refscope::probe

// The live connection's part of refscope._probe (live_module.cpp): the
// Python entry points, and the walk it borrows from module.cpp.
#pragma once

#include <Python.h>

#include <cstdint>
#include <string>

#include "refscope/snapshot.h"

namespace refscope::probe {

// Adds _live_connect, _live_disconnect, _live_status and _live_shutdown to
// the module. Returns -1 with an exception set on failure.
int add_live_functions(PyObject* module);

// Defined in module.cpp, beside snapshot()'s own walk: the same steps
// (gc.collect() if asked, header, walk with the collector disabled), for the
// connection's thread, which holds no reference the walk must subtract.
// Called and returns with the GIL held; the preview texts are finished with
// the GIL released in between. Throws like the walk.
void walk_for_live_connection(Snapshot& snapshot, bool collect, uint64_t sequence, const std::string& label);

}  // namespace refscope::probe

// The pybind11 recogniser's shared part: one pass per set of pybind11
// headers the probe was built with (recognise_pybind11.cpp, compiled once per
// release; see its header), and the search for the internals each of them
// may read.
#pragma once

#include <Python.h>

#include <unordered_set>
#include <vector>

namespace refscope::probe {

class DescribeSession;

// Internals capsules and function record holders already recognised during
// this walk: two header sets with the same internals version (2.10 and 2.13
// both publish v4 on Python < 3.12) find the same capsule, and only the first
// may describe it, or every reference it reports would be counted twice.
using Pybind11Claims = std::unordered_set<PyObject*>;

// The builtin functions in the dicts of every loaded module and of the
// submodules those hold (def_submodule's need not be in sys.modules): where
// m.def puts a cpp_function. Collected once per walk, the first time a
// release's recogniser asks (recognise_pybind11_releases.cpp), and shared by
// all of them.
class ModuleFunctions {
public:
    const std::vector<PyObject*>& get();

private:
    bool collected_ = false;
    std::vector<PyObject*> functions_;
};

// The capsule published under `compiled_id` (a PYBIND11_INTERNALS_ID) in the
// interpreter's state dict (pybind11 >= 2.11 on Python >= 3.12, and 3.x) or
// in builtins (internals v4), or nullptr. Keys are compared by iteration,
// never hashed through Python. The compiler ABI part of a 2.x id
// ("_cxxabi1017") may differ: every libstdc++ ABI 1002-1999 lays out the
// standard containers in the internals alike (pybind11 3 names them all
// "_gxx_abi_1xxx"), so an extension built by GCC 14 is read by a probe built
// by GCC 12. Everything else must match exactly.
PyObject* find_pybind11_internals(const char* compiled_id);

}  // namespace refscope::probe

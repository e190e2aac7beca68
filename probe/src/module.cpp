// refscope._probe: the extension's entry points.
//
//   snapshot(path, collect=True, sequence=0, label="") -> dict of stats
//       gc.collect() if asked, walk the heap with the GIL held and the
//       collector disabled, then release the GIL to encode and write `path`.
//   _debug_walk(collect=False, watch=()) -> dict          TEST HOOK ONLY
//       the same walk without writing; returns counts and, for each address
//       in `watch`, what the snapshot says about that object. Used by
//       tests/probe to check refcount arithmetic without the CLI.
//   _debug_cython_series(type_name) -> int                 TEST HOOK ONLY
//       which Cython function layout a type name selects (cython_fields.cpp).
//
// Every entry point runs its body through translate_exceptions()
// (entry_point.h): no C++ exception may unwind into the interpreter.
#include <Python.h>

#include <chrono>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>

#include "allocation_sites.h"
#include "census.h"
#include "compat.h"
#include "cpython_internals.h"
#include "debug_report.h"
#include "describe_session.h"
#include "entry_point.h"
#include "heap_walker.h"
#include "live_module.h"
#include "object_kinds.h"
#include "python_text.h"
#include "refscope/format/snapshot_io.h"
#include "snapshot_header.h"
#include "walked_snapshot_options.h"

namespace refscope::probe {
namespace {

// The PyCFunction objects of this module, found once at import. A call
// holds one reference to its callable on the caller's value stack (invisible
// to the walk), which the walk subtracts like the argument references.
PyObject* g_snapshot_function = nullptr;
PyObject* g_debug_function = nullptr;
PyObject* g_census_function = nullptr;

// True while a walk runs. A describe callback that (against the rules) calls
// back into snapshot(), or lets the GIL go so that the live connection's
// thread takes it to walk, must not start a second walk over the first one's
// half-built state: run_walk() refuses.
bool g_walking = false;

struct WalkingFlag {
    WalkingFlag() { g_walking = true; }
    ~WalkingFlag() { g_walking = false; }
    WalkingFlag(const WalkingFlag&) = delete;
    WalkingFlag& operator=(const WalkingFlag&) = delete;
};

struct WalkRequest {
    bool collect = true;
    uint64_t sequence = 0;
    std::string label;
    // Read tracemalloc's tracebacks when it is tracing (allocation_sites.h);
    // leak_check's census has no use for them.
    bool allocation_sites = true;
};

bool read_bool(PyObject* op, bool& out) {
    if (PyBool_Check(op) || PyLong_CheckExact(op)) {
        out = PyLong_AsLong(op) != 0;
        return true;
    }
    PyErr_SetString(PyExc_TypeError, "expected a bool");
    return false;
}

// Runs the walk: collection first if asked, header, then the GIL-held walk
// with the collector disabled (an allocation must not start a collection,
// whose finalizers would be Python code running mid-walk), and the
// allocation sites while it is still disabled (every node must still be
// the object the walk saw). Throws, before anything else, if another walk
// is under way (g_walking).
AllocationStats run_walk(HeapWalker& walker, Snapshot& snapshot, const WalkRequest& request, PyObject* callable,
              PyObject* const* args, Py_ssize_t nargs) {
    if (g_walking)
        throw std::runtime_error("refscope: a snapshot is already being taken (re-entered from a describe callback?)");
    if (request.collect) {
        PyGC_Collect();
        if (PyErr_Occurred()) PyErr_Clear();
    }
    fill_header(snapshot.header, request.collect, request.sequence, request.label);
    int gc_state = compat::gc_disable_saving_state();
    if (gc_state < 0) PyErr_Clear();
    WalkingFlag walking;
    // The caller's references to the callable and the arguments are the
    // probe's, unless its frame's value stack shows them (3.14+): then the
    // thread roots explain (or, borrowed, do not count) them.
    if (!rs_caller_stack_holds_call(callable, args, nargs)) {
        if (callable != nullptr) walker.subtract_reference(callable);
        for (Py_ssize_t i = 0; i < nargs; ++i) walker.subtract_reference(args[i]);
    }
    auto start = std::chrono::steady_clock::now();
    try {
        walker.walk();
    } catch (...) {
        compat::gc_restore_state(gc_state);
        throw;
    }
    snapshot.header.walk_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
            .count());
    AllocationStats allocations;
    if (request.allocation_sites) {
        try {
            allocations = record_allocation_sites(walker);
        } catch (...) {
            compat::gc_restore_state(gc_state);
            throw;
        }
    }
    compat::gc_restore_state(gc_state);
    return allocations;
}

// What went wrong in work done without the GIL (an empty message: nothing).
struct GilFreeFailure {
    std::string message;
    bool write_error = false;    // format::WriteError: an OSError for Python
    bool out_of_memory = false;  // std::bad_alloc: a MemoryError, as during the walk
    // The Python exception type for this failure (message non-empty).
    PyObject* python_type() const {
        return write_error ? PyExc_OSError : out_of_memory ? PyExc_MemoryError : PyExc_RuntimeError;
    }
};

// Runs `work` with the GIL released: it may touch only what the walk copied,
// never a Python object. No C++ exception may cross the GIL macros, so any
// is caught here and returned; `unknown_error` names one that is not a
// std::exception.
template <typename Work>
GilFreeFailure run_without_gil(Work&& work, const char* unknown_error) {
    GilFreeFailure failure;
    Py_BEGIN_ALLOW_THREADS
    try {
        work();
    } catch (const format::WriteError& e) {
        failure.message = e.what();
        failure.write_error = true;
    } catch (const std::bad_alloc&) {
        failure.message = "out of memory";
        failure.out_of_memory = true;
    } catch (const std::exception& e) {
        failure.message = e.what();
    } catch (...) {
        failure.message = unknown_error;
    }
    Py_END_ALLOW_THREADS
    return failure;
}

PyObject* describe_dict(const DescribeStats& d) {
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K}", "registrations",
                         static_cast<unsigned long long>(d.registrations), "calls",
                         static_cast<unsigned long long>(d.calls), "failed_calls",
                         static_cast<unsigned long long>(d.failed_calls), "dropped_reports",
                         static_cast<unsigned long long>(d.dropped_reports), "native_nodes",
                         static_cast<unsigned long long>(d.native_nodes), "disabled",
                         static_cast<unsigned long long>(d.disabled));
}

PyObject* allocations_dict(const AllocationStats& a) {
    return Py_BuildValue("{s:O,s:K,s:K,s:K,s:K,s:d}", "tracing", a.tracing ? Py_True : Py_False,
                         "traced_objects", static_cast<unsigned long long>(a.traced_objects), "tracebacks",
                         static_cast<unsigned long long>(a.tracebacks), "frames",
                         static_cast<unsigned long long>(a.frames), "lookup_failures",
                         static_cast<unsigned long long>(a.lookup_failures), "seconds", a.seconds);
}

PyObject* stats_dict(const Snapshot& s, const DescribeStats& d, const AllocationStats& a, double walk_seconds,
                     double write_seconds, uint64_t bytes) {
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:K,s:d,s:d,s:N,s:N}", "nodes", static_cast<Py_ssize_t>(s.node_count()),
                         "edges", static_cast<Py_ssize_t>(s.edge_count()), "roots",
                         static_cast<Py_ssize_t>(s.roots.size()), "threads",
                         static_cast<Py_ssize_t>(s.threads.size()), "bytes",
                         static_cast<unsigned long long>(bytes), "walk_seconds", walk_seconds,
                         "write_seconds", write_seconds, "describe", describe_dict(d), "allocations",
                         allocations_dict(a));
}

PyObject* probe_snapshot(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    return translate_exceptions([&]() -> PyObject* {
        if (nargs < 1 || nargs > 4) {
            PyErr_SetString(PyExc_TypeError, "snapshot(path, collect=True, sequence=0, label='')");
            return nullptr;
        }
        if (!PyUnicode_Check(args[0])) {
            PyErr_SetString(PyExc_TypeError, "path must be a str");
            return nullptr;
        }
        WalkRequest request;
        if (nargs > 1 && !read_bool(args[1], request.collect)) return nullptr;
        if (nargs > 2) {
            request.sequence = PyLong_AsUnsignedLongLong(args[2]);
            if (PyErr_Occurred()) return nullptr;
        }
        if (nargs > 3 && args[3] != Py_None && !append_utf8(request.label, args[3], 4096)) {
            PyErr_SetString(PyExc_TypeError, "label must be a str");
            return nullptr;
        }
        std::string path;
        {
            PyObject* encoded = PyUnicode_EncodeFSDefault(args[0]);
            if (encoded == nullptr) return nullptr;
            path.assign(PyBytes_AS_STRING(encoded), static_cast<size_t>(PyBytes_GET_SIZE(encoded)));
            Py_DECREF(encoded);
        }

        Snapshot snapshot;
        HeapWalker walker(snapshot);
        const AllocationStats allocations = run_walk(walker, snapshot, request, g_snapshot_function, args, nargs);

        // The heap is copied: encode and write without the GIL.
        uint64_t bytes = 0;
        auto start = std::chrono::steady_clock::now();
        const GilFreeFailure failure = run_without_gil(
            [&] {
                walker.finish_previews();
                format::write_snapshot_file(snapshot, path, walked_snapshot_options());
                std::error_code ec;
                bytes = static_cast<uint64_t>(std::filesystem::file_size(path, ec));
            },
            "unknown error while writing the snapshot");
        double write_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!failure.message.empty()) {
            PyErr_SetString(failure.python_type(), failure.message.c_str());
            return nullptr;
        }
        return stats_dict(snapshot, walker.describe_session().stats(), allocations,
                          static_cast<double>(snapshot.header.walk_ns) / 1e9, write_seconds, bytes);
    });
}

PyObject* probe_debug_walk(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    return translate_exceptions([&]() -> PyObject* {
        WalkRequest request;
        request.collect = false;
        if (nargs > 0 && !read_bool(args[0], request.collect)) return nullptr;
        std::vector<uint64_t> watch;
        if (nargs > 1) {
            if (!PyTuple_Check(args[1])) {
                PyErr_SetString(PyExc_TypeError, "watch must be a tuple of ints (id())");
                return nullptr;
            }
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args[1]); ++i) {
                watch.push_back(PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(args[1], i)));
                if (PyErr_Occurred()) return nullptr;
            }
        }
        Snapshot snapshot;
        HeapWalker walker(snapshot);
        run_walk(walker, snapshot, request, g_debug_function, args, nargs);
        walker.finish_previews();
        PyObject* report = debug_report(snapshot, watch);
        if (report == nullptr) return nullptr;
        PyObject* described = describe_dict(walker.describe_session().stats());
        if (described == nullptr || PyDict_SetItemString(report, "describe", described) < 0) Py_CLEAR(report);
        Py_XDECREF(described);
        return report;
    });
}

// _census(types, excluded_packages) -> [(address, type address, name, module)]
// The objects alive now (no collection first), for refscope.leak_check:
// instances of `types` (a tuple of types; empty: any type) whose module's
// top-level package is not in `excluded_packages` (a tuple of str; ignored
// when types are given).
PyObject* probe_census(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    return translate_exceptions([&]() -> PyObject* {
        if (nargs != 2 || !PyTuple_Check(args[0]) || !PyTuple_Check(args[1])) {
            PyErr_SetString(PyExc_TypeError, "_census(types: tuple, excluded_packages: tuple)");
            return nullptr;
        }
        CensusFilter filter;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args[0]); ++i) {
            PyObject* t = PyTuple_GET_ITEM(args[0], i);
            if (!PyType_Check(t)) {
                PyErr_SetString(PyExc_TypeError, "types must be a tuple of types");
                return nullptr;
            }
            filter.types.push_back(reinterpret_cast<PyTypeObject*>(t));
        }
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args[1]); ++i) {
            std::string package;
            if (!append_utf8(package, PyTuple_GET_ITEM(args[1], i), 200)) {
                PyErr_SetString(PyExc_TypeError, "excluded_packages must be a tuple of str");
                return nullptr;
            }
            filter.excluded_packages.insert(package);
        }
        Snapshot snapshot;
        HeapWalker walker(snapshot);
        run_walk(walker, snapshot, WalkRequest{false, 0, {}, false}, g_census_function, args, nargs);
        walker.release_walk_tables();
        return census(snapshot, filter);
    });
}

// frame_layout_problem() -> None or str: why thread frames are not read
// (the runtime's published frame layout contradicts the compiled one).
PyObject* layout_verdict(const char* problem) {
    if (problem == nullptr) Py_RETURN_NONE;
    return PyUnicode_FromString(problem);
}

PyObject* probe_frame_layout_problem(PyObject*, PyObject* const*, Py_ssize_t nargs) {
    if (nargs != 0) {
        PyErr_SetString(PyExc_TypeError, "frame_layout_problem() takes no arguments");
        return nullptr;
    }
    return layout_verdict(rs_frame_layout_problem());
}

// _debug_perturb_layout(field or None) -> verdict. TEST HOOK ONLY: the
// probe then behaves as if the runtime published `field` one word off.
PyObject* probe_debug_perturb_layout(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    std::string field;
    if (nargs != 1 || (args[0] != Py_None && !append_utf8(field, args[0], 100))) {
        PyErr_SetString(PyExc_TypeError, "_debug_perturb_layout(field: str or None)");
        return nullptr;
    }
    int known = 0;
    const char* verdict = rs_debug_perturb_layout(args[0] == Py_None ? nullptr : field.c_str(), &known);
    if (!known) {
        PyErr_SetString(PyExc_ValueError, "not a layout field the probe compares (published offsets: 3.13+; frame_object.size: 3.11+)");
        return nullptr;
    }
    return layout_verdict(verdict);
}

// Which Cython layout a function type's name selects (cython_fields.cpp).
PyObject* probe_debug_cython_series(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    std::string name;
    if (nargs != 1 || !append_utf8(name, args[0], 200)) {
        PyErr_SetString(PyExc_TypeError, "_debug_cython_series(type_name: str)");
        return nullptr;
    }
    return PyLong_FromLong(cython_function_series(name.c_str()));
}

PyMethodDef g_methods[] = {
    {"snapshot", fastcall(&probe_snapshot), METH_FASTCALL,
     "snapshot(path, collect=True, sequence=0, label='') -> dict\n\n"
     "Walk the heap (GIL held, no Python code runs) and write a refscope snapshot to path."},
    {"_debug_walk", fastcall(&probe_debug_walk), METH_FASTCALL,
     "_debug_walk(collect=False, watch=()) -> dict\n\nTest hook: walk without writing, report counts."},
    {"_census", fastcall(&probe_census), METH_FASTCALL,
     "_census(types, excluded_packages) -> list\n\n"
     "(address, type address, name, module) of the live objects leak_check watches."},
    {"frame_layout_problem", fastcall(&probe_frame_layout_problem), METH_FASTCALL,
     "frame_layout_problem() -> None or str\n\n"
     "Why thread frames are not read: the runtime's published frame layout\n"
     "(_Py_DebugOffsets, 3.13+) contradicts the one the probe was compiled with."},
    {"_debug_perturb_layout", fastcall(&probe_debug_perturb_layout), METH_FASTCALL,
     "_debug_perturb_layout(field) -> None or str\n\nTest hook: pretend a published offset moved."},
    {"_debug_cython_series", fastcall(&probe_debug_cython_series), METH_FASTCALL,
     "_debug_cython_series(type_name) -> int\n\n"
     "Test hook: the Cython layout a function type's name selects (29, 30-32; 0: not read)."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef g_module = {
    PyModuleDef_HEAD_INIT, "refscope._probe",
    "refscope's heap walker (C++). Use refscope.snapshot() instead of calling this directly.", -1,
    g_methods, nullptr, nullptr, nullptr, nullptr,
};

PyObject* find_function(PyObject* module, const PyMethodDef* def) {
    Py_ssize_t pos = 0;
    PyObject* key;
    PyObject* value;
    while (PyDict_Next(PyModule_GetDict(module), &pos, &key, &value)) {
        if (PyCFunction_Check(value) && reinterpret_cast<PyCFunctionObject*>(value)->m_ml == def)
            return value;
    }
    return nullptr;
}

}  // namespace

void walk_for_live_connection(Snapshot& snapshot, bool collect, uint64_t sequence, const std::string& label) {
    HeapWalker walker(snapshot);
    run_walk(walker, snapshot, WalkRequest{collect, sequence, label}, nullptr, nullptr, 0);
    // The walker is destroyed with the GIL held, as in snapshot().
    const GilFreeFailure failure =
        run_without_gil([&] { walker.finish_previews(); }, "unknown error while finishing previews");
    if (failure.out_of_memory) throw std::bad_alloc();
    if (!failure.message.empty()) throw std::runtime_error(failure.message);
}

}  // namespace refscope::probe

PyMODINIT_FUNC PyInit__probe(void) {
    using namespace refscope::probe;
    try {
        PyObject* module = PyModule_Create(&g_module);
        if (module == nullptr) return nullptr;
        g_snapshot_function = find_function(module, &g_methods[0]);
        g_debug_function = find_function(module, &g_methods[1]);
        g_census_function = find_function(module, &g_methods[2]);
        // Only a flag depends on it (kNodeExtensionType): a failure is not fatal.
        (void)learn_class_dealloc();
        if (add_live_functions(module) < 0) {
            Py_DECREF(module);
            return nullptr;
        }
        if (PyModule_AddStringConstant(module, "PROBE_VERSION", REFSCOPE_PROBE_VERSION) < 0) {
            Py_DECREF(module);
            return nullptr;
        }
        // The describe API's function table (refscope/describe.h). Libraries
        // never need it to register (they publish to the registry); it is
        // here for tools that check the probe's ABI version, and it is the
        // same table every callback receives.
        PyObject* api = PyCapsule_New(const_cast<refscope_describe_api*>(describe_api()),
                                      REFSCOPE_DESCRIBE_API_CAPSULE, nullptr);
        if (api == nullptr || PyModule_AddObject(module, "_describe_api", api) < 0) {
            Py_XDECREF(api);
            Py_DECREF(module);
            return nullptr;
        }
        if (PyModule_AddIntConstant(module, "DESCRIBE_ABI_MAJOR", REFSCOPE_DESCRIBE_ABI_MAJOR) < 0 ||
            PyModule_AddIntConstant(module, "DESCRIBE_ABI_MINOR", REFSCOPE_DESCRIBE_ABI_MINOR) < 0) {
            Py_DECREF(module);
            return nullptr;
        }
        return module;
    } catch (...) {
        PyErr_SetString(PyExc_ImportError, "refscope._probe failed to initialise");
        return nullptr;
    }
}

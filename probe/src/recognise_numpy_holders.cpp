// NumPy's C-level holders that no tp_traverse reports, so that what they
// hold is not "unexplained surplus" (docs/recognisers.md, "NumPy"):
//
//   numpy.ufunc: `_loops` (1.22+), the list of (DTypes, ArrayMethod or
//       promoter) pairs a ufunc dispatches through, and `userloops`, the dict
//       of loops registered by other extensions. Both are owned (released in
//       ufunc_dealloc); ufunc_traverse visits only obj, identity_value and
//       dict. numpy/ufuncobject.h lays out every field before `_loops` alike
//       from 1.22 to 2.5 (1.x's legacy_inner_loop_selector became 2.x's
//       dict, one pointer either way): `_loops` is at the same offset, and the
//       type is at least as large as the struct below.
//   numpy._ArrayFunctionDispatcher (1.25+, the C implementation of
//       __array_function__ dispatch): not a GC type; it owns the dispatcher
//       function, the implementation (the Python function the public name
//       wraps) and two name strings. Its __dict__ is found through
//       tp_dictoffset like any object's. Layout of
//       numpy/_core/src/multiarray/arrayfunction_override.c, 1.25 to 2.5;
//       a type of another size or dict offset is not read.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "describe_session.h"
#include "heap_walker.h"
#include "python_text.h"

namespace refscope::probe {
namespace {

// numpy/ufuncobject.h, PyUFuncObject up to `_loops` (C API feature 0xF+).
struct UfuncPrefix {
    PyObject_HEAD
    int nin, nout, nargs;
    int identity;
    void* functions;
    void* data;
    int ntypes;
    int reserved1;
    const char* name;
    const char* types;
    const char* doc;
    void* ptr;
    PyObject* obj;
    PyObject* userloops;
    int core_enabled;
    int core_num_dim_ix;
    int* core_num_dims;
    int* core_dim_ixs;
    int* core_offsets;
    char* core_signature;
    void* type_resolver;
    void* dict_or_legacy_selector;  // 2.x: PyObject* dict (traversed); 1.x: a function
    void* vectorcall;
    void* reserved3;
    uint32_t* op_flags;
    uint32_t iter_flags;
    intptr_t* core_dim_sizes;
    uint32_t* core_dim_flags;
    PyObject* identity_value;
    void* dispatch_cache;
    PyObject* loops;
};

struct DispatcherObject {
    PyObject_HEAD
    void* vectorcall;
    PyObject* dict;
    PyObject* relevant_arg_func;
    PyObject* default_impl;
    PyObject* dispatcher_name;
    PyObject* public_name;
};

int describe_ufunc(const refscope_describe_api* api, refscope_describe_sink* sink, PyObject* self, void*) {
    const auto* u = reinterpret_cast<const UfuncPrefix*>(self);
    if (u->loops != nullptr) api->object_edge(sink, REFSCOPE_SELF, u->loops, "_loops", REFSCOPE_EDGE_ATTRIBUTE);
    if (u->userloops != nullptr)
        api->object_edge(sink, REFSCOPE_SELF, u->userloops, "userloops", REFSCOPE_EDGE_ATTRIBUTE);
    return 0;
}

int describe_dispatcher(const refscope_describe_api* api, refscope_describe_sink* sink, PyObject* self, void*) {
    const auto* d = reinterpret_cast<const DispatcherObject*>(self);
    const struct {
        PyObject* target;
        const char* label;
    } fields[] = {{d->relevant_arg_func, "dispatcher"},
                  {d->default_impl, "_implementation"},
                  {d->dispatcher_name, "dispatcher_name"},
                  {d->public_name, "public_name"}};
    for (const auto& field : fields)
        if (field.target != nullptr) api->object_edge(sink, REFSCOPE_SELF, field.target, field.label, REFSCOPE_EDGE_ATTRIBUTE);
    return 0;
}

bool named(PyTypeObject* tp, const char* name) {
    return tp != nullptr && tp->tp_name != nullptr && std::strcmp(tp->tp_name, name) == 0;
}

}  // namespace

void recognise_numpy_holders(DescribeSession& session, PyObject* module_dict) {
    // The ufunc type, through a ufunc the module always defines.
    PyObject* add = dict_find_str(module_dict, "add");
    PyTypeObject* ufunc = add != nullptr ? Py_TYPE(add) : nullptr;
    if (named(ufunc, "numpy.ufunc") && ufunc->tp_basicsize >= static_cast<Py_ssize_t>(sizeof(UfuncPrefix))) {
        Describer d;
        d.library = "numpy";
        d.describe_instance = &describe_ufunc;
        session.add(ufunc, d);
    }
    PyObject* dispatcher = dict_find_str(module_dict, "_ArrayFunctionDispatcher");
    if (dispatcher != nullptr && PyType_Check(dispatcher)) {
        auto* tp = reinterpret_cast<PyTypeObject*>(dispatcher);
        if (named(tp, "numpy._ArrayFunctionDispatcher") &&
            tp->tp_basicsize == static_cast<Py_ssize_t>(sizeof(DispatcherObject)) &&
            tp->tp_dictoffset == static_cast<Py_ssize_t>(offsetof(DispatcherObject, dict)) &&
            !(tp->tp_flags & Py_TPFLAGS_HAVE_GC)) {
            Describer d;
            d.library = "numpy";
            d.describe_instance = &describe_dispatcher;
            session.add(tp, d);
        }
    }
}

}  // namespace refscope::probe

/* refscope describe API: let refscope see what your C/C++ objects hold.
 *
 * A library registers, per Python type, a callback that refscope's probe
 * calls for every instance of that type (and of its subclasses) while it
 * snapshots the heap. The callback reports
 *   - the C++ object behind the instance (type name, address, size),
 *   - references from it to Python objects, with labels ("Wrapper::value"),
 *   - native nodes: other C/C++ objects or buffers (type name, address,
 *     size) and the references between them and to Python objects.
 * A library can also register a heap callback, called once per snapshot, that
 * reports C++ objects held by C/C++ code (roots), Python objects held from C
 * and Python objects the walk would not find otherwise.
 *
 * References reported here and not by tp_traverse are marked invisible to the
 * garbage collector: they explain refcounts ("who holds this object?") and
 * show why a cycle is uncollectable ("Wrapper holds value without
 * tp_traverse").
 *
 * Everything is optional. Registering costs one small tuple in the
 * interpreter's private dict and nothing else: without refscope nothing ever
 * calls the callbacks. The probe does not need to be imported first, and
 * several libraries may register (docs/cpp-extensions.md, "Registration").
 *
 * C usage (the C++ helpers at the end of this file are easier):
 *
 *   static int describe_wrapper(const refscope_describe_api *api,
 *                               refscope_describe_sink *sink,
 *                               PyObject *self, void *context) {
 *       WrapperObject *w = (WrapperObject *)self;
 *       api->object_edge(sink, REFSCOPE_SELF, w->value, "Wrapper::value", 0);
 *       return 0;
 *   }
 *   ...in PyInit_mymodule, after PyType_Ready(&Wrapper_Type):
 *   refscope_describe_registration reg = {0};
 *   reg.abi_major = REFSCOPE_DESCRIBE_ABI_MAJOR;
 *   reg.struct_size = sizeof reg;
 *   reg.library = "mymodule";
 *   reg.describe_instance = describe_wrapper;
 *   refscope_describe_register(&Wrapper_Type, &reg);   // copies reg
 *
 * Rules for callbacks (the probe enforces what it can):
 *   - They run while the probe walks the heap, with the GIL held: never call
 *     Python (no attribute access, no repr, no Py_DECREF that could free an
 *     object, no allocation of Python objects), never release the GIL.
 *   - Pointers passed to the sink must be valid for the duration of the call;
 *     the probe copies names, labels and previews before the call returns.
 *     A PyObject* must be a live object the reporter holds (or, with
 *     REFSCOPE_EDGE_NOT_OWNED, knows to be alive).
 *   - Return 0 on success. A nonzero return discards everything the call
 *     reported. The sink may only be used during the call it was given to.
 *   - Reports beyond the per-call bounds (docs/cpp-extensions.md) are dropped.
 *   - C++ exceptions must not leave the callback: the C++ helpers below catch
 *     them and return -1; the probe also guards the call.
 *
 * ABI: REFSCOPE_DESCRIBE_ABI_MAJOR changes only for incompatible changes (the
 * registry key changes with it, so old and new never meet). Minor versions
 * append functions to refscope_describe_api and fields to
 * refscope_describe_registration; both carry their struct_size, so either side
 * can tell what the other knows. */
#ifndef REFSCOPE_DESCRIBE_H
#define REFSCOPE_DESCRIBE_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REFSCOPE_DESCRIBE_ABI_MAJOR 1u
#define REFSCOPE_DESCRIBE_ABI_MINOR 0u

/* Key, in PyInterpreterState_GetDict(), of the registry list. */
#define REFSCOPE_DESCRIBE_REGISTRY_KEY "refscope.describe.v1"
/* Name of the capsules in the registry (each holds one registration). */
#define REFSCOPE_DESCRIBE_REGISTRATION_CAPSULE "refscope.describe.registration"
/* The probe's API table, also importable with PyCapsule_Import. */
#define REFSCOPE_DESCRIBE_API_CAPSULE "refscope._probe._describe_api"

/* name_flags */
#define REFSCOPE_NAME_MANGLED 0x1u /* an Itanium C++ ABI name, typeid(T).name() */

/* edge flags */
#define REFSCOPE_EDGE_NOT_OWNED 0x1u /* shown, but holds no reference (borrowed) */
/* The label is the name under which Python code sees the reference (an
 * attribute, e.g. "base"): shown as `.base` rather than as a C++ member.
 * Only for references from the instance itself. */
#define REFSCOPE_EDGE_ATTRIBUTE 0x2u

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque: the probe's record of the current callback's reports. */
typedef struct refscope_describe_sink refscope_describe_sink;

/* A node handle, valid only during the call that returned it. */
typedef uint64_t refscope_node;
/* The Python object being described (instance callbacks only). */
#define REFSCOPE_SELF ((refscope_node)0)
/* Returned when a report is refused (bounds, bad arguments). Passing it on is
 * harmless: reports that use it are ignored. */
#define REFSCOPE_NO_NODE ((refscope_node)UINT64_MAX)

typedef struct refscope_describe_api {
    uint32_t abi_major;   /* REFSCOPE_DESCRIBE_ABI_MAJOR */
    uint32_t abi_minor;   /* functions below grow with it */
    uint32_t struct_size; /* sizeof(refscope_describe_api) in the probe */
    uint32_t reserved;

    /* The C++ object behind the instance: a native node owned by it (an
     * owned edge "C++ object" from the instance). `size` counts the bytes
     * outside the Python object; an object stored inside it counts 0. */
    refscope_node (*cpp_object)(refscope_describe_sink *sink, const char *type_name,
                                uint32_t name_flags, const void *address, uint64_t size);
    /* Another C/C++ object or buffer. The same (address, type name) reported
     * twice, by any callback, is one node; its out-edges are those reported
     * by the call that first reported it. */
    refscope_node (*native_node)(refscope_describe_sink *sink, const char *type_name,
                                 uint32_t name_flags, const void *address, uint64_t size);
    /* Optional facts about a native node: its own reference count (-1 if it
     * has none) and a short preview text ("3 entries", "refct 2"). C++
     * counts never enter Python's refcount arithmetic; a count larger than
     * the owned edges reported into the node makes it a root ("held by C/C++
     * code: 1 of 3 references"), so report strong references only. */
    void (*native_details)(refscope_describe_sink *sink, refscope_node node, int64_t refcount,
                           const char *preview);
    /* A reference from `from` (REFSCOPE_SELF or a native node) to a Python
     * object, with a label ("Wrapper::value", "callbacks[2]"). */
    void (*object_edge)(refscope_describe_sink *sink, refscope_node from, PyObject *target,
                        const char *label, uint32_t edge_flags);
    /* A reference from `from` (REFSCOPE_SELF or a native node) to a native node. */
    void (*native_edge)(refscope_describe_sink *sink, refscope_node from, refscope_node to,
                        const char *label, uint32_t edge_flags);
    /* The native node is held by C/C++ code outside the graph (a static, a
     * C++ owner the library does not describe), e.g. "static Registry". */
    void (*native_root)(refscope_describe_sink *sink, refscope_node node, const char *label);
    /* `count` references to the Python object are held by C/C++ code outside
     * the graph (0: all the references no object accounts for). */
    void (*object_root)(refscope_describe_sink *sink, PyObject *object, const char *label,
                        uint32_t count);
    /* Make sure the walk includes this live Python object even if nothing
     * the walk reaches refers to it (instances the library keeps a registry
     * of, in cycles the collector cannot see). */
    void (*include_object)(refscope_describe_sink *sink, PyObject *object);
} refscope_describe_api;

/* Called for each instance of the registered type and of its subclasses. */
typedef int (*refscope_describe_instance_fn)(const refscope_describe_api *api,
                                             refscope_describe_sink *sink, PyObject *self,
                                             void *context);
/* Called once per snapshot, before the walk reaches any object. */
typedef int (*refscope_describe_heap_fn)(const refscope_describe_api *api,
                                         refscope_describe_sink *sink, void *context);

typedef struct refscope_describe_registration {
    uint32_t abi_major;   /* REFSCOPE_DESCRIBE_ABI_MAJOR */
    uint32_t struct_size; /* sizeof(refscope_describe_registration) */
    const char *library;  /* shown as the module of the native types it reports */
    refscope_describe_instance_fn describe_instance; /* may be NULL */
    refscope_describe_heap_fn describe_heap;         /* may be NULL */
    void *context;                                   /* passed to both */
    /* Called with `context` when the registration is dropped (interpreter
     * shutdown); may be NULL. */
    void (*release_context)(void *context);
} refscope_describe_registration;

/* --------------------------------------------------------------------- */
/* Registration. Needs the GIL. Returns 0 on success, -1 on failure (never
 * leaves a Python exception set: a library's import must not fail because
 * refscope could not be told about it). The registration is copied. With
 * type == NULL only describe_heap is used.
 *
 * The registry is a list in PyInterpreterState_GetDict() under
 * REFSCOPE_DESCRIBE_REGISTRY_KEY; each item is a tuple (weak reference to the
 * type or None, capsule holding a copy of the registration). The probe reads
 * it at the start of each snapshot, so registering before or after the probe
 * is imported, or without it ever being imported, works the same. */

static inline void refscope_describe_release_(PyObject *capsule) {
    refscope_describe_registration *copy = (refscope_describe_registration *)PyCapsule_GetPointer(
        capsule, REFSCOPE_DESCRIBE_REGISTRATION_CAPSULE);
    if (copy == NULL) {
        PyErr_Clear();
        return;
    }
    if (copy->release_context != NULL) copy->release_context(copy->context);
    free(copy);
}

static inline int refscope_describe_register(PyTypeObject *type,
                                             const refscope_describe_registration *registration) {
    PyObject *interp_dict, *registry, *capsule = NULL, *type_ref = NULL, *entry = NULL;
    refscope_describe_registration *copy;
    size_t size;
    if (registration == NULL || registration->abi_major != REFSCOPE_DESCRIBE_ABI_MAJOR) return -1;
    size = registration->struct_size < sizeof *copy ? registration->struct_size : sizeof *copy;
    copy = (refscope_describe_registration *)calloc(1, sizeof *copy);
    if (copy == NULL) return -1;
    memcpy(copy, registration, size);
    copy->struct_size = (uint32_t)sizeof *copy;

    interp_dict = PyInterpreterState_GetDict(PyInterpreterState_Get());
    if (interp_dict == NULL) goto fail;
    registry = PyDict_GetItemString(interp_dict, REFSCOPE_DESCRIBE_REGISTRY_KEY); /* borrowed */
    if (registry == NULL) {
        registry = PyList_New(0);
        if (registry == NULL) goto fail;
        if (PyDict_SetItemString(interp_dict, REFSCOPE_DESCRIBE_REGISTRY_KEY, registry) < 0) {
            Py_DECREF(registry);
            goto fail;
        }
        Py_DECREF(registry); /* the dict holds it */
    } else if (!PyList_Check(registry)) {
        goto fail;
    }
    capsule = PyCapsule_New(copy, REFSCOPE_DESCRIBE_REGISTRATION_CAPSULE,
                            refscope_describe_release_);
    if (capsule == NULL) goto fail;
    copy = NULL; /* the capsule owns it now */
    if (type != NULL) {
        type_ref = PyWeakref_NewRef((PyObject *)type, NULL);
        if (type_ref == NULL) goto fail;
    } else {
        Py_INCREF(Py_None);
        type_ref = Py_None;
    }
    entry = PyTuple_Pack(2, type_ref, capsule);
    if (entry == NULL || PyList_Append(registry, entry) < 0) goto fail;
    Py_DECREF(entry);
    Py_DECREF(type_ref);
    Py_DECREF(capsule);
    return 0;
fail:
    Py_XDECREF(entry);
    Py_XDECREF(type_ref);
    Py_XDECREF(capsule);
    free(copy);
    PyErr_Clear();
    return -1;
}

#ifdef __cplusplus
} /* extern "C" */

/* ===================================================================== */
/* C++ helpers: register a lambda, report through a Sink.
 *
 *   refscope::describe::register_type(&Wrapper_Type, "mymodule",
 *       [](PyObject *self, refscope::describe::Sink &sink) {
 *           auto *w = reinterpret_cast<WrapperObject *>(self);
 *           auto node = sink.cpp_object(w->impl);          // C++ type from typeid
 *           sink.edge(node, w->impl->callback.ptr(), "Impl::callback");
 *       });
 *
 * Exceptions thrown by the lambda are caught (the call's reports are then
 * discarded); they never reach the probe or Python. */
#include <new>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace refscope {
namespace describe {

class Node {
public:
    Node() = default;
    explicit Node(refscope_node id) : id_(id) {}
    refscope_node id() const { return id_; }
    bool valid() const { return id_ != REFSCOPE_NO_NODE; }

private:
    refscope_node id_ = REFSCOPE_NO_NODE;
};

inline Node self() { return Node(REFSCOPE_SELF); }

// Valid only inside the callback it is passed to: not copyable, not movable.
class Sink {
public:
    Sink(const refscope_describe_api *api, refscope_describe_sink *sink) : api_(api), sink_(sink) {}
    Sink(const Sink &) = delete;
    Sink &operator=(const Sink &) = delete;

    // The C++ object behind the instance; `size` defaults to sizeof(T) (pass 0
    // when the object lives inside the Python object).
    template <typename T>
    Node cpp_object(const T *object, uint64_t size = sizeof(T)) {
        return cpp_object(typeid(T).name(), REFSCOPE_NAME_MANGLED, object, size);
    }
    Node cpp_object(const char *type_name, uint32_t name_flags, const void *address, uint64_t size) {
        return Node(api_->cpp_object(sink_, type_name, name_flags, address, size));
    }

    template <typename T>
    Node native(const T *object, uint64_t size = sizeof(T)) {
        return native(typeid(T).name(), REFSCOPE_NAME_MANGLED, object, size);
    }
    Node native(const char *type_name, const void *address, uint64_t size) {
        return native(type_name, 0, address, size);
    }
    Node native(const char *type_name, uint32_t name_flags, const void *address, uint64_t size) {
        return Node(api_->native_node(sink_, type_name, name_flags, address, size));
    }
    void details(Node node, int64_t refcount, const char *preview = nullptr) {
        api_->native_details(sink_, node.id(), refcount, preview);
    }

    // References to Python objects: from the instance, or from a native node.
    void edge(PyObject *target, const char *label, uint32_t flags = 0) {
        edge(self(), target, label, flags);
    }
    void edge(Node from, PyObject *target, const char *label, uint32_t flags = 0) {
        if (target != nullptr) api_->object_edge(sink_, from.id(), target, label, flags);
    }
    // References to native nodes.
    void edge(Node from, Node to, const char *label, uint32_t flags = 0) {
        api_->native_edge(sink_, from.id(), to.id(), label, flags);
    }

    void root(Node node, const char *label) { api_->native_root(sink_, node.id(), label); }
    void root(PyObject *object, const char *label, uint32_t count = 1) {
        if (object != nullptr) api_->object_root(sink_, object, label, count);
    }
    void include(PyObject *object) {
        if (object != nullptr) api_->include_object(sink_, object);
    }

private:
    const refscope_describe_api *api_;
    refscope_describe_sink *sink_;
};

namespace detail {

template <typename F>
void release(void *context) {
    delete static_cast<F *>(context);
}

template <typename F>
int call_instance(const refscope_describe_api *api, refscope_describe_sink *sink, PyObject *self_,
                  void *context) noexcept {
    if (api == nullptr || api->abi_major != REFSCOPE_DESCRIBE_ABI_MAJOR) return -1;
    try {
        Sink s(api, sink);
        (*static_cast<F *>(context))(self_, s);
        return 0;
    } catch (...) {
        return -1;
    }
}

template <typename F>
int call_heap(const refscope_describe_api *api, refscope_describe_sink *sink,
              void *context) noexcept {
    if (api == nullptr || api->abi_major != REFSCOPE_DESCRIBE_ABI_MAJOR) return -1;
    try {
        Sink s(api, sink);
        (*static_cast<F *>(context))(s);
        return 0;
    } catch (...) {
        return -1;
    }
}

// Tag dispatch rather than `if constexpr`: the helper compiles as C++11,
// like pybind11 itself.
template <typename Callback>
void set_callback(refscope_describe_registration &r, std::true_type /* heap */) {
    r.describe_heap = &call_heap<Callback>;
}
template <typename Callback>
void set_callback(refscope_describe_registration &r, std::false_type /* instance */) {
    r.describe_instance = &call_instance<Callback>;
}

template <bool Heap, typename F>
bool add(PyTypeObject *type, const char *library, F &&callback) {
    using Callback = typename std::decay<F>::type;
    Callback *stored = new (std::nothrow) Callback(std::forward<F>(callback));
    if (stored == nullptr) return false;
    refscope_describe_registration registration{};
    registration.abi_major = REFSCOPE_DESCRIBE_ABI_MAJOR;
    registration.struct_size = sizeof registration;
    registration.library = library;
    set_callback<Callback>(registration, std::integral_constant<bool, Heap>());
    registration.context = stored;
    registration.release_context = &release<Callback>;
    if (refscope_describe_register(type, &registration) != 0) {
        delete stored;
        return false;
    }
    return true;
}

}  // namespace detail

// callback(PyObject *self, Sink &sink) for every instance of `type` and its
// subclasses. Returns false if refscope could not be told (never throws).
template <typename F>
bool register_type(PyTypeObject *type, const char *library, F &&callback) noexcept {
    if (type == nullptr) return false;
    try {
        return detail::add<false>(type, library, std::forward<F>(callback));
    } catch (...) {
        return false;
    }
}

// callback(Sink &sink) once per snapshot: roots and objects held from C++.
template <typename F>
bool register_heap(const char *library, F &&callback) noexcept {
    try {
        return detail::add<true>(nullptr, library, std::forward<F>(callback));
    } catch (...) {
        return false;
    }
}

}  // namespace describe
}  // namespace refscope

#endif /* __cplusplus */
#endif /* REFSCOPE_DESCRIBE_H */

// Every difference between CPython 3.9 and 3.13 that the public C API can
// express lives here (the ones that need private layouts are in
// cpython_internals.c, which this header's callers reach through
// cpython_internals.h). The rest of the probe is version-free.
//
// Summary of what changes, oldest first:
//   3.9   frames are objects (PyFrameObject, tstate->frame); no PyGC_Disable.
//   3.10  PyGC_Enable/Disable/IsEnabled; functions gain func_builtins.
//   3.11  frames are _PyInterpreterFrame structs, objects only on demand;
//         managed dicts (values/dict pointers before the object); code
//         objects keep co_localsplusnames; str no longer needs PyUnicode_READY
//         checks only from 3.12 on.
//   3.12  immortal objects (refcount meaningless, flagged); dict-or-values
//         tagged pointer; int size in lv_tag; static builtin types keep
//         tp_dict/tp_subclasses in the interpreter (PyType_GetDict;
//         rs_type_subclasses in cpython_internals.c);
//         PyUnstable_GC_VisitObjects; func_typeparams; T_OBJECT_EX renamed.
//   3.13  inline values stored inside the object (Py_TPFLAGS_INLINE_VALUES),
//         managed dict pointer alone before it; f_executable.
#pragma once

#include <Python.h>
#include <frameobject.h>
#if PY_VERSION_HEX < 0x030C0000
#include <structmember.h>
#endif

#include <cstdint>

#include "cpython_internals.h"  // the supported-version gate

namespace refscope::probe::compat {

inline constexpr bool kFramesAreObjects = PY_VERSION_HEX < 0x030B0000;

// Refcounts of immortal objects are a fixed large value, not a count.
inline bool is_immortal(PyObject* op) {
#if PY_VERSION_HEX >= 0x030C0000
    return _Py_IsImmortal(op);
#elif PY_VERSION_HEX >= 0x030B0000
    // 3.11 statically allocates its identifier strings and a few other
    // objects with a refcount of 999999999 (_PyObject_IMMORTAL_INIT): immortal
    // in all but name. No real object reaches 10^8 references.
    return Py_REFCNT(op) >= 100000000;
#else
    (void)op;
    return false;
#endif
}

// Bytes the allocator places before the object: the GC header for GC types
// (two words since 3.8) and, since 3.11, two words for the managed dict /
// managed weakref pointers (Py_TPFLAGS_PREHEADER in 3.12+).
inline size_t pre_header_bytes(PyTypeObject* tp) {
    size_t bytes = PyType_IS_GC(tp) ? 2 * sizeof(void*) : 0;
#if PY_VERSION_HEX >= 0x030C0000
    if (tp->tp_flags & Py_TPFLAGS_PREHEADER) bytes += 2 * sizeof(void*);
#elif PY_VERSION_HEX >= 0x030B0000
    if (tp->tp_flags & Py_TPFLAGS_MANAGED_DICT) bytes += 2 * sizeof(void*);
#endif
    return bytes;
}

inline bool has_managed_dict(PyTypeObject* tp) {
#if PY_VERSION_HEX >= 0x030B0000
    return (tp->tp_flags & Py_TPFLAGS_MANAGED_DICT) != 0;
#else
    (void)tp;
    return false;
#endif
}

// Number of 30-bit digits of an int (its magnitude's storage).
inline size_t int_digit_count(PyObject* op) {
#if PY_VERSION_HEX >= 0x030C0000
    // lv_tag: digit count << 3 | sign bits (Include/cpython/longintrepr.h).
    return static_cast<size_t>(reinterpret_cast<PyLongObject*>(op)->long_value.lv_tag >> 3);
#else
    Py_ssize_t n = Py_SIZE(op);
    return static_cast<size_t>(n < 0 ? -n : n);
#endif
}

// Legacy (not "ready") str objects exist before 3.12; their data must not be read.
inline bool str_is_ready(PyObject* op) {
#if PY_VERSION_HEX < 0x030C0000
    return PyUnicode_IS_READY(op);
#else
    (void)op;
    return true;
#endif
}

// A type's __dict__ without creating anything: static builtin types keep it
// in the interpreter state since 3.12 (PyType_GetDict returns a new reference
// to a dict that the interpreter keeps alive, so dropping ours at once leaves
// a valid borrowed pointer).
inline PyObject* type_dict(PyTypeObject* tp) {
#if PY_VERSION_HEX >= 0x030C0000
    if (tp->tp_dict == nullptr && !(tp->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
        PyObject* d = PyType_GetDict(tp);
        Py_XDECREF(d);
        return d;
    }
#endif
    return tp->tp_dict;
}

// __slots__ members: T_OBJECT_EX (and the older T_OBJECT) hold a PyObject*.
inline bool member_holds_object(int member_type) {
#if PY_VERSION_HEX >= 0x030C0000
    return member_type == Py_T_OBJECT_EX || member_type == _Py_T_OBJECT;
#else
    return member_type == T_OBJECT_EX || member_type == T_OBJECT;
#endif
}

inline PyObject* function_builtins(PyFunctionObject* f) {
#if PY_VERSION_HEX >= 0x030A0000
    return f->func_builtins;
#else
    (void)f;
    return nullptr;
#endif
}

inline PyObject* function_type_params(PyFunctionObject* f) {
#if PY_VERSION_HEX >= 0x030C0000
    return f->func_typeparams;
#else
    (void)f;
    return nullptr;
#endif
}

// Calls visit(name, object) for each owned reference of a code object.
// These are owned but not reported by tp_traverse (code objects are not GC
// objects in these versions).
template <typename Visit>
void visit_code_fields(PyCodeObject* co, Visit&& visit) {
    visit("co_consts", co->co_consts);
    visit("co_names", co->co_names);
    visit("co_filename", co->co_filename);
    visit("co_name", co->co_name);
#if PY_VERSION_HEX >= 0x030B0000
    visit("co_qualname", co->co_qualname);
    visit("co_localsplusnames", co->co_localsplusnames);
    visit("co_localspluskinds", co->co_localspluskinds);
    visit("co_linetable", co->co_linetable);
    visit("co_exceptiontable", co->co_exceptiontable);
#if PY_VERSION_HEX >= 0x030C0000
    if (co->_co_cached != nullptr) {
        visit("_co_code", co->_co_cached->_co_code);
        visit("_co_varnames", co->_co_cached->_co_varnames);
        visit("_co_cellvars", co->_co_cached->_co_cellvars);
        visit("_co_freevars", co->_co_cached->_co_freevars);
    }
#else
    visit("_co_code", co->_co_code);
#endif
#else
    visit("co_code", co->co_code);
    visit("co_varnames", co->co_varnames);
    visit("co_freevars", co->co_freevars);
    visit("co_cellvars", co->co_cellvars);
#if PY_VERSION_HEX >= 0x030A0000
    visit("co_linetable", co->co_linetable);
#else
    visit("co_lnotab", co->co_lnotab);
#endif
#endif
}

// Name of local slot `i` of a code object (borrowed str or nullptr).
inline PyObject* code_local_name(PyCodeObject* co, Py_ssize_t i) {
#if PY_VERSION_HEX >= 0x030B0000
    PyObject* names = co->co_localsplusnames;
    if (names && PyTuple_Check(names) && i < PyTuple_GET_SIZE(names)) return PyTuple_GET_ITEM(names, i);
    return nullptr;
#else
    // 3.9/3.10 f_localsplus: co_varnames, then co_cellvars, then co_freevars.
    PyObject* groups[3] = {co->co_varnames, co->co_cellvars, co->co_freevars};
    for (PyObject* g : groups) {
        if (g == nullptr || !PyTuple_Check(g)) return nullptr;
        if (i < PyTuple_GET_SIZE(g)) return PyTuple_GET_ITEM(g, i);
        i -= PyTuple_GET_SIZE(g);
    }
    return nullptr;
#endif
}

inline int code_first_line(PyCodeObject* co) { return co->co_firstlineno; }

// Generator fields held outside the embedded frame.
template <typename Visit>
void visit_generator_fields(PyObject* gen, Visit&& visit) {
    PyObject* name = nullptr;
    PyObject* qualname = nullptr;
    rs_generator_names(gen, &name, &qualname);  // the struct is private since 3.14
    visit("__name__", name);
    visit("__qualname__", qualname);
#if PY_VERSION_HEX < 0x030B0000
    auto* g = reinterpret_cast<PyGenObject*>(gen);
    visit("gi_frame", reinterpret_cast<PyObject*>(g->gi_frame));
    visit("gi_code", g->gi_code);
#elif PY_VERSION_HEX < 0x030C0000
    visit("gi_code", reinterpret_cast<PyObject*>(reinterpret_cast<PyGenObject*>(gen)->gi_code));
#endif
}

#if PY_VERSION_HEX < 0x030B0000
// 3.9/3.10 only: the frame chain is made of objects.
inline PyFrameObject* thread_top_frame_object(PyThreadState* ts) { return ts->frame; }
#endif

// Start-set enumeration helper for 3.12+ (see heap_walker.cpp for <3.12).
inline constexpr bool kHasVisitObjects = PY_VERSION_HEX >= 0x030C0000;

// True once the interpreter has begun finalizing: a thread Python did not
// create must not try to take the GIL any more (live connection thread).
inline bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing() != 0;
#else
    return _Py_IsFinalizing() != 0;
#endif
}

// Saves and disables the collector; restores the saved state.
inline int gc_disable_saving_state() {
#if PY_VERSION_HEX >= 0x030A0000
    return PyGC_Disable();
#else
    PyObject* gc = PyImport_ImportModule("gc");
    if (gc == nullptr) return -1;
    PyObject* was = PyObject_CallMethod(gc, "isenabled", nullptr);
    int enabled = was ? PyObject_IsTrue(was) : -1;
    Py_XDECREF(was);
    PyObject* r = PyObject_CallMethod(gc, "disable", nullptr);
    Py_XDECREF(r);
    Py_DECREF(gc);
    return enabled;
#endif
}

inline void gc_restore_state(int enabled) {
    if (enabled <= 0) return;
#if PY_VERSION_HEX >= 0x030A0000
    PyGC_Enable();
#else
    PyObject* gc = PyImport_ImportModule("gc");
    if (gc == nullptr) {
        PyErr_Clear();
        return;
    }
    PyObject* r = PyObject_CallMethod(gc, "enable", nullptr);
    Py_XDECREF(r);
    Py_DECREF(gc);
#endif
}

}  // namespace refscope::probe::compat

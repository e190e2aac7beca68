// The CPython version differences that the public C API (with the public
// structs of Include/cpython/) can express, as small helpers the walker calls
// instead of testing PY_VERSION_HEX itself. The probe supports CPython 3.9 to
// 3.15, GIL builds only (the gate is in cpython_internals.h, which this
// header includes).
//
// What the helpers here cover, oldest first:
//   3.9   no PyGC_Disable (gc.disable() through the gc module); frames are
//         objects (tstate->frame); code objects keep co_varnames,
//         co_cellvars, co_freevars and co_lnotab; generators gi_frame and
//         gi_code.
//   3.10  PyGC_Enable/Disable; func_builtins; co_linetable.
//   3.11  frames are no longer objects (kFramesAreObjects); managed dicts
//         (Py_TPFLAGS_MANAGED_DICT: two words before the object); code
//         objects keep co_qualname, co_localsplusnames/kinds,
//         co_exceptiontable and _co_code; generators lose gi_frame; the
//         statically allocated identifier strings and deep-frozen code
//         objects have refcount 999999999 (treated as immortal; their
//         references to None, True, False... are not counted:
//         is_static_holder).
//   3.12  immortal objects (_Py_IsImmortal); Py_TPFLAGS_PREHEADER; int size
//         in lv_tag; every str is ready (no PyUnicode_READY); static builtin
//         types keep tp_dict in the interpreter (PyType_GetDict); code
//         objects' derived tuples in _co_cached; generators lose gi_code;
//         func_typeparams; Py_T_OBJECT_EX/_Py_T_OBJECT (structmember.h's
//         T_OBJECT_EX/T_OBJECT before); PyUnstable_GC_VisitObjects
//         (kHasVisitObjects).
//   3.13  Py_IsFinalizing is public.
//
// Version differences that live elsewhere, and why they are not here:
//   cpython_internals.h   the gate: #error outside 3.9-3.15 and for
//       Py_GIL_DISABLED builds. Both the C files and this header include it,
//       so one gate stops every source; this header is C++ and the C files
//       cannot include it.
//   cpython_core_headers.h   which internal headers to include: pycore_interp.h
//       from 3.10; pycore_code/dict/frame/moduleobject/object.h from 3.11;
//       pycore_runtime.h (_PyRuntime.debug_offsets) from 3.13;
//       pycore_interpframe.h and pycore_stackref.h from 3.14 (RS_STACKREFS:
//       frames hold tagged stack references). Py_BUILD_CORE headers are C
//       only (C11 atomics and constructs a C++ compiler rejects), so they
//       cannot be included by this C++ header.
//   cpython_internals.c (C, internal headers): 3.9/3.10 dict key table and
//       module object, restated because they are not installed; instance
//       attributes read without materializing a dict: 3.11 values pointer
//       and managed dict pointer, 3.12 tagged dict-or-values, 3.13+ inline
//       values (valid flag, capacity) and the managed dict pointer alone;
//       dict and key-table sizes (3.11 dk_log2_size and unicode entries,
//       3.13 embedded values); the type attribute cache (3.10
//       interp->type_cache, 3.12 interp->types.type_cache; 3.9 a static, not
//       readable); tp_subclasses of static builtin types, an index into the
//       interpreter's table from 3.12 (3.13 adds static extension types);
//       the typing types the interpreter holds (3.12, _ConstEvaluator from
//       3.14); the interned-strings dict (3.12; a static before). All of it
//       is private structs, only visible with the internal headers.
//   cpython_frames.c (C, internal headers): frames from 3.11 on: the
//       thread's frame chain (3.11/3.12 tstate->cframe->current_frame, 3.13
//       tstate->current_frame); code (3.11 f_code, 3.13 f_executable) and
//       function (3.11 f_func, 3.12 f_funcobj); stack depth (stacktop up to
//       3.13, stackpointer from 3.14); current instruction (prev_instr up to
//       3.12, instr_ptr from 3.13); shim frames (3.12/3.13 CSTACK owner, 3.14
//       INTERPRETER owner); tagged _PyStackRef slots (3.14, and 3.15's
//       malformed pattern); generators' embedded frame (3.11, 3.15's
//       FRAME_STATE_FINISHED) and frame slot counts (3.12
//       _PyFrame_NumSlotsForCodeObject); a finished frame object's own data;
//       the comparison with the layouts the runtime publishes (3.13, more
//       fields in 3.14); a generator's names (its struct is private from
//       3.14). Same reason: _PyInterpreterFrame and _PyStackRef exist only in
//       the internal headers.
//   heap_walker.cpp (3.12): the start set. 3.12+ visits the collector's
//       lists (PyUnstable_GC_VisitObjects); before, gc.get_objects() returns
//       a list the walker owns, excludes from the snapshot and whose
//       reference to every item it subtracts at the end. The older branch
//       changes the walk's own bookkeeping (HeapWalker's start_list_ and its
//       correction step), which a helper here cannot do.
//   roots_threads.cpp (3.11): thread roots. Up to 3.10 every frame object on
//       tstate->frame (thread_top_frame_object, here) is one root; from 3.11
//       each counted local, stack slot, code, function, f_locals and frame
//       object of an interpreter frame is a root, read through
//       cpython_internals.h. Two ways of building roots with HeapWalker, not
//       one value; the frame reading itself is in cpython_frames.c.
//   edge_labels_runtime.cpp (3.11): a frame object's edges. Up to 3.10 its
//       fields (f_back, f_code, f_builtins, f_globals, f_locals, f_trace)
//       and f_localsplus are read from the public PyFrameObject; from 3.11
//       it owns frame data only once its frame finished, read through
//       cpython_frames.c. Two edge labellers (EdgeCollector), one per layout.
//   roots_threads.cpp and value_previews.cpp (3.11): a code object's name
//       in frame labels and previews, co_qualname from 3.11, co_name before.
//       Public fields: a helper here would serve as well; each is one line
//       next to the text it builds.
//   stdlib_layouts.h (3.10, 3.11, 3.13, 3.14): mirrors of standard-library
//       structs private to their .c files (lru_cache_object, FutureObj,
//       TaskObj, PatternObject, textio, PyContext...), read by
//       stdlib_fields.cpp and edge_labels_stdlib.cpp. Each mirror is
//       checked against the running type (tp_basicsize, published offsets)
//       before use; a mismatch
//       leaves the type's references positional. Private structs of
//       extension modules, not of the interpreter: nothing here or in
//       cpython_internals.c describes them.
//   stdlib_layouts.h (3.13): _thread._local's struct was rewritten.
//   roots_threads.cpp (3.11, 3.12, 3.13): the thread state's own
//       references (public PyThreadState fields that changed: the current
//       exception, the handled-exception item, threading.local's key).
//   cython_fields.cpp (3.9, 3.12): Cython's function object is based on
//       PyCMethodObject from 3.9, and its dict is managed from 3.12 (Cython
//       3.2+); the Cython version comes from the type's name.
//   allocation_sites.cpp (3.10, 3.11): a code object's line table, read to
//       find the function of an allocation's line: co_lnotab up to 3.9,
//       3.10's co_linetable pairs, 3.11's location table. A walk over the
//       table's bytes with a callback per line, which only that file needs.
//       The object's memory block is found with pre_header_bytes (here).
//   snapshot_header.cpp: no branch. PY_VERSION_HEX, the version the probe
//       was built for, fills the header only when sys.hexversion (the
//       running patch release) cannot be read.
//   recognise_nanobind.cpp: compiled once per nanobind release, and only
//       for the Pythons that release supports (REFSCOPE_NANOBIND_PY_FIRST_MINOR
//       to _END_MINOR, from probe/CMakeLists.txt; its headers refuse the
//       others); otherwise its entry point does nothing. A limit of each
//       nanobind release, not a CPython difference.
//
// docs/probe.md, "Per-version differences", has the table by version.
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

// 3.11 allocates some objects statically, initialised at compile time with
// the refcount 999999999 (see is_immortal): the identifier strings and the
// deep-frozen modules' code objects with their constant tuples. Those
// initialisers never counted their references to the other static objects
// (None, True, False, Ellipsis, static types), whose refcounts are real
// counts on 3.11. 3.12+ makes all of them immortal, so which reference is
// counted no longer matters there (and an immortal object may own
// references: a static type its heap-allocated __mro__); 3.9/3.10 have no
// such objects.
inline bool is_static_holder(PyObject* op) {
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
    return is_immortal(op);
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

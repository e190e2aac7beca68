// Mirrors of the C structs of standard-library types that leak paths run
// through but whose structs are not in CPython's public headers
// (Modules/_functoolsmodule.c, _asynciomodule.c, _sre/sre.h, _io/textio.c,
// Python/context.c, _abc.c, descrobject.c, funcobject.c...). Only the fields
// the labellers read are named; the rest is padding of the right size.
//
// How a mirror is trusted (stdlib_fields.cpp, once per type): the type's
// tp_basicsize must equal the mirror's size, and where the type exposes an
// offset of its own (tp_dictoffset, tp_weaklistoffset, an object member)
// that offset must equal the mirror's. A type that fails the check gets no
// labels: its references stay positional (`<ref #N>`), never guessed.
//
// Layouts, read from the sources and checked against the running
// interpreters 3.9-3.13 (a ctypes scan of each field's address):
//   lru_cache_object   3.9: root link, wrapper, typed, cache, hits, func,
//                      maxsize, misses, cache_info_type, dict, weakreflist.
//                      3.10-3.15: kwd_mark and lru_list_elem_type added
//                      before cache_info_type.
//   lru_list_elem      every version: head, prev, next, hash, key, result.
//   FutureObj          3.9: loop, callback0, context0, callbacks, exception,
//                      result, source_tb, cancel_msg, 3 ints, dict,
//                      weakreflist, a 4-pointer exc_state. 3.10 adds
//                      exception_tb after exception. 3.11/3.12 replace
//                      exc_state with cancelled_exc (one pointer). 3.13
//                      moves dict and weakreflist out of the struct (managed)
//                      and cancelled_exc before the ints. 3.14 adds
//                      awaited_by after cancelled_exc, and two chars
//                      (is_task, awaited_by_is_set) that share the
//                      bitfields' unit (Future 112 bytes, Task 168).
//   TaskObj            FutureObj, then fut_waiter, coro, name, context at
//                      the offsets listed in task_fields_offset(); 3.14
//                      adds a list node (two pointers) at the end.
//   property           3.10+: fget, fset, fdel, doc, prop_name, getter_doc.
//   PatternObject      var head, groups, groupindex, indexgroup, pattern...
//   MatchObject        var head, string, regs, pattern...
//   textio             head, ok, detached, chunk_size, buffer, encoding,
//                      encoder, decoder, readnl, errors...
//   PyContext          head, ctx_prev, ctx_vars, weakreflist, entered.
//   PyContextVar       head, name, default, cached (borrowed)...
//   PyContextToken     head, ctx, var, old_value, used.
//   _abc_data          head, registry, cache, negative_cache, version.
//   mappingproxy       head, mapping.   method-wrapper: head, descr, self.
//   _thread._local     3.9-3.12: head, key, args, kw, weakreflist, dummies,
//                      wr_callback (64 bytes); tp_traverse visits args, kw
//                      and dummies only. 3.13+: head, args, kw,
//                      weakreflist, localdicts, thread_watchdogs (56 bytes),
//                      all four objects visited.
//   _thread._localdummy 3.9-3.12: head, localdict (borrowed: the local's
//                      dummies dict owns it), weakreflist.
#pragma once

#include <Python.h>

#include <cstddef>

namespace refscope::probe::layout {

struct LruLink {
    PyObject_HEAD
    LruLink* prev;
    LruLink* next;
    Py_hash_t hash;
    PyObject* key;
    PyObject* result;
};

// 3.10 added kwd_mark and lru_list_elem_type (module state moved into the
// object); the rest of the layout is the same on 3.9-3.15.
struct LruCache {
    LruLink root;
    void* wrapper;
    int typed;
    PyObject* cache;
    Py_ssize_t hits;
    PyObject* func;
    Py_ssize_t maxsize;
    Py_ssize_t misses;
#if PY_VERSION_HEX >= 0x030A0000
    PyObject* kwd_mark;
    PyTypeObject* lru_list_elem_type;
#endif
    PyObject* cache_info_type;
    PyObject* dict;
    PyObject* weakreflist;
};
static_assert(sizeof(LruLink) == 56 || sizeof(void*) != 8, "lru_list_elem: 56 bytes on 64-bit");

// The head every Future and Task shares, up to cancel_msg.
struct FutureHead {
    PyObject_HEAD
    PyObject* loop;
    PyObject* callback0;
    PyObject* context0;
    PyObject* callbacks;
    PyObject* exception;
#if PY_VERSION_HEX >= 0x030A0000
    PyObject* exception_tb;
#endif
    PyObject* result;
    PyObject* source_tb;
    PyObject* cancel_msg;
};

// sizeof(FutureObj) per version (the basicsize check), 0 where not known.
constexpr Py_ssize_t future_size() {
#if PY_VERSION_HEX >= 0x030E0000
    // cancelled_exc, awaited_by; then the state (4 bytes) and one 4-byte
    // unit holding the two chars and the bitfields (checked: 112 on 3.14.8
    // and 3.15.0, Debian forky)
    return sizeof(FutureHead) + 2 * sizeof(PyObject*) + 8;
#elif PY_VERSION_HEX >= 0x030D0000
    return sizeof(FutureHead) + sizeof(PyObject*) + 8;   // cancelled_exc, state + bitfields
#elif PY_VERSION_HEX >= 0x030B0000
    return sizeof(FutureHead) + 16 + 3 * sizeof(PyObject*);  // 3 ints + pad, dict, weakreflist, cancelled_exc
#else
    return sizeof(FutureHead) + 16 + 2 * sizeof(PyObject*) + 4 * sizeof(PyObject*);  // ..., exc_state
#endif
}

// Offset of TaskObj's fut_waiter (then coro, name, context follow).
constexpr Py_ssize_t task_fields_offset() {
#if PY_VERSION_HEX >= 0x030D0000
    return future_size() + 8;  // must_cancel/log_destroy bitfields share the unit; int num_cancels
#else
    return future_size();      // the task's flags come after its objects
#endif
}
constexpr Py_ssize_t task_size() {
#if PY_VERSION_HEX >= 0x030E0000
    return task_fields_offset() + 6 * sizeof(PyObject*);  // 4 objects, then the task list node (168)
#elif PY_VERSION_HEX >= 0x030D0000
    return task_fields_offset() + 4 * sizeof(PyObject*);
#elif PY_VERSION_HEX >= 0x030B0000
    return task_fields_offset() + 4 * sizeof(PyObject*) + 16;  // must_cancel, log_destroy, num_cancels (+pad)
#else
    return task_fields_offset() + 4 * sizeof(PyObject*) + 8;   // must_cancel, log_destroy
#endif
}

struct Property {
    PyObject_HEAD
    PyObject* fget;
    PyObject* fset;
    PyObject* fdel;
    PyObject* doc;
    PyObject* name;  // 3.10+
    int getter_doc;
};

struct Pattern {
    PyObject_VAR_HEAD
    Py_ssize_t groups;
    PyObject* groupindex;
    PyObject* indexgroup;
    PyObject* pattern;
};

struct Match {
    PyObject_VAR_HEAD
    PyObject* string;
    PyObject* regs;
    PyObject* pattern;
};

struct TextIO {
    PyObject_HEAD
    int ok;
    int detached;
    Py_ssize_t chunk_size;
    PyObject* buffer;
    PyObject* encoding;
    PyObject* encoder;
    PyObject* decoder;
    PyObject* readnl;
    PyObject* errors;
};

struct Context {
    PyObject_HEAD
    PyObject* prev;
    PyObject* vars;
    PyObject* weakreflist;
    int entered;
};

struct ContextVar {
    PyObject_HEAD
    PyObject* name;
    PyObject* default_value;
    PyObject* cached;  // borrowed
    uint64_t cached_tsid;
    uint64_t cached_tsver;
    Py_hash_t hash;
};

struct ContextToken {
    PyObject_HEAD
    PyObject* ctx;
    PyObject* var;
    PyObject* old_value;
    int used;
};

struct AbcData {
    PyObject_HEAD
    PyObject* registry;
    PyObject* cache;
    PyObject* negative_cache;
    unsigned long long negative_cache_version;
};

struct MappingProxy {
    PyObject_HEAD
    PyObject* mapping;
};

struct MethodWrapper {
    PyObject_HEAD
    PyObject* descr;
    PyObject* self;
};

// threading.local's C object. Each thread's attribute dict is a value of
// `dummies` (keyed by a weak reference to that thread's _localdummy, which
// the thread state's dict holds under `key`) before 3.13, and of
// `localdicts` (keyed by the thread state's threading_local_key; the
// weakrefs to each thread's sentinel are in thread_watchdogs) from 3.13.
#if PY_VERSION_HEX >= 0x030D0000
struct ThreadLocal {
    PyObject_HEAD
    PyObject* args;
    PyObject* kw;
    PyObject* weakreflist;
    PyObject* localdicts;
    PyObject* thread_watchdogs;
};
#else
struct ThreadLocal {
    PyObject_HEAD
    PyObject* key;
    PyObject* args;
    PyObject* kw;
    PyObject* weakreflist;
    PyObject* dummies;
    PyObject* wr_callback;
};
struct ThreadLocalDummy {
    PyObject_HEAD
    PyObject* localdict;  // borrowed
    PyObject* weakreflist;
};
#endif

}  // namespace refscope::probe::layout

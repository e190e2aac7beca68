// The probe's window onto CPython's private data structures.
//
// Everything here is implemented in cpython_internals.c (dicts, types,
// modules, the interpreter's references) and cpython_frames.c (frames), the
// only files compiled with Py_BUILD_CORE (cpython_core_headers.h): it includes CPython's internal headers
// (internal/pycore_*.h), which are C-only (they pull in <stdatomic.h> and
// C-specific constructs a C++ compiler rejects), so the implementation is C
// and this header is the small, layout-free interface the C++ walker uses.
//
// Together with compat.h this is where the PY_VERSION_HEX differences live:
// compat.h covers what the public C API can express, the two .c files what
// only the private layouts can (frames that are not objects, managed dicts,
// inline values, dict key tables); compat.h's header comment lists the few
// branches in other files and why each stays there. Nothing here allocates a
// Python object, takes or drops a reference, or runs Python code.
#pragma once

#include <Python.h>
#include <stddef.h>

/* The versions the probe reads (one gate for the C and the C++ sources;
 * probe/CMakeLists.txt skips other interpreters before they get here). */
#if PY_VERSION_HEX < 0x03090000 || PY_VERSION_HEX >= 0x03100000
#error "refscope's probe supports CPython 3.9 to 3.15"
#endif
/* Free-threaded builds (Py_GIL_DISABLED, python3.14t) have other object
 * headers (ob_tid, split refcounts), per-thread bytecode and deferred
 * references on every frame: none of that is read, so they are refused. */
#ifdef Py_GIL_DISABLED
#error "refscope's probe does not support free-threaded CPython builds (Py_GIL_DISABLED)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

// Who owns an interpreter frame (3.11+); mirrors CPython's enum _frameowner.
enum rs_frame_owner {
    RS_FRAME_OWNED_BY_THREAD = 0,
    RS_FRAME_OWNED_BY_GENERATOR = 1,
    RS_FRAME_OWNED_BY_FRAME_OBJECT = 2,
    // 3.12+ entry/shim frames (3.12/3.13 FRAME_OWNED_BY_CSTACK, 3.14+
    // FRAME_OWNED_BY_INTERPRETER and 3.14's CSTACK): no Python refs of interest
    RS_FRAME_OWNED_BY_CSTACK = 3,
};

// A read-only view of one _PyInterpreterFrame (3.11+). Every PyObject* is a
// borrowed view of a reference the frame holds; a field the frame does not
// hold as a strong reference (f_globals, f_builtins) is not exposed. Since
// 3.14 f_executable, f_funcobj and the slots are tagged stack references
// that may not be counted in the object's refcount (borrowed or immortal):
// *_owned says whether the frame's reference is a counted one.
typedef struct rs_frame_view {
    PyObject *code;        // f_code / f_executable; NULL if not a code object
    PyObject *function;    // f_func / f_funcobj, may be NULL
    PyObject *locals;      // f_locals (strong), may be NULL
    PyObject *frame_obj;   // materialized frame object (strong), may be NULL
    const void *slots;     // co_nlocalsplus locals, then the value stack (rs_frame_slot)
    int code_owned;
    int function_owned;
    int nlocalsplus;
    int stacktop;          // valid stack depth (>= nlocalsplus) or -1 when unknown
    int owner;             // enum rs_frame_owner
    int lasti_bytes;       // byte offset of the current instruction, -1 if not started
} rs_frame_view;

// Thread frames (3.11+; on 3.9/3.10 these return NULL: use PyThreadState.frame).
// NULL too when the frame layout cannot be trusted (rs_frame_layout_problem).
const void *rs_thread_top_frame(PyThreadState *tstate);
const void *rs_frame_previous(const void *frame);
int rs_frame_view_of(const void *frame, rs_frame_view *out);  // 0 = not readable
// Slot `index` of a frame (a local below nlocalsplus, else the value stack;
// index < stacktop): the object, or NULL for an empty slot or a 3.14+ tagged
// integer (which is no object). *owned = 1 when the slot holds a reference
// counted in the object's refcount.
PyObject *rs_frame_slot(const rs_frame_view *view, int index, int *owned);
// True when the calling thread's current frame is suspended in this very
// call, with the callable and its arguments on its (visible, 3.14+) value
// stack: those references are then explained by the frame, not the probe's.
int rs_caller_stack_holds_call(PyObject *callable, PyObject *const *args, Py_ssize_t nargs);

// The frame layouts compiled in, checked against the runtime's: the frame
// object's size (3.11+: PyFrame_Type covers the frame object and the embedded
// frame's header) and every offset the runtime publishes for tools (3.13+:
// _PyRuntime.debug_offsets, cookie "xdebugpy"). NULL when they match (and
// before 3.11, where frames are read through public structs), else why frames
// are not read (every frame function above then returns NULL / 0). Checked once.
const char *rs_frame_layout_problem(void);
// TEST HOOK ONLY: re-runs the checks as if `field` moved by one word: a
// published offset ("interpreter_frame.previous"..., 3.13+) in a copy of the
// published ones, or "frame_object.size" (3.11+); the verdict becomes the
// probe's. field NULL re-checks the real ones. Returns the verdict (NULL:
// frames readable); *known = 0 if `field` is not one the probe compares (or
// before 3.11).
const char *rs_debug_perturb_layout(const char *field, int *known);

// The frame embedded in a generator/coroutine/async generator (3.11+); NULL if
// cleared, completed or on older versions.
const void *rs_generator_frame(PyObject *gen);
// __name__ and __qualname__ of a generator, coroutine or async generator
// (owned by it; its struct is private since 3.14).
void rs_generator_names(PyObject *gen, PyObject **name, PyObject **qualname);
/* Frame slots a 3.11+ generator/coroutine was allocated with (0 before 3.11,
 * where the frame is a separate object). */
size_t rs_generator_frame_slots(PyObject *gen);
/* Slots a 3.11+ frame object was allocated with (0 before 3.11). */
size_t rs_frame_object_slots(PyObject *frame_object);
// 3.11+ frame objects: the frame data the object owns (NULL while the frame is
// still running on a thread or generator). On 3.9/3.10 NULL.
const void *rs_frame_object_owned_frame(PyObject *frame_object);
// 3.11+ frame objects: the object fields frame_traverse visits before the
// frame data, in its order: f_back (set when the frame finished while its
// caller ran), f_trace, 3.13+ f_extra_locals and f_locals_cache, 3.14+
// f_overwritten_fast_locals. Calls visit(value, field) for each one set;
// nothing on 3.9/3.10 (public struct) or when frames are not read.
void rs_frame_object_fields_visit(PyObject *frame_object,
                                  void (*visit)(PyObject *value, const char *field, void *context),
                                  void *context);

// Instance attributes of a type with a managed dict (3.11+), read without
// materializing the dict. Calls visit(name, value) for each attribute held in
// inline/managed values; *dict_out receives the materialized __dict__ or NULL.
// *values_owned_by_object is set to 1 when the values array is owned by the
// object itself (what tp_traverse reports). Returns 0 when the type has no
// managed dict (or on 3.9/3.10).
typedef void (*rs_attribute_visit)(PyObject *name, PyObject *value, void *context);
int rs_managed_attributes(PyObject *obj, rs_attribute_visit visit, void *context,
                          PyObject **dict_out);

// Dicts whose values array is embedded in an owning object (3.13 inline
// values shared with a materialized dict): the dict does not own the values.
int rs_dict_values_embedded(PyObject *dict);
// True for split-table dicts (keys owned by the type's cached keys).
int rs_dict_is_split(PyObject *dict);
// Bytes a dict allocates beyond its basicsize: its key table when it alone
// owns it, and its values array for split tables (mirrors dict.__sizeof__).
size_t rs_dict_extra_bytes(PyObject *dict);
// Bytes of an instance's inline/managed values array (3.11+), else 0.
size_t rs_instance_values_bytes(PyObject *obj);
// The keys of a heap type's shared (cached) key table, and its size.
void rs_cached_keys_visit(PyTypeObject *type, void (*visit)(PyObject *key, void *context),
                          void *context);
size_t rs_cached_keys_bytes(PyTypeObject *type);
// The module's md_name (strong reference the module holds), or NULL.
PyObject *rs_module_name(PyObject *module);

// The interpreter's dict of interned strs (3.12+; NULL before): it maps
// each str to itself without counted references.
PyObject *rs_interned_strings(void);

// A type's dict of subclasses (weak references by address), or NULL. Since
// 3.12 a static builtin type keeps it in the interpreter, its tp_subclasses
// holding an index into that table (3.13+: also static types that
// extensions registered as managed); other types hold the dict itself.
PyObject *rs_type_subclasses(PyTypeObject *type);

// The types the interpreter itself creates and holds one reference to
// (3.12+: typing.Generic, TypeVar, TypeVarTuple, ParamSpec, ParamSpecArgs,
// ParamSpecKwargs; 3.14+ also _ConstEvaluator). Calls visit(type, field).
void rs_interpreter_types_visit(void (*visit)(PyObject *type, const char *field, void *context), void *context);

// The interpreter's type attribute cache (3.10+) holds one strong
// reference to each cached attribute name. Calls visit(name) per entry.
void rs_type_cache_visit(void (*visit)(PyObject *name, void *context), void *context);

#ifdef __cplusplus
}
#endif

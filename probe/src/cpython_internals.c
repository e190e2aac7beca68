/* Reads CPython's private layouts for the probe (interface and rationale in
 * cpython_internals.h). Compiled as C with Py_BUILD_CORE against the
 * internal headers of the exact minor version the extension is built for, so
 * struct offsets come from CPython's own definitions, never from guesses.
 *
 * The two exceptions are 3.9/3.10, whose dict key table (Objects/dict-common.h)
 * and module object (Objects/moduleobject.c) are private to the .c files and
 * not installed: those two layouts are restated below, with the version
 * range they were checked against. */
#define Py_BUILD_CORE 1
#include <Python.h>

#include "cpython_internals.h"

#include <stdio.h>
#include <string.h>

#if PY_VERSION_HEX >= 0x030E0000
/* 3.14+: frames hold tagged stack references (pycore_stackref.h) and the
 * frame structs moved to pycore_interpframe*.h. */
#define RS_STACKREFS 1
#include "internal/pycore_interpframe.h"
#include "internal/pycore_stackref.h"
#else
#define RS_STACKREFS 0
#endif
#if PY_VERSION_HEX >= 0x030D0000
#include "internal/pycore_runtime.h" /* _PyRuntime.debug_offsets */
#endif
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_code.h"
#include "internal/pycore_dict.h"
#include "internal/pycore_frame.h"
#include "internal/pycore_moduleobject.h"
#include "internal/pycore_object.h"
#else
#include <frameobject.h>
#endif
#if PY_VERSION_HEX >= 0x030A0000
#include "internal/pycore_interp.h"
#endif

/* Dict tables reserve 1/3 of the index slots: entries = 2/3 of the size
 * (USABLE_FRACTION in Objects/dictobject.c, identical in 3.9..3.13). */
static size_t rs_usable_fraction(size_t n) { return (n << 1) / 3; }

#if PY_VERSION_HEX < 0x030B0000
/* 3.9/3.10 Objects/dict-common.h: the key table header, followed by
 * dk_size indices of 1/2/4/8 bytes, followed by the entries. */
typedef struct {
    Py_hash_t me_hash;
    PyObject *me_key;
    PyObject *me_value;
} rs_entry_v39;
typedef struct {
    Py_ssize_t dk_refcnt;
    Py_ssize_t dk_size;
    void *dk_lookup;
    Py_ssize_t dk_usable;
    Py_ssize_t dk_nentries;
    char dk_indices[];
} rs_keys_v39;
static size_t rs_index_bytes_v39(Py_ssize_t size) {
    if (size <= 0xff) return 1;
    if (size <= 0xffff) return 2;
    if (size <= 0xffffffffLL) return 4;
    return 8;
}
static const rs_entry_v39 *rs_entries_v39(const rs_keys_v39 *keys) {
    return (const rs_entry_v39 *)(keys->dk_indices +
                                  rs_index_bytes_v39(keys->dk_size) * (size_t)keys->dk_size);
}
/* 3.9/3.10 Objects/moduleobject.c */
typedef struct {
    PyObject_HEAD
    PyObject *md_dict;
    struct PyModuleDef *md_def;
    void *md_state;
    PyObject *md_weaklist;
    PyObject *md_name;
} rs_module_v39;
#endif

/* ------------------------------------------------------ published layouts */

/* Since 3.13 the runtime publishes, for out-of-process tools, where the
 * fields of its thread states, frames, code objects and generators are
 * (_PyRuntime.debug_offsets, a _Py_DebugOffsets starting with the cookie
 * "xdebugpy" and the runtime's PY_VERSION_HEX). It does not publish every
 * field the probe needs (f_funcobj, f_locals, frame_obj, co_nlocalsplus), so
 * the probe reads frames through the structs compiled in from this minor
 * version's headers and trusts them only while every published offset (and
 * struct size) it relies on equals the compiled one: a patch release that
 * moved one of them would otherwise be read as garbage. On a mismatch no
 * frame is read (threads are listed without roots; generators and frame
 * objects are walked through tp_traverse alone). */
#if PY_VERSION_HEX >= 0x030D0000
typedef struct {
    const char *name;
    size_t where;      /* offset of the field inside _Py_DebugOffsets */
    uint64_t compiled; /* what this build's headers say */
} rs_published_offset;

#define RS_PUBLISHED(section, field, value) \
    {#section "." #field, offsetof(_Py_DebugOffsets, section.field), (uint64_t)(value)}

static const rs_published_offset rs_published[] = {
    RS_PUBLISHED(thread_state, current_frame, offsetof(PyThreadState, current_frame)),
    RS_PUBLISHED(interpreter_frame, size, sizeof(_PyInterpreterFrame)),
    RS_PUBLISHED(interpreter_frame, previous, offsetof(_PyInterpreterFrame, previous)),
    RS_PUBLISHED(interpreter_frame, executable, offsetof(_PyInterpreterFrame, f_executable)),
    RS_PUBLISHED(interpreter_frame, instr_ptr, offsetof(_PyInterpreterFrame, instr_ptr)),
    RS_PUBLISHED(interpreter_frame, localsplus, offsetof(_PyInterpreterFrame, localsplus)),
    RS_PUBLISHED(interpreter_frame, owner, offsetof(_PyInterpreterFrame, owner)),
#if PY_VERSION_HEX >= 0x030E0000
    RS_PUBLISHED(interpreter_frame, stackpointer, offsetof(_PyInterpreterFrame, stackpointer)),
    RS_PUBLISHED(gen_object, size, sizeof(PyGenObject)),
    RS_PUBLISHED(gen_object, gi_name, offsetof(PyGenObject, gi_name)),
    RS_PUBLISHED(gen_object, gi_iframe, offsetof(PyGenObject, gi_iframe)),
    RS_PUBLISHED(gen_object, gi_frame_state, offsetof(PyGenObject, gi_frame_state)),
#endif
    RS_PUBLISHED(code_object, size, sizeof(PyCodeObject)),
    RS_PUBLISHED(code_object, filename, offsetof(PyCodeObject, co_filename)),
    RS_PUBLISHED(code_object, qualname, offsetof(PyCodeObject, co_qualname)),
    RS_PUBLISHED(code_object, firstlineno, offsetof(PyCodeObject, co_firstlineno)),
    RS_PUBLISHED(code_object, localsplusnames, offsetof(PyCodeObject, co_localsplusnames)),
    RS_PUBLISHED(code_object, co_code_adaptive, offsetof(PyCodeObject, co_code_adaptive)),
};

/* NULL when `published` agrees with the compiled layouts, else a message
 * in buf. */
static const char *rs_compare_layouts(const _Py_DebugOffsets *published, char *buf, size_t n) {
    if (memcmp(published->cookie, "xdebugpy", 8) != 0) {
        snprintf(buf, n, "the runtime's _Py_DebugOffsets has no \"xdebugpy\" cookie");
        return buf;
    }
    if ((published->version >> 16) != ((uint64_t)PY_VERSION_HEX >> 16) || published->free_threaded) {
        snprintf(buf, n, "the runtime is %llx%s, the probe was built for %x",
                 (unsigned long long)published->version, published->free_threaded ? " (free-threaded)" : "",
                 (unsigned)PY_VERSION_HEX);
        return buf;
    }
    for (size_t i = 0; i < sizeof(rs_published) / sizeof(rs_published[0]); i++) {
        uint64_t runtime;
        memcpy(&runtime, (const char *)published + rs_published[i].where, sizeof(runtime));
        if (runtime != rs_published[i].compiled) {
            snprintf(buf, n, "%s is %llu in the runtime (%llx) but %llu in the probe's headers (%x)",
                     rs_published[i].name, (unsigned long long)runtime, (unsigned long long)published->version,
                     (unsigned long long)rs_published[i].compiled, (unsigned)PY_VERSION_HEX);
            return buf;
        }
    }
    return NULL;
}
#endif

static const char *rs_layout_verdict = NULL;
#if PY_VERSION_HEX >= 0x030D0000
static int rs_layout_checked = 0;
static char rs_layout_message[256];
#endif

const char *rs_frame_layout_problem(void) {
#if PY_VERSION_HEX >= 0x030D0000
    if (!rs_layout_checked) {
        rs_layout_verdict = rs_compare_layouts(&_PyRuntime.debug_offsets, rs_layout_message,
                                               sizeof(rs_layout_message));
        rs_layout_checked = 1;
    }
#endif
    return rs_layout_verdict;
}

const char *rs_debug_perturb_layout(const char *field, int *known) {
    *known = 0;
#if PY_VERSION_HEX >= 0x030D0000
    _Py_DebugOffsets copy = _PyRuntime.debug_offsets;
    if (field != NULL) {
        for (size_t i = 0; i < sizeof(rs_published) / sizeof(rs_published[0]); i++) {
            if (strcmp(rs_published[i].name, field) != 0) continue;
            uint64_t moved = rs_published[i].compiled + sizeof(void *);
            memcpy((char *)&copy + rs_published[i].where, &moved, sizeof(moved));
            *known = 1;
        }
        if (!*known) return rs_frame_layout_problem();
    } else {
        *known = 1;
    }
    rs_layout_verdict = rs_compare_layouts(&copy, rs_layout_message, sizeof(rs_layout_message));
    rs_layout_checked = 1;
    return rs_layout_verdict;
#else
    (void)field;
    return NULL;
#endif
}

/* ---------------------------------------------------------------- frames */

/* A frame slot: a PyObject* up to 3.13, a tagged _PyStackRef since. */
#if RS_STACKREFS
typedef _PyStackRef rs_slot;
#else
typedef PyObject *rs_slot;
#endif

/* The object a slot refers to (NULL: none) and whether the slot's reference
 * is counted in that object's refcount. 3.14+ GIL builds tag the low bits
 * of a _PyStackRef (pycore_stackref.h): none set, a counted reference;
 * Py_TAG_REFCNT, a reference that was not counted (borrowed from one that
 * outlives it, e.g. LOAD_FAST_BORROW's copy of a local, or an immortal
 * object); both bits, an integer (no object); NULL is a value of its own,
 * and 3.15 reserves the remaining pattern for non-objects. */
static PyObject *rs_slot_object(rs_slot slot, int *owned) {
#if RS_STACKREFS
    *owned = 0;
    if (PyStackRef_IsNull(slot) || PyStackRef_IsTaggedInt(slot)) return NULL;
#if PY_VERSION_HEX >= 0x030F0000
    if (PyStackRef_IsMalformed(slot)) return NULL;
#endif
    *owned = PyStackRef_RefcountOnObject(slot) ? 1 : 0;
    return PyStackRef_AsPyObjectBorrow(slot);
#else
    *owned = slot != NULL;
    return slot;
#endif
}

#if PY_VERSION_HEX >= 0x030B0000
static PyObject *rs_frame_code(const _PyInterpreterFrame *frame, int *owned) {
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *code = rs_slot_object(frame->f_executable, owned);
#else
    PyObject *code = (PyObject *)frame->f_code;
    *owned = 1;
#endif
    return code != NULL && PyCode_Check(code) ? code : NULL;
}

/* Value stack depth (slots in use, locals included) or -1 when unknown.
 * Up to 3.13 CPython sets stacktop to -1 while a frame executes (the stack
 * pointer lives in a C local then) and to the real depth when the frame is
 * suspended in a call to another Python frame or a yield. 3.14+ keeps
 * stackpointer, spilled before every call that can run other code (the
 * collector reads every thread's stacks up to it); debug builds clear it
 * while the frame runs. Anything outside [nlocalsplus, nlocalsplus +
 * co_stacksize] is treated as unknown. */
static int rs_frame_stacktop(const _PyInterpreterFrame *frame, const PyCodeObject *co) {
#if RS_STACKREFS
    if (frame->stackpointer == NULL) return -1;
    ptrdiff_t top = frame->stackpointer - frame->localsplus;
#else
    int top = frame->stacktop;
#endif
    if (top >= co->co_nlocalsplus && top <= co->co_nlocalsplus + co->co_stacksize) return (int)top;
    return -1;
}

/* Owners whose frames hold nothing of interest (entry/shim frames). */
static int rs_frame_is_shim(const _PyInterpreterFrame *frame) {
#if PY_VERSION_HEX >= 0x030E0000
    return frame->owner >= FRAME_OWNED_BY_INTERPRETER;
#elif PY_VERSION_HEX >= 0x030C0000
    return frame->owner == FRAME_OWNED_BY_CSTACK;
#else
    (void)frame;
    return 0;
#endif
}
#endif

const void *rs_thread_top_frame(PyThreadState *tstate) {
    if (rs_frame_layout_problem() != NULL) return NULL;
#if PY_VERSION_HEX >= 0x030D0000
    return tstate->current_frame;
#elif PY_VERSION_HEX >= 0x030B0000
    return tstate->cframe ? tstate->cframe->current_frame : NULL;
#else
    (void)tstate;
    return NULL;
#endif
}

const void *rs_frame_previous(const void *frame) {
#if PY_VERSION_HEX >= 0x030B0000
    return ((const _PyInterpreterFrame *)frame)->previous;
#else
    (void)frame;
    return NULL;
#endif
}

int rs_frame_view_of(const void *opaque, rs_frame_view *out) {
    memset(out, 0, sizeof(*out));
    out->stacktop = -1;
    out->lasti_bytes = -1;
#if PY_VERSION_HEX >= 0x030B0000
    const _PyInterpreterFrame *frame = (const _PyInterpreterFrame *)opaque;
    if (frame == NULL || rs_frame_layout_problem() != NULL) return 0;
    if (rs_frame_is_shim(frame)) {
        out->owner = RS_FRAME_OWNED_BY_CSTACK;
        return 1; /* fields not valid */
    }
    out->owner = frame->owner;
    PyObject *code = rs_frame_code(frame, &out->code_owned);
#if RS_STACKREFS
    out->function = rs_slot_object(frame->f_funcobj, &out->function_owned);
#elif PY_VERSION_HEX >= 0x030C0000
    out->function = frame->f_funcobj;
    out->function_owned = 1;
#else
    out->function = (PyObject *)frame->f_func;
    out->function_owned = 1;
#endif
    if (code == NULL) return 1;
    PyCodeObject *co = (PyCodeObject *)code;
    out->code = code;
    out->locals = frame->f_locals;
    out->frame_obj = (PyObject *)frame->frame_obj;
    out->slots = frame->localsplus;
    out->nlocalsplus = co->co_nlocalsplus;
    out->stacktop = rs_frame_stacktop(frame, co);
#if PY_VERSION_HEX >= 0x030D0000
    ptrdiff_t index = frame->instr_ptr - _PyCode_CODE(co);
#else
    ptrdiff_t index = frame->prev_instr - _PyCode_CODE(co);
#endif
    if (index >= 0 && index < Py_SIZE(co))
        out->lasti_bytes = (int)(index * (ptrdiff_t)sizeof(_Py_CODEUNIT));
    return 1;
#else
    (void)opaque;
    return 0;
#endif
}

PyObject *rs_frame_slot(const rs_frame_view *view, int index, int *owned) {
    *owned = 0;
    int limit = view->stacktop >= 0 ? view->stacktop : view->nlocalsplus;
    if (view->slots == NULL || index < 0 || index >= limit) return NULL;
    return rs_slot_object(((const rs_slot *)view->slots)[index], owned);
}

int rs_caller_stack_holds_call(PyObject *callable, PyObject *const *args, Py_ssize_t nargs) {
    /* CALL leaves [callable, self or NULL, args...] on the caller's stack
     * for the duration of a call to a builtin; before 3.14 the running
     * frame's depth is unknown (stacktop -1) and this is always false. */
    rs_frame_view view;
    if (callable == NULL || !rs_frame_view_of(rs_thread_top_frame(PyThreadState_Get()), &view))
        return 0;
    int base = view.stacktop - (int)nargs - 2;
    if (view.stacktop < 0 || base < view.nlocalsplus) return 0;
    int owned;
    if (rs_frame_slot(&view, base, &owned) != callable) return 0;
    for (Py_ssize_t i = 0; i < nargs; i++)
        if (rs_frame_slot(&view, base + 2 + (int)i, &owned) != args[i]) return 0;
    return 1;
}

const void *rs_generator_frame(PyObject *gen) {
#if PY_VERSION_HEX >= 0x030B0000
    /* Generators, coroutines and async generators share the same head
     * (_PyGenObject_HEAD), so the generator view of the fields is valid for
     * all three. 3.15 renumbered the states: FRAME_STATE_FINISHED says it. */
    if (rs_frame_layout_problem() != NULL) return NULL;
    PyGenObject *g = (PyGenObject *)gen;
#ifdef FRAME_STATE_FINISHED
    if (FRAME_STATE_FINISHED(g->gi_frame_state)) return NULL;
#else
    if (g->gi_frame_state >= FRAME_COMPLETED) return NULL;
#endif
    return (const void *)&g->gi_iframe; /* an array up to 3.13, a struct since */
#else
    (void)gen;
    return NULL;
#endif
}

void rs_generator_names(PyObject *gen, PyObject **name, PyObject **qualname) {
    PyGenObject *g = (PyGenObject *)gen;
    *name = g->gi_name;
    *qualname = g->gi_qualname;
}

size_t rs_generator_frame_slots(PyObject *gen) {
    /* Since 3.11 a generator (coroutine, async generator) embeds its frame
     * and is allocated with room for the code object's frame slots, but its
     * head has no ob_size: Py_SIZE would read gi_code/gi_weakreflist. The
     * slot count comes from the code object, which the frame keeps even
     * after the generator finished (_PyFrame_ClearExceptCode). */
#if PY_VERSION_HEX >= 0x030C0000
    if (rs_frame_layout_problem() != NULL) return 0;
    int owned;
    PyObject *code = rs_frame_code((const _PyInterpreterFrame *)&((PyGenObject *)gen)->gi_iframe, &owned);
    if (code == NULL) return 0;
    return (size_t)_PyFrame_NumSlotsForCodeObject((PyCodeObject *)code);
#elif PY_VERSION_HEX >= 0x030B0000
    PyCodeObject *co = ((PyGenObject *)gen)->gi_code;
    if (co == NULL) return 0;
    return (size_t)(co->co_nlocalsplus + co->co_stacksize);
#else
    (void)gen;
    return 0;
#endif
}

size_t rs_frame_object_slots(PyObject *frame_object) {
    /* Since 3.11 a frame object is allocated with PyObject_GC_NewVar (room
     * for an embedded _PyInterpreterFrame) but has no ob_size either: the
     * word Py_SIZE would read is f_back. Size it from its code object. */
#if PY_VERSION_HEX >= 0x030B0000
    if (rs_frame_layout_problem() != NULL) return 0;
    const _PyInterpreterFrame *frame = ((PyFrameObject *)frame_object)->f_frame;
    if (frame == NULL) return 0;
    int owned;
    PyObject *code = rs_frame_code(frame, &owned);
    if (code == NULL) return 0;
#if PY_VERSION_HEX >= 0x030C0000
    return (size_t)_PyFrame_NumSlotsForCodeObject((PyCodeObject *)code) + FRAME_SPECIALS_SIZE;
#else
    PyCodeObject *co = (PyCodeObject *)code;
    return (size_t)(co->co_nlocalsplus + co->co_stacksize) + FRAME_SPECIALS_SIZE;
#endif
#else
    (void)frame_object;
    return 0;
#endif
}

const void *rs_frame_object_owned_frame(PyObject *frame_object) {
#if PY_VERSION_HEX >= 0x030B0000
    if (rs_frame_layout_problem() != NULL) return NULL;
    PyFrameObject *f = (PyFrameObject *)frame_object;
    _PyInterpreterFrame *data = f->f_frame;
    if (data != NULL && data->owner == FRAME_OWNED_BY_FRAME_OBJECT) return data;
    return NULL;
#else
    (void)frame_object;
    return NULL;
#endif
}

/* ----------------------------------------------------- managed attributes */

#if PY_VERSION_HEX >= 0x030B0000
static void rs_visit_values(PyDictKeysObject *keys, PyObject *const *values, Py_ssize_t capacity,
                            rs_attribute_visit visit, void *context) {
    if (keys == NULL || !DK_IS_UNICODE(keys)) return;
    PyDictUnicodeEntry *entries = DK_UNICODE_ENTRIES(keys);
    Py_ssize_t n = keys->dk_nentries;
    if (capacity >= 0 && n > capacity) n = capacity;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *value = values[i];
        if (value != NULL && entries[i].me_key != NULL) visit(entries[i].me_key, value, context);
    }
}
#endif

int rs_managed_attributes(PyObject *obj, rs_attribute_visit visit, void *context,
                          PyObject **dict_out) {
    *dict_out = NULL;
#if PY_VERSION_HEX >= 0x030B0000
    PyTypeObject *tp = Py_TYPE(obj);
    if (!(tp->tp_flags & Py_TPFLAGS_MANAGED_DICT)) return 0;
    PyDictKeysObject *keys = ((PyHeapTypeObject *)tp)->ht_cached_keys;
#if PY_VERSION_HEX >= 0x030D0000
    if (tp->tp_flags & Py_TPFLAGS_INLINE_VALUES) {
        PyDictValues *values = _PyObject_InlineValues(obj);
        if (values->valid) rs_visit_values(keys, values->values, values->capacity, visit, context);
    }
    *dict_out = (PyObject *)_PyObject_ManagedDictPointer(obj)->dict;
#elif PY_VERSION_HEX >= 0x030C0000
    PyDictOrValues dorv = *_PyObject_DictOrValuesPointer(obj);
    if (_PyDictOrValues_IsValues(dorv))
        rs_visit_values(keys, _PyDictOrValues_GetValues(dorv)->values, -1, visit, context);
    else
        *dict_out = _PyDictOrValues_GetDict(dorv);
#else
    PyDictValues *values = *_PyObject_ValuesPointer(obj);
    if (values != NULL) rs_visit_values(keys, values->values, -1, visit, context);
    *dict_out = *_PyObject_ManagedDictPointer(obj);
#endif
    return 1;
#else
    (void)obj;
    (void)visit;
    (void)context;
    return 0;
#endif
}

int rs_dict_values_embedded(PyObject *dict) {
#if PY_VERSION_HEX >= 0x030D0000
    PyDictObject *mp = (PyDictObject *)dict;
    return mp->ma_values != NULL && mp->ma_values->embedded;
#else
    (void)dict;
    return 0;
#endif
}

int rs_dict_is_split(PyObject *dict) { return ((PyDictObject *)dict)->ma_values != NULL; }

size_t rs_dict_extra_bytes(PyObject *dict) {
    PyDictObject *mp = (PyDictObject *)dict;
    size_t bytes = 0;
#if PY_VERSION_HEX >= 0x030B0000
    PyDictKeysObject *keys = mp->ma_keys;
    if (mp->ma_values != NULL) {
#if PY_VERSION_HEX >= 0x030D0000
        if (!mp->ma_values->embedded)
            bytes += (size_t)mp->ma_values->capacity * sizeof(PyObject *) + sizeof(PyObject *) +
                     _Py_SIZE_ROUND_UP((size_t)mp->ma_values->capacity, sizeof(PyObject *));
#else
        size_t n = (size_t)(keys->dk_nentries + keys->dk_usable);
        bytes += n * sizeof(PyObject *) + _Py_SIZE_ROUND_UP(n + 2, sizeof(PyObject *));
#endif
    }
    if (keys->dk_refcnt == 1) {
        size_t slots = (size_t)1 << keys->dk_log2_size;
        size_t entry = DK_IS_UNICODE(keys) ? sizeof(PyDictUnicodeEntry) : sizeof(PyDictKeyEntry);
        bytes += sizeof(PyDictKeysObject) + ((size_t)1 << keys->dk_log2_index_bytes) +
                 rs_usable_fraction(slots) * entry;
    }
#else
    const rs_keys_v39 *keys = (const rs_keys_v39 *)mp->ma_keys;
    size_t size = (size_t)keys->dk_size;
    size_t usable = rs_usable_fraction(size);
    if (mp->ma_values != NULL) bytes += usable * sizeof(PyObject *);
    if (keys->dk_refcnt == 1)
        bytes += sizeof(rs_keys_v39) + rs_index_bytes_v39(keys->dk_size) * size +
                 sizeof(rs_entry_v39) * usable;
#endif
    return bytes;
}

size_t rs_instance_values_bytes(PyObject *obj) {
#if PY_VERSION_HEX >= 0x030B0000
    PyTypeObject *tp = Py_TYPE(obj);
    if (!(tp->tp_flags & Py_TPFLAGS_MANAGED_DICT)) return 0;
#if PY_VERSION_HEX >= 0x030D0000
    if (!(tp->tp_flags & Py_TPFLAGS_INLINE_VALUES)) return 0;
    size_t n = _PyObject_InlineValues(obj)->capacity;
    return sizeof(PyObject *) + n * sizeof(PyObject *) + _Py_SIZE_ROUND_UP(n, sizeof(PyObject *));
#elif PY_VERSION_HEX >= 0x030C0000
    PyDictKeysObject *keys = ((PyHeapTypeObject *)tp)->ht_cached_keys;
    PyDictOrValues dorv = *_PyObject_DictOrValuesPointer(obj);
    if (!_PyDictOrValues_IsValues(dorv) || keys == NULL) return 0;
#else
    PyDictKeysObject *keys = ((PyHeapTypeObject *)tp)->ht_cached_keys;
    if (*_PyObject_ValuesPointer(obj) == NULL || keys == NULL) return 0;
#endif
#if PY_VERSION_HEX < 0x030D0000
    size_t n = (size_t)(keys->dk_nentries + keys->dk_usable);
    return n * sizeof(PyObject *) + _Py_SIZE_ROUND_UP(n + 2, sizeof(PyObject *));
#endif
#else
    (void)obj;
    return 0;
#endif
}

void rs_cached_keys_visit(PyTypeObject *type, void (*visit)(PyObject *key, void *context),
                          void *context) {
    if (!(type->tp_flags & Py_TPFLAGS_HEAPTYPE)) return;
#if PY_VERSION_HEX >= 0x030B0000
    PyDictKeysObject *keys = ((PyHeapTypeObject *)type)->ht_cached_keys;
    if (keys == NULL || !DK_IS_UNICODE(keys)) return;
    PyDictUnicodeEntry *entries = DK_UNICODE_ENTRIES(keys);
    for (Py_ssize_t i = 0; i < keys->dk_nentries; i++)
        if (entries[i].me_key != NULL) visit(entries[i].me_key, context);
#else
    const rs_keys_v39 *keys = (const rs_keys_v39 *)((PyHeapTypeObject *)type)->ht_cached_keys;
    if (keys == NULL) return;
    const rs_entry_v39 *entries = rs_entries_v39(keys);
    for (Py_ssize_t i = 0; i < keys->dk_nentries; i++)
        if (entries[i].me_key != NULL) visit(entries[i].me_key, context);
#endif
}

size_t rs_cached_keys_bytes(PyTypeObject *type) {
    if (!(type->tp_flags & Py_TPFLAGS_HEAPTYPE)) return 0;
#if PY_VERSION_HEX >= 0x030B0000
    PyDictKeysObject *keys = ((PyHeapTypeObject *)type)->ht_cached_keys;
    if (keys == NULL) return 0;
    size_t slots = (size_t)1 << keys->dk_log2_size;
    size_t entry = DK_IS_UNICODE(keys) ? sizeof(PyDictUnicodeEntry) : sizeof(PyDictKeyEntry);
    return sizeof(PyDictKeysObject) + ((size_t)1 << keys->dk_log2_index_bytes) +
           rs_usable_fraction(slots) * entry;
#else
    const rs_keys_v39 *keys = (const rs_keys_v39 *)((PyHeapTypeObject *)type)->ht_cached_keys;
    if (keys == NULL) return 0;
    size_t size = (size_t)keys->dk_size;
    return sizeof(rs_keys_v39) + rs_index_bytes_v39(keys->dk_size) * size +
           sizeof(rs_entry_v39) * rs_usable_fraction(size);
#endif
}

PyObject *rs_module_name(PyObject *module) {
#if PY_VERSION_HEX >= 0x030B0000
    return ((PyModuleObject *)module)->md_name;
#else
    return ((rs_module_v39 *)module)->md_name;
#endif
}

/* ------------------------------------------------------- interpreter */

void rs_type_cache_visit(void (*visit)(PyObject *name, void *context), void *context) {
#if PY_VERSION_HEX >= 0x030A0000
    PyInterpreterState *interp = PyInterpreterState_Get();
#if PY_VERSION_HEX >= 0x030C0000
    struct type_cache *cache = &interp->types.type_cache;
#else
    struct type_cache *cache = &interp->type_cache;
#endif
    for (size_t i = 0; i < sizeof(cache->hashtable) / sizeof(cache->hashtable[0]); i++) {
        PyObject *name = cache->hashtable[i].name;
        if (name != NULL) visit(name, context);
    }
#else
    /* 3.9 keeps the cache in a static array of Objects/typeobject.c. */
    (void)visit;
    (void)context;
#endif
}

PyObject *rs_type_subclasses(PyTypeObject *type) {
    uintptr_t value = (uintptr_t)type->tp_subclasses;
#if PY_VERSION_HEX >= 0x030C0000
    /* A 1-based index into the interpreter's table, or a dict pointer
     * (never below the first page). The table entry must name this type. */
    if (value == 0 || value >= 4096) return (PyObject *)type->tp_subclasses;
    size_t index = value - 1;
    PyInterpreterState *interp = PyInterpreterState_Get();
#if PY_VERSION_HEX >= 0x030D0000
    if (index < _Py_MAX_MANAGED_STATIC_BUILTIN_TYPES && interp->types.builtins.initialized[index].type == type)
        return interp->types.builtins.initialized[index].tp_subclasses;
    if (index < _Py_MAX_MANAGED_STATIC_EXT_TYPES && interp->types.for_extensions.initialized[index].type == type)
        return interp->types.for_extensions.initialized[index].tp_subclasses;
#else
    if (index < _Py_MAX_STATIC_BUILTIN_TYPES && interp->types.builtins[index].type == type)
        return interp->types.builtins[index].tp_subclasses;
#endif
    return NULL;
#else
    return (PyObject *)value;
#endif
}

void rs_interpreter_types_visit(void (*visit)(PyObject *type, const char *field, void *context), void *context) {
#if PY_VERSION_HEX >= 0x030C0000
    /* interp->cached_objects: created at start-up, released with Py_CLEAR
     * in _Py_clear_generic_types (Objects/typevarobject.c). */
    PyInterpreterState *interp = PyInterpreterState_Get();
#define RS_VISIT_TYPE(field) \
    if (interp->cached_objects.field != NULL) visit((PyObject *)interp->cached_objects.field, #field, context)
    RS_VISIT_TYPE(generic_type);
    RS_VISIT_TYPE(typevar_type);
    RS_VISIT_TYPE(typevartuple_type);
    RS_VISIT_TYPE(paramspec_type);
    RS_VISIT_TYPE(paramspecargs_type);
    RS_VISIT_TYPE(paramspeckwargs_type);
#if PY_VERSION_HEX >= 0x030E0000
    RS_VISIT_TYPE(constevaluator_type);
#endif
#undef RS_VISIT_TYPE
#else
    (void)visit;
    (void)context;
#endif
}

PyObject *rs_interned_strings(void) {
#if PY_VERSION_HEX >= 0x030C0000
    return _Py_INTERP_CACHED_OBJECT(PyInterpreterState_Get(), interned_strings);
#else
    /* A static of Objects/unicodeobject.c, and never GC-tracked. */
    return NULL;
#endif
}

/* Reads CPython's private frame layouts for the probe (interface in
 * cpython_internals.h): the check of the compiled layouts against the ones
 * the runtime publishes for tools (_Py_DebugOffsets, 3.13+), thread frame
 * chains, each frame's code, locals and value stack (tagged _PyStackRef
 * slots in 3.14+), generators' and frame objects' embedded frames. Compiled
 * as C against CPython's internal headers (cpython_core_headers.h). */
#include "cpython_core_headers.h"

#include "cpython_internals.h"

#include <stdio.h>
#include <string.h>

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

#if PY_VERSION_HEX >= 0x030B0000
/* The frame object's own struct (struct _frame: f_back, f_frame, f_trace...)
 * is published nowhere, not even in _Py_DebugOffsets, and 3.11/3.12 publish
 * no layout at all. What the runtime does expose is the frame type's basic
 * size, which CPython defines as the offset of the frame object's embedded
 * frame plus that frame's header up to localsplus: so a patch release that
 * grew or shrank either struct changes it. Its item size is one slot. */
static const Py_ssize_t rs_frame_object_size =
    (Py_ssize_t)(offsetof(PyFrameObject, _f_frame_data) + offsetof(_PyInterpreterFrame, localsplus));

static const char *rs_compare_frame_object(Py_ssize_t runtime_size, char *buf, size_t n) {
    if (runtime_size == rs_frame_object_size && PyFrame_Type.tp_itemsize == (Py_ssize_t)sizeof(PyObject *))
        return NULL;
    snprintf(buf, n, "frame_object.size is %zd+%zd in the runtime but %zd+%zu in the probe's headers (%x)",
             runtime_size, PyFrame_Type.tp_itemsize, rs_frame_object_size, sizeof(PyObject *),
             (unsigned)PY_VERSION_HEX);
    return buf;
}
#endif

static const char *rs_layout_verdict = NULL;
#if PY_VERSION_HEX >= 0x030B0000
static int rs_layout_checked = 0;
static char rs_layout_message[256];

/* Every layout check in order: the frame object's size, then (3.13+) each
 * published offset. `moved_size` is added to the runtime's frame object size
 * and `offsets` replaces the published ones (both test hooks). */
static const char *rs_check_layouts(Py_ssize_t moved_size, const void *offsets) {
    const char *verdict = rs_compare_frame_object(PyFrame_Type.tp_basicsize + moved_size, rs_layout_message,
                                                  sizeof(rs_layout_message));
#if PY_VERSION_HEX >= 0x030D0000
    if (verdict == NULL)
        verdict = rs_compare_layouts((const _Py_DebugOffsets *)offsets, rs_layout_message, sizeof(rs_layout_message));
#else
    (void)offsets;
#endif
    rs_layout_checked = 1;
    return verdict;
}
#endif

const char *rs_frame_layout_problem(void) {
#if PY_VERSION_HEX >= 0x030D0000
    if (!rs_layout_checked) rs_layout_verdict = rs_check_layouts(0, &_PyRuntime.debug_offsets);
#elif PY_VERSION_HEX >= 0x030B0000
    if (!rs_layout_checked) rs_layout_verdict = rs_check_layouts(0, NULL);
#endif
    return rs_layout_verdict;
}

const char *rs_debug_perturb_layout(const char *field, int *known) {
    *known = 0;
#if PY_VERSION_HEX >= 0x030B0000
    Py_ssize_t moved_size = 0;
    if (field != NULL && strcmp(field, "frame_object.size") == 0) {
        moved_size = (Py_ssize_t)sizeof(void *);
        *known = 1;
    }
#if PY_VERSION_HEX >= 0x030D0000
    _Py_DebugOffsets copy = _PyRuntime.debug_offsets;
    for (size_t i = 0; field != NULL && i < sizeof(rs_published) / sizeof(rs_published[0]); i++) {
        if (strcmp(rs_published[i].name, field) != 0) continue;
        uint64_t moved = rs_published[i].compiled + sizeof(void *);
        memcpy((char *)&copy + rs_published[i].where, &moved, sizeof(moved));
        *known = 1;
    }
    const void *offsets = &copy;
#else
    const void *offsets = NULL;
#endif
    if (field == NULL) *known = 1;
    if (!*known) return rs_frame_layout_problem();
    rs_layout_verdict = rs_check_layouts(moved_size, offsets);
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

void rs_frame_object_fields_visit(PyObject *frame_object,
                                  void (*visit)(PyObject *value, const char *field, void *context),
                                  void *context) {
#if PY_VERSION_HEX >= 0x030B0000
    /* struct _frame is private (pycore_frame.h) and not published: read
     * under the same check as the frame data it points to. */
    if (rs_frame_layout_problem() != NULL) return;
    PyFrameObject *f = (PyFrameObject *)frame_object;
    if (f->f_back != NULL) visit((PyObject *)f->f_back, "f_back", context);
    if (f->f_trace != NULL) visit(f->f_trace, "f_trace", context);
#if PY_VERSION_HEX >= 0x030D0000
    if (f->f_extra_locals != NULL) visit(f->f_extra_locals, "f_extra_locals", context);
    if (f->f_locals_cache != NULL) visit(f->f_locals_cache, "f_locals_cache", context);
#endif
#if PY_VERSION_HEX >= 0x030E0000
    if (f->f_overwritten_fast_locals != NULL) visit(f->f_overwritten_fast_locals, "f_overwritten_fast_locals", context);
#endif
#else
    (void)frame_object;
    (void)visit;
    (void)context;
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

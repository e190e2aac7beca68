// C fields of standard-library types (functools, _asyncio, re, io,
// contextvars, _abc, _thread, property, exceptions...) and of Cython's
// functions (cython_fields.cpp), found once per type and
// appended to its member table (collect_stdlib_fields, object_kinds.h), so
// that a leak path reads `_lru_cache_wrapper → cache → …` instead of
// `<ref #0>`. The structs are mirrored in stdlib_layouts.h; a type whose
// size or exposed offsets disagree with its mirror gets nothing here.
//
// Each field's use says how it relates to tp_traverse (label_members turns
// it into an EdgeMode): Owned for a strong reference whatever tp_traverse
// reports; Traversed where the type's tp_traverse visits the field, so that
// a label can only name a reference the collector reported, never add one.
#include "object_kinds.h"

#include <cstring>

#include "compat.h"
#include "stdlib_layouts.h"

namespace refscope::probe {

namespace {

// The type itself or the first base named `name` (a Python subclass of
// asyncio.Task keeps the C layout as its prefix).
PyTypeObject* base_named(PyTypeObject* tp, const char* name) {
    for (PyTypeObject* t = tp; t != nullptr; t = t->tp_base)
        if (std::strcmp(t->tp_name, name) == 0) return t;
    return nullptr;
}

// Offset of an object member declared by `t` itself, or -1.
Py_ssize_t member_offset(PyTypeObject* t, const char* name) {
    for (PyMemberDef* m = t->tp_members; m != nullptr && m->name != nullptr; ++m)
        if (std::strcmp(m->name, name) == 0) return m->offset;
    return -1;
}

// The type has the mirror's size (and, where given, its weaklist offset).
bool sized(PyTypeObject* t, size_t size, Py_ssize_t weaklist = -1) {
    return t != nullptr && t->tp_basicsize == static_cast<Py_ssize_t>(size) &&
           (weaklist < 0 || t->tp_weaklistoffset == weaklist);
}

bool taken(const std::vector<MemberSlot>& out, size_t begin, Py_ssize_t offset) {
    for (size_t i = begin; i < out.size(); ++i)
        if (out[i].offset == offset) return true;
    return false;
}

class Fields {
public:
    Fields(std::vector<MemberSlot>& out, size_t begin) : out_(out), begin_(begin) {}
    // A field already named by a member (same slot) keeps the member's name.
    void add(Py_ssize_t offset, const char* name, SlotUse use) {
        if (!taken(out_, begin_, offset)) out_.push_back({offset, name, false, use});
    }
    // A pointer the object holds without a reference of its own: shown,
    // never counted.
    void add_borrowed(Py_ssize_t offset, const char* name) {
        if (!taken(out_, begin_, offset)) out_.push_back({offset, name, true, SlotUse::Member});
    }

private:
    std::vector<MemberSlot>& out_;
    size_t begin_;
};

#define RS_OFFSET(type, field) static_cast<Py_ssize_t>(offsetof(layout::type, field))

bool add_functools(PyTypeObject* tp, TypeFacts& facts, Fields& f) {
    if (PyTypeObject* t = base_named(tp, "functools._lru_cache_wrapper")) {
        if (t->tp_basicsize != static_cast<Py_ssize_t>(sizeof(layout::LruCache)) ||
            t->tp_dictoffset != RS_OFFSET(LruCache, dict) ||
            t->tp_weaklistoffset != RS_OFFSET(LruCache, weakreflist))
            return true;
        facts.special = SpecialKind::LruCache;
        f.add(RS_OFFSET(LruCache, cache), "cache", SlotUse::Owned);
        f.add(RS_OFFSET(LruCache, func), "func", SlotUse::Owned);
#if PY_VERSION_HEX >= 0x030A0000
        f.add(RS_OFFSET(LruCache, kwd_mark), "kwd_mark", SlotUse::Owned);
        f.add(RS_OFFSET(LruCache, lru_list_elem_type), "lru_list_elem_type", SlotUse::Owned);
#endif
        f.add(RS_OFFSET(LruCache, cache_info_type), "cache_info_type", SlotUse::Owned);
        return true;
    }
    if (std::strcmp(tp->tp_name, "functools._lru_list_elem") == 0) {
        if (tp->tp_basicsize != static_cast<Py_ssize_t>(sizeof(layout::LruLink))) return true;
        // The link owns its key and result; the wrapper's tp_traverse
        // reports them on its behalf (the link is not a GC object), so the
        // collector sees them: Visible.
        facts.special = SpecialKind::LruLink;
        f.add(RS_OFFSET(LruLink, key), "key", SlotUse::Visible);
        f.add(RS_OFFSET(LruLink, result), "result", SlotUse::Visible);
        return true;
    }
    return false;
}

bool add_asyncio(PyTypeObject* tp, Fields& f) {
    PyTypeObject* task = base_named(tp, "_asyncio.Task");
    PyTypeObject* future = task != nullptr ? nullptr : base_named(tp, "_asyncio.Future");
    if (task == nullptr && future == nullptr) return false;
    const Py_ssize_t expected = task != nullptr ? layout::task_size() : layout::future_size();
    if (expected == 0 || (task != nullptr ? task : future)->tp_basicsize != expected) return true;
    f.add(RS_OFFSET(FutureHead, loop), "_loop", SlotUse::Traversed);
    f.add(RS_OFFSET(FutureHead, callback0), "fut_callback0", SlotUse::Traversed);
    f.add(RS_OFFSET(FutureHead, context0), "fut_context0", SlotUse::Traversed);
    f.add(RS_OFFSET(FutureHead, callbacks), "_callbacks", SlotUse::Traversed);
    f.add(RS_OFFSET(FutureHead, exception), "_exception", SlotUse::Traversed);
#if PY_VERSION_HEX >= 0x030A0000
    f.add(RS_OFFSET(FutureHead, exception_tb), "_exception_tb", SlotUse::Traversed);
#endif
    f.add(RS_OFFSET(FutureHead, result), "_result", SlotUse::Traversed);
    f.add(RS_OFFSET(FutureHead, source_tb), "_source_traceback", SlotUse::Traversed);
    f.add(RS_OFFSET(FutureHead, cancel_msg), "_cancel_message", SlotUse::Traversed);
#if PY_VERSION_HEX >= 0x030D0000
    // 3.13 moved cancelled_exc right after cancel_msg; 3.14 adds awaited_by.
    const Py_ssize_t after_head = static_cast<Py_ssize_t>(sizeof(layout::FutureHead));
    f.add(after_head, "_cancelled_exc", SlotUse::Traversed);
#if PY_VERSION_HEX >= 0x030E0000
    f.add(after_head + static_cast<Py_ssize_t>(sizeof(PyObject*)), "_asyncio_awaited_by", SlotUse::Traversed);
#endif
#endif
    if (task != nullptr) {
        const Py_ssize_t at = layout::task_fields_offset();
        const Py_ssize_t word = static_cast<Py_ssize_t>(sizeof(PyObject*));
        f.add(at, "_fut_waiter", SlotUse::Traversed);
        f.add(at + word, "_coro", SlotUse::Traversed);
        f.add(at + 2 * word, "_name", SlotUse::Traversed);
        f.add(at + 3 * word, "_context", SlotUse::Traversed);
    }
    return true;
}

// re, io, contextvars, _abc: the exposed members pin the mirror.
bool add_modules(PyTypeObject* tp, Fields& f) {
    if (PyTypeObject* t = base_named(tp, "re.Pattern")) {
        if (member_offset(t, "pattern") == RS_OFFSET(Pattern, pattern)) {
            f.add(RS_OFFSET(Pattern, groupindex), "groupindex", SlotUse::Owned);
            f.add(RS_OFFSET(Pattern, indexgroup), "indexgroup", SlotUse::Owned);
        }
        return true;
    }
    if (PyTypeObject* t = base_named(tp, "re.Match")) {
        if (member_offset(t, "string") == RS_OFFSET(Match, string) &&
            member_offset(t, "re") == RS_OFFSET(Match, pattern))
            f.add(RS_OFFSET(Match, regs), "regs", SlotUse::Owned);
        return true;
    }
    if (PyTypeObject* t = base_named(tp, "_io.TextIOWrapper")) {
        if (member_offset(t, "buffer") == RS_OFFSET(TextIO, buffer) &&
            member_offset(t, "encoding") == RS_OFFSET(TextIO, encoding)) {
            f.add(RS_OFFSET(TextIO, encoder), "encoder", SlotUse::Owned);
            f.add(RS_OFFSET(TextIO, decoder), "decoder", SlotUse::Owned);
            f.add(RS_OFFSET(TextIO, readnl), "readnl", SlotUse::Owned);
            f.add(RS_OFFSET(TextIO, errors), "errors", SlotUse::Owned);
        }
        return true;
    }
    // The contextvars types are public (and final); 3.9 names them without
    // their module.
    if (tp == &PyContext_Type) {
        PyTypeObject* t = tp;
        if (sized(t, sizeof(layout::Context))) {
            f.add(RS_OFFSET(Context, prev), "ctx_prev", SlotUse::Traversed);
            f.add(RS_OFFSET(Context, vars), "ctx_vars", SlotUse::Traversed);
        }
        return true;
    }
    if (tp == &PyContextVar_Type) {
        PyTypeObject* t = tp;
        if (sized(t, sizeof(layout::ContextVar)) && member_offset(t, "name") == RS_OFFSET(ContextVar, name))
            f.add(RS_OFFSET(ContextVar, default_value), "default", SlotUse::Traversed);
        return true;
    }
    if (tp == &PyContextToken_Type) {
        PyTypeObject* t = tp;
        if (sized(t, sizeof(layout::ContextToken))) {
            f.add(RS_OFFSET(ContextToken, ctx), "tok_ctx", SlotUse::Traversed);
            f.add(RS_OFFSET(ContextToken, var), "var", SlotUse::Traversed);
            f.add(RS_OFFSET(ContextToken, old_value), "old_value", SlotUse::Traversed);
        }
        return true;
    }
    if (PyTypeObject* t = base_named(tp, "_abc._abc_data")) {
        if (sized(t, sizeof(layout::AbcData))) {
            f.add(RS_OFFSET(AbcData, registry), "_abc_registry", SlotUse::Traversed);
            f.add(RS_OFFSET(AbcData, cache), "_abc_cache", SlotUse::Traversed);
            f.add(RS_OFFSET(AbcData, negative_cache), "_abc_negative_cache", SlotUse::Traversed);
        }
        return true;
    }
    return false;
}

// threading.local: the dict of per-thread attribute dicts, the constructor's
// arguments (kept to initialise each new thread's dict), and before 3.13 the
// thread-state key and the weakref callback, which local_traverse does not
// visit (Owned: the collector cannot see them).
bool add_thread_local(PyTypeObject* tp, Fields& f) {
    if (PyTypeObject* t = base_named(tp, "_thread._local")) {
        if (!sized(t, sizeof(layout::ThreadLocal), RS_OFFSET(ThreadLocal, weakreflist))) return true;
        f.add(RS_OFFSET(ThreadLocal, args), "args", SlotUse::Traversed);
        f.add(RS_OFFSET(ThreadLocal, kw), "kw", SlotUse::Traversed);
#if PY_VERSION_HEX >= 0x030D0000
        f.add(RS_OFFSET(ThreadLocal, localdicts), "localdicts", SlotUse::Traversed);
        f.add(RS_OFFSET(ThreadLocal, thread_watchdogs), "thread_watchdogs", SlotUse::Traversed);
#else
        f.add(RS_OFFSET(ThreadLocal, key), "key", SlotUse::Owned);
        f.add(RS_OFFSET(ThreadLocal, dummies), "dummies", SlotUse::Traversed);
        f.add(RS_OFFSET(ThreadLocal, wr_callback), "wr_callback", SlotUse::Owned);
#endif
        return true;
    }
#if PY_VERSION_HEX < 0x030D0000
    if (std::strcmp(tp->tp_name, "_thread._localdummy") == 0) {
        if (sized(tp, sizeof(layout::ThreadLocalDummy), RS_OFFSET(ThreadLocalDummy, weakreflist)))
            f.add_borrowed(RS_OFFSET(ThreadLocalDummy, localdict), "localdict");
        return true;
    }
#endif
    return false;
}

// Builtins: structs private to their .c file (mirrored; method-wrapper's
// type itself is private from 3.13: recognised by name), and the public
// ones of exceptions and tracebacks.
void add_builtins(PyTypeObject* tp, Fields& f) {
    if (tp == &PyDictProxy_Type && tp->tp_basicsize == static_cast<Py_ssize_t>(sizeof(layout::MappingProxy))) {
        f.add(RS_OFFSET(MappingProxy, mapping), "mapping", SlotUse::Traversed);
    } else if (!(tp->tp_flags & Py_TPFLAGS_HEAPTYPE) && std::strcmp(tp->tp_name, "method-wrapper") == 0 &&
               tp->tp_basicsize == static_cast<Py_ssize_t>(sizeof(layout::MethodWrapper))) {
        f.add(RS_OFFSET(MethodWrapper, descr), "descr", SlotUse::Traversed);
        f.add(RS_OFFSET(MethodWrapper, self), "__self__", SlotUse::Traversed);
    } else if (PyTypeObject* t = base_named(tp, "property")) {
#if PY_VERSION_HEX >= 0x030A0000
        // fget/fset/fdel/__doc__ are members already; the name (3.10+) is not.
        if (t == &PyProperty_Type && t->tp_basicsize == static_cast<Py_ssize_t>(sizeof(layout::Property)) &&
            member_offset(t, "fget") == RS_OFFSET(Property, fget))
            f.add(RS_OFFSET(Property, name), "__name__", SlotUse::Owned);
#else
        (void)t;
#endif
    } else if (PyType_FastSubclass(tp, Py_TPFLAGS_BASE_EXC_SUBCLASS)) {
        // PyBaseExceptionObject is public (cpython/pyerrors.h).
        f.add(offsetof(PyBaseExceptionObject, args), "args", SlotUse::Owned);
#if PY_VERSION_HEX >= 0x030B0000
        f.add(offsetof(PyBaseExceptionObject, notes), "__notes__", SlotUse::Owned);
#endif
        f.add(offsetof(PyBaseExceptionObject, traceback), "__traceback__", SlotUse::Owned);
        f.add(offsetof(PyBaseExceptionObject, context), "__context__", SlotUse::Owned);
        f.add(offsetof(PyBaseExceptionObject, cause), "__cause__", SlotUse::Owned);
    } else if (tp == &PyTraceBack_Type) {
        // PyTracebackObject is public (cpython/traceback.h). tb_next is a
        // getset, so no member names it; tb_frame is a member (Slot) where
        // the type declares one, and keeps that name.
        f.add(offsetof(PyTracebackObject, tb_next), "tb_next", SlotUse::Traversed);
        f.add(offsetof(PyTracebackObject, tb_frame), "tb_frame", SlotUse::Traversed);
    }
}

}  // namespace

void collect_stdlib_fields(PyTypeObject* tp, TypeFacts& facts, std::vector<MemberSlot>& out) {
    // Kinds with a labeller of their own keep it (a dict subclass's entries
    // are labelled by label_dict); deque and OrderedDict only need a flag.
    if (std::strcmp(tp->tp_name, "collections.deque") == 0) {
        facts.special = SpecialKind::Deque;
        return;
    }
    if (base_named(tp, "collections.OrderedDict") != nullptr) {
        facts.special = SpecialKind::OrderedDict;
        return;
    }
    if (facts.kind != ObjectKind::Other) return;
    Fields f(out, facts.members_begin);
    if (add_functools(tp, facts, f) || add_asyncio(tp, f) || add_modules(tp, f) || add_thread_local(tp, f))
        return;
    std::vector<FieldSpec> cython;
    if (cython_function_fields(tp, cython)) {
        for (const FieldSpec& field : cython) f.add(field.offset, field.name, field.use);
        return;
    }
    add_builtins(tp, f);
}

}  // namespace refscope::probe

// Labels for the interpreter's own object kinds: types, functions, code,
// cells, modules, methods, generators, frames and weak references.
//
// Field edges name the C-level field. A field that is a strong reference is
// EdgeMode::Owned (kept even where tp_traverse does not report it); a field
// whose ownership varies is EdgeMode::Traversed (kept only if reported).
#include "compat.h"
#include "cpython_internals.h"
#include "heap_walker.h"

namespace refscope::probe {

using format::EdgeKind;

namespace {

void add_cached_key(PyObject* key, void* context) {
    static_cast<EdgeCollector*>(context)->field(key, "ht_cached_keys", EdgeMode::OwnedUntraversed);
}

void label_type(PyObject* op, EdgeCollector& c) {
    auto* tp = reinterpret_cast<PyTypeObject*>(op);
    bool heap = (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0;
    c.field(compat::type_dict(tp), "__dict__", EdgeMode::Owned);
    c.field(tp->tp_mro, "__mro__", EdgeMode::Owned);
    c.field(tp->tp_bases, "__bases__", EdgeMode::Owned);
    // A static type's tp_base is a plain pointer to another static type.
    c.field(reinterpret_cast<PyObject*>(tp->tp_base), "__base__",
            heap ? EdgeMode::Owned : EdgeMode::NotOwned);
    c.field(rs_type_subclasses(tp), "__subclasses__", EdgeMode::Owned);
    if (!heap) return;
    auto* ht = reinterpret_cast<PyHeapTypeObject*>(tp);
    c.field(ht->ht_name, "__name__", EdgeMode::Owned);
    c.field(ht->ht_qualname, "__qualname__", EdgeMode::Owned);
    c.field(ht->ht_slots, "__slots__", EdgeMode::Owned);
    c.field(ht->ht_module, "ht_module", EdgeMode::Owned);
    // The shared key table of instance dicts / inline values holds one
    // reference to each attribute name, on behalf of all instances.
    rs_cached_keys_visit(tp, &add_cached_key, &c);
}

void label_function(PyObject* op, EdgeCollector& c) {
    auto* f = reinterpret_cast<PyFunctionObject*>(op);
    c.field(f->func_code, "__code__", EdgeMode::Owned);
    c.field(f->func_globals, "__globals__", EdgeMode::Owned);
    c.field(compat::function_builtins(f), "__builtins__", EdgeMode::Owned);
    c.field(f->func_module, "__module__", EdgeMode::Owned);
    c.field(f->func_defaults, "__defaults__", EdgeMode::Owned);
    c.field(f->func_kwdefaults, "__kwdefaults__", EdgeMode::Owned);
    c.field(f->func_doc, "__doc__", EdgeMode::Owned);
    c.field(f->func_name, "__name__", EdgeMode::Owned);
    c.field(f->func_qualname, "__qualname__", EdgeMode::Owned);
    c.field(f->func_dict, "__dict__", EdgeMode::Owned);
    c.field(f->func_closure, "__closure__", EdgeMode::Owned);
    c.field(f->func_annotations, "__annotations__", EdgeMode::Owned);
    c.field(compat::function_type_params(f), "__type_params__", EdgeMode::Owned);
}

void label_code(PyObject* op, EdgeCollector& c) {
    // Code objects are not GC objects: tp_traverse reports none of these.
    compat::visit_code_fields(reinterpret_cast<PyCodeObject*>(op), [&](const char* name, PyObject* v) {
        c.field(v, name, EdgeMode::Owned);
    });
}

// Locals of an interpreter frame (3.11+) as Local edges, plus the frame's
// strong fields, all as reported by _PyFrame_Traverse. 3.14+ frames may hold
// references that are not counted (borrowed stack references): tp_traverse
// reports them too, so they are matched, and shown, without being Owned;
// that includes value stack slots, which are otherwise left to the
// positional Reference edges.
void label_frame_data(const void* frame, EdgeCollector& c) {
    rs_frame_view view;
    if (!rs_frame_view_of(frame, &view) || view.code == nullptr) return;
    auto mode = [](int owned) { return owned ? EdgeMode::Traversed : EdgeMode::TraversedBorrowed; };
    auto* co = reinterpret_cast<PyCodeObject*>(view.code);
    c.field(view.code, "f_code", mode(view.code_owned));
    c.field(view.function, "f_func", mode(view.function_owned));
    c.field(view.locals, "f_locals", EdgeMode::Traversed);
    c.field(view.frame_obj, "frame_obj", EdgeMode::Traversed);
    for (int i = 0; i < view.nlocalsplus; ++i) {
        int owned = 0;
        PyObject* v = rs_frame_slot(&view, i, &owned);
        if (v == nullptr) continue;
        c.add(v, EdgeKind::Local, c.walker().python_text(compat::code_local_name(co, i)), mode(owned));
    }
    for (int i = view.nlocalsplus; i < view.stacktop; ++i) {
        int owned = 0;
        PyObject* v = rs_frame_slot(&view, i, &owned);
        if (v != nullptr && !owned) c.field(v, "value stack (borrowed)", EdgeMode::TraversedBorrowed);
    }
}

void label_generator(PyObject* op, EdgeCollector& c) {
    compat::visit_generator_fields(op, [&](const char* name, PyObject* v) {
        c.field(v, name, EdgeMode::Owned);
    });
    // 3.11+: the frame is embedded. While it runs, its locals are not
    // reported (stack depth -1): then they are explained by thread roots.
    if (const void* frame = rs_generator_frame(op)) label_frame_data(frame, c);
}

void label_frame_object(PyObject* op, EdgeCollector& c) {
#if PY_VERSION_HEX < 0x030B0000
    auto* f = reinterpret_cast<PyFrameObject*>(op);
    c.field(reinterpret_cast<PyObject*>(f->f_back), "f_back", EdgeMode::Traversed);
    c.field(reinterpret_cast<PyObject*>(f->f_code), "f_code", EdgeMode::Traversed);
    c.field(f->f_builtins, "f_builtins", EdgeMode::Traversed);
    c.field(f->f_globals, "f_globals", EdgeMode::Traversed);
    c.field(f->f_locals, "f_locals", EdgeMode::Traversed);
    c.field(f->f_trace, "f_trace", EdgeMode::Traversed);
    PyCodeObject* co = f->f_code;
    Py_ssize_t n = co->co_nlocals + PyTuple_GET_SIZE(co->co_cellvars) + PyTuple_GET_SIZE(co->co_freevars);
    for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* v = f->f_localsplus[i];
        if (v == nullptr) continue;
        c.add(v, EdgeKind::Local, c.walker().python_text(compat::code_local_name(co, i)),
              EdgeMode::Traversed);
    }
#else
    // Its own fields first (frame_traverse's order): f_back is what a
    // finished frame kept of its caller, otherwise a positional <ref #0>.
    auto traversed = [](PyObject* value, const char* field, void* context) {
        static_cast<EdgeCollector*>(context)->field(value, field, EdgeMode::Traversed);
    };
    rs_frame_object_fields_visit(op, traversed, &c);
    // A frame object owns frame data only after its frame finished (e.g.
    // kept by a traceback); a live frame's data belongs to the thread or
    // generator and is explained there.
    if (const void* frame = rs_frame_object_owned_frame(op)) label_frame_data(frame, c);
#endif
}

}  // namespace

void label_runtime_object(PyObject* op, const TypeFacts& facts, EdgeCollector& c) {
    switch (facts.kind) {
    case ObjectKind::Type: label_type(op, c); break;
    case ObjectKind::Function: label_function(op, c); break;
    case ObjectKind::Code: label_code(op, c); break;
    case ObjectKind::Cell: c.field(PyCell_GET(op), "cell_contents", EdgeMode::Owned); break;
    case ObjectKind::Module:
        c.field(PyModule_GetDict(op), "__dict__", EdgeMode::Owned);
        c.field(rs_module_name(op), "md_name", EdgeMode::Owned);
        break;
    case ObjectKind::Method:
        c.field(PyMethod_GET_FUNCTION(op), "__func__", EdgeMode::Owned);
        c.field(PyMethod_GET_SELF(op), "__self__", EdgeMode::Owned);
        break;
    case ObjectKind::CFunction: {
        auto* f = reinterpret_cast<PyCFunctionObject*>(op);
        c.field(f->m_self, "__self__", EdgeMode::Owned);
        c.field(f->m_module, "__module__", EdgeMode::Owned);
        if (f->m_ml != nullptr && (f->m_ml->ml_flags & METH_METHOD))
            c.field(reinterpret_cast<PyObject*>(reinterpret_cast<PyCMethodObject*>(op)->mm_class),
                    "mm_class", EdgeMode::Owned);
        break;
    }
    case ObjectKind::Generator: label_generator(op, c); break;
    case ObjectKind::Frame: label_frame_object(op, c); break;
    case ObjectKind::Descriptor: {
        // Method, wrapper, getset, member and classmethod descriptors share a
        // head (PyDescrObject) whose name and qualname are owned, not traversed.
        auto* d = reinterpret_cast<PyDescrObject*>(op);
        c.field(reinterpret_cast<PyObject*>(d->d_type), "__objclass__", EdgeMode::Owned);
        c.field(d->d_name, "__name__", EdgeMode::Owned);
        c.field(d->d_qualname, "__qualname__", EdgeMode::Owned);
        break;
    }
    case ObjectKind::Weakref: {
        auto* w = reinterpret_cast<PyWeakReference*>(op);
        // The referent is not owned: a weak edge explains nothing.
        if (w->wr_object != nullptr && w->wr_object != Py_None)
            c.add(w->wr_object, EdgeKind::Weak, 0, EdgeMode::NotOwned);
        c.field(w->wr_callback, "__callback__", EdgeMode::Traversed);
        break;
    }
    default: break;
    }
}

}  // namespace refscope::probe

// classify_type and collect_member_slots (see object_kinds.h).
#include "object_kinds.h"

#include "compat.h"

#include <frameobject.h>

#include <cstring>

namespace refscope::probe {

namespace {
destructor g_class_dealloc = nullptr;
}  // namespace

bool learn_class_dealloc() {
    PyObject* cls = PyObject_CallFunction(reinterpret_cast<PyObject*>(&PyType_Type), "s()N",
                                          "_refscope_class_probe", PyDict_New());
    if (cls == nullptr) {
        PyErr_Clear();
        return false;
    }
    g_class_dealloc = reinterpret_cast<PyTypeObject*>(cls)->tp_dealloc;
    Py_DECREF(cls);
    return g_class_dealloc != nullptr;
}

bool heap_type_made_by_c(PyTypeObject* tp) {
    return g_class_dealloc != nullptr && (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) && tp->tp_dealloc != g_class_dealloc;
}

TypeFacts classify_type(PyTypeObject* tp) {
    TypeFacts f;
    f.heap = (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0;
    f.gc = PyType_IS_GC(tp) != 0;
    f.has_tp_is_gc = tp->tp_is_gc != nullptr;
    auto is = [tp](PyTypeObject* base) { return tp == base || PyType_IsSubtype(tp, base); };
    auto set = [&](ObjectKind kind, PyTypeObject* base) {
        f.kind = kind;
        f.exact = tp == base;
    };
    if (tp == Py_TYPE(Py_None)) set(ObjectKind::None, tp);
    else if (tp == &PyBool_Type) set(ObjectKind::Bool, &PyBool_Type);
    else if (PyType_FastSubclass(tp, Py_TPFLAGS_LONG_SUBCLASS)) set(ObjectKind::Int, &PyLong_Type);
    else if (PyType_FastSubclass(tp, Py_TPFLAGS_UNICODE_SUBCLASS)) set(ObjectKind::Str, &PyUnicode_Type);
    else if (PyType_FastSubclass(tp, Py_TPFLAGS_BYTES_SUBCLASS)) set(ObjectKind::Bytes, &PyBytes_Type);
    else if (PyType_FastSubclass(tp, Py_TPFLAGS_TUPLE_SUBCLASS)) set(ObjectKind::Tuple, &PyTuple_Type);
    else if (PyType_FastSubclass(tp, Py_TPFLAGS_LIST_SUBCLASS)) set(ObjectKind::List, &PyList_Type);
    else if (PyType_FastSubclass(tp, Py_TPFLAGS_DICT_SUBCLASS)) set(ObjectKind::Dict, &PyDict_Type);
    else if (PyType_FastSubclass(tp, Py_TPFLAGS_TYPE_SUBCLASS)) set(ObjectKind::Type, &PyType_Type);
    else if (is(&PyFloat_Type)) set(ObjectKind::Float, &PyFloat_Type);
    else if (is(&PyByteArray_Type)) set(ObjectKind::ByteArray, &PyByteArray_Type);
    else if (is(&PySet_Type)) set(ObjectKind::Set, &PySet_Type);
    else if (is(&PyFrozenSet_Type)) set(ObjectKind::Set, &PyFrozenSet_Type);
    else if (tp == &PyFunction_Type) set(ObjectKind::Function, tp);
    else if (tp == &PyCode_Type) set(ObjectKind::Code, tp);
    else if (tp == &PyCell_Type) set(ObjectKind::Cell, tp);
    else if (is(&PyModule_Type)) set(ObjectKind::Module, &PyModule_Type);
    else if (tp == &PyMethod_Type) set(ObjectKind::Method, tp);
    else if (is(&PyCFunction_Type)) set(ObjectKind::CFunction, &PyCFunction_Type);
    else if (tp == &PyGen_Type || tp == &PyCoro_Type || tp == &PyAsyncGen_Type) set(ObjectKind::Generator, tp);
    else if (tp == &PyFrame_Type) set(ObjectKind::Frame, tp);
    else if (is(&_PyWeakref_RefType) || tp == &_PyWeakref_ProxyType || tp == &_PyWeakref_CallableProxyType)
        set(ObjectKind::Weakref, &_PyWeakref_RefType);
    else if (tp == &PyMethodDescr_Type || tp == &PyClassMethodDescr_Type || tp == &PyGetSetDescr_Type ||
             tp == &PyMemberDescr_Type || tp == &PyWrapperDescr_Type)
        set(ObjectKind::Descriptor, tp);
    // Named, because nothing in the type says so: the wrapper's tp_traverse
    // visits Py_TYPE(link) for every link of its LRU list (3.10+), which the
    // links, not the wrapper, hold; see HeapWalker::emit_edges.
    f.reports_link_types = std::strcmp(tp->tp_name, "functools._lru_cache_wrapper") == 0;
    return f;
}

namespace {

// sqlite3.Connection copies its module's exception types into ten object
// members (Warning, Error, InterfaceError...) without a reference of its
// own ("Borrowed refs" in Modules/_sqlite/connection.c, every version):
// named, because the members' declaration cannot say so.
bool member_is_borrowed(const PyTypeObject* declaring, const char* name) {
    if (std::strcmp(declaring->tp_name, "sqlite3.Connection") != 0) return false;
    const size_t n = std::strlen(name);
    return std::strcmp(name, "Warning") == 0 || (n >= 5 && std::strcmp(name + n - 5, "Error") == 0);
}

bool slot_taken(const std::vector<MemberSlot>& out, size_t begin, Py_ssize_t offset) {
    for (size_t i = begin; i < out.size(); ++i)
        if (out[i].offset == offset) return true;
    return false;
}

}  // namespace

void collect_member_slots(PyTypeObject* tp, const TypeFacts& facts, std::vector<MemberSlot>& out) {
    const size_t begin = out.size();
    // label_instance labels a heap type's instance dict from tp_dictoffset;
    // a C base may also declare that slot as a member (SimpleNamespace's
    // __dict__): one reference, labelled once, as the __dict__ Field.
    // Static types' instance dicts are labelled the same way (label_edges).
    Py_ssize_t dict_slot = 0;
    if (!compat::has_managed_dict(tp) && facts.kind != ObjectKind::Type &&
        facts.kind != ObjectKind::Module && tp->tp_dictoffset > 0)
        dict_slot = tp->tp_dictoffset;
    // tp_members is not inherited: each class lists its own, so the whole
    // base chain is read. Static types of a kind with its own labeller
    // (functions, descriptors...) end it: that labeller names their fields
    // already, and labelling a reference twice would count it twice.
    for (PyTypeObject* t = tp; t != nullptr; t = t->tp_base) {
        const bool heap = (t->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0;
        // Static dict subclasses (defaultdict's default_factory) are read:
        // dict itself declares no members.
        if (!heap && facts.kind != ObjectKind::Other && facts.kind != ObjectKind::Dict) break;
        for (PyMemberDef* m = t->tp_members; m != nullptr && m->name != nullptr; ++m) {
            if (!compat::member_holds_object(m->type)) continue;
            // Two members naming one slot (staticmethod and classmethod
            // expose their callable as both __func__ and __wrapped__, 3.10+;
            // a subclass may re-declare a base's field) are one reference.
            if (m->offset == dict_slot || slot_taken(out, begin, m->offset)) continue;
            out.push_back({m->offset, m->name, member_is_borrowed(t, m->name)});
        }
    }
}

}  // namespace refscope::probe

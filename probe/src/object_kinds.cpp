// classify_type (see object_kinds.h).
#include "object_kinds.h"

#include "compat.h"

#include <frameobject.h>

namespace refscope::probe {

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
    for (PyTypeObject* t = tp; t != nullptr && !f.object_members; t = t->tp_base) {
        for (PyMemberDef* m = t->tp_members; m != nullptr && m->name != nullptr; ++m) {
            if (compat::member_holds_object(m->type)) {
                f.object_members = true;
                break;
            }
        }
    }
    return f;
}

}  // namespace refscope::probe

// Short value previews, computed in C from the object's fields: never via
// repr()/str(), which may be overridden in Python.
//   str        the first 48 code points (UTF-8), "…" appended when cut; an
//              absolute path (a str starting with '/') up to 200, so that a
//              module's __file__ under a deep virtual environment still
//              shows its site-packages folder (the suspects' tiers read it)
//   bytes      b'…' with the first 48 bytes, non-printables as \xNN
//   int        decimal when it fits in 64 bits, else "big int"
//   float      shortest round-trip decimal
//   bool/None  True, False, None
//   function, builtin function, type, module, code: their (qualified) name
//   list, tuple, dict, set, frozenset, bytearray: "len N"
// Type names are computed here too.
#include <charconv>
#include <cstring>

#include "compat.h"
#include "cpython_internals.h"
#include "heap_walker.h"
#include "python_text.h"

namespace refscope::probe {

namespace {
constexpr size_t kPreviewChars = 48;
constexpr size_t kPathPreviewChars = 200;

void append_number(std::string& out, long long v) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void append_length(std::string& out, Py_ssize_t n) {
    out += kLengthPreview;
    append_number(out, n);
}

void append_bytes(std::string& out, const char* data, Py_ssize_t size) {
    static const char hex[] = "0123456789abcdef";
    out += "b'";
    Py_ssize_t n = size < static_cast<Py_ssize_t>(kPreviewChars) ? size : static_cast<Py_ssize_t>(kPreviewChars);
    for (Py_ssize_t i = 0; i < n; ++i) {
        auto ch = static_cast<unsigned char>(data[i]);
        if (ch >= 0x20 && ch < 0x7F && ch != '\\' && ch != '\'') {
            out.push_back(static_cast<char>(ch));
        } else {
            out += "\\x";
            out.push_back(hex[ch >> 4]);
            out.push_back(hex[ch & 15]);
        }
    }
    out += size > n ? "'…" : "'";
}

void append_str(std::string& out, PyObject* op) {
    bool truncated = false;
    // op may be null or not a str (a module without a name): append_utf8 says so.
    const bool path = op != nullptr && PyUnicode_Check(op) && compat::str_is_ready(op) && PyUnicode_GET_LENGTH(op) > 0 &&
                      PyUnicode_READ_CHAR(op, 0) == '/';
    if (append_utf8(out, op, path ? kPathPreviewChars : kPreviewChars, &truncated) && truncated) out += "…";
}
}  // namespace

void type_names(PyTypeObject* tp, std::string& qualified, std::string& module) {
    qualified.clear();
    module.clear();
    if (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) {
        auto* ht = reinterpret_cast<PyHeapTypeObject*>(tp);
        PyObject* mod = dict_find_str(tp->tp_dict, "__module__");
        if (mod == nullptr || !append_utf8(module, mod, 200)) module = "builtins";
        if (module != "builtins") qualified = module + ".";
        if (!append_utf8(qualified, ht->ht_qualname, 200)) qualified += tp->tp_name;
        return;
    }
    // Static types: tp_name is "module.Name" for extension types and the bare
    // name for builtins.
    const char* name = tp->tp_name;
    const char* dot = std::strrchr(name, '.');
    qualified = name;
    if (dot != nullptr) module.assign(name, static_cast<size_t>(dot - name));
    else module = "builtins";
}

void preview_text(PyObject* op, const TypeFacts& facts, std::string& out) {
    switch (facts.kind) {
    case ObjectKind::None: out += "None"; break;
    case ObjectKind::Bool: out += op == Py_True ? "True" : "False"; break;
    case ObjectKind::Str: append_str(out, op); break;
    case ObjectKind::Int: {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(op, &overflow);
        if (overflow != 0) out += "big int";
        else if (v == -1 && PyErr_Occurred()) PyErr_Clear();
        else append_number(out, v);
        break;
    }
    case ObjectKind::Float: {
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, PyFloat_AS_DOUBLE(op));
        out.append(buf, r.ptr);
        break;
    }
    case ObjectKind::Bytes: append_bytes(out, PyBytes_AS_STRING(op), PyBytes_GET_SIZE(op)); break;
    case ObjectKind::Tuple: append_length(out, PyTuple_GET_SIZE(op)); break;
    case ObjectKind::List: append_length(out, PyList_GET_SIZE(op)); break;
    case ObjectKind::Dict: append_length(out, PyDict_GET_SIZE(op)); break;
    case ObjectKind::Set: append_length(out, PySet_GET_SIZE(op)); break;
    case ObjectKind::ByteArray: append_length(out, PyByteArray_GET_SIZE(op)); break;
    case ObjectKind::Type: {
        std::string name, module;
        type_names(reinterpret_cast<PyTypeObject*>(op), name, module);
        out += name;
        break;
    }
    case ObjectKind::Function: append_str(out, reinterpret_cast<PyFunctionObject*>(op)->func_qualname); break;
    case ObjectKind::CFunction: {
        auto* f = reinterpret_cast<PyCFunctionObject*>(op);
        if (f->m_ml && f->m_ml->ml_name) out += f->m_ml->ml_name;
        break;
    }
    case ObjectKind::Module: append_str(out, rs_module_name(op)); break;
    case ObjectKind::Code: {
        auto* co = reinterpret_cast<PyCodeObject*>(op);
#if PY_VERSION_HEX >= 0x030B0000
        append_str(out, co->co_qualname);
#else
        append_str(out, co->co_name);
#endif
        break;
    }
    default: break;
    }
}

}  // namespace refscope::probe

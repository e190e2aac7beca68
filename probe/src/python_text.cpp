// UTF-8 extraction and code-free look-ups (see python_text.h).
#include "python_text.h"

#include <cstdio>
#include <cstring>

#include "compat.h"
#include "cpython_internals.h"

namespace refscope::probe {

static void put_utf8(std::string& out, Py_UCS4 c) {
    if (c < 0x80) {
        out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;  // lone surrogate: not valid UTF-8
        out.push_back(static_cast<char>(0xE0 | (c >> 12)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (c >> 18)));
        out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
}

bool append_utf8(std::string& out, PyObject* str, size_t max_chars, bool* truncated) {
    if (truncated) *truncated = false;
    if (str == nullptr || !PyUnicode_Check(str) || !compat::str_is_ready(str)) return false;
    Py_ssize_t length = PyUnicode_GET_LENGTH(str);
    size_t n = static_cast<size_t>(length);
    if (n > max_chars) {
        n = max_chars;
        if (truncated) *truncated = true;
    }
    int kind = PyUnicode_KIND(str);
    const void* data = PyUnicode_DATA(str);
    if (kind == PyUnicode_1BYTE_KIND && PyUnicode_IS_ASCII(str)) {
        out.append(static_cast<const char*>(data), n);
        return true;
    }
    for (size_t i = 0; i < n; ++i) put_utf8(out, PyUnicode_READ(kind, data, static_cast<Py_ssize_t>(i)));
    return true;
}

bool str_equals(PyObject* op, const char* ascii) {
    if (op == nullptr || !PyUnicode_CheckExact(op) || !compat::str_is_ready(op)) return false;
    size_t len = std::strlen(ascii);
    if (static_cast<size_t>(PyUnicode_GET_LENGTH(op)) != len || !PyUnicode_IS_ASCII(op)) return false;
    return std::memcmp(PyUnicode_DATA(op), ascii, len) == 0;
}

PyObject* dict_find_str(PyObject* dict, const char* name) {
    if (dict == nullptr || !PyDict_Check(dict)) return nullptr;
    Py_ssize_t pos = 0;
    PyObject* key;
    PyObject* value;
    while (PyDict_Next(dict, &pos, &key, &value))
        if (str_equals(key, name)) return value;
    return nullptr;
}

PyObject* loaded_module_dict(const char* name) {
    PyObject* module = dict_find_str(PyImport_GetModuleDict(), name);
    return module != nullptr && PyModule_Check(module) ? PyModule_GetDict(module) : nullptr;
}

bool module_version(PyObject* module_dict, int& major, int& minor) {
    std::string text;
    PyObject* version = dict_find_str(module_dict, "__version__");
    if (version == nullptr || !append_utf8(text, version, 64)) return false;
    return std::sscanf(text.c_str(), "%d.%d", &major, &minor) == 2;
}

namespace {
struct AttributeSearch {
    const char* name;
    PyObject* found;
};
void match_attribute(PyObject* key, PyObject* value, void* context) {
    auto* search = static_cast<AttributeSearch*>(context);
    if (search->found == nullptr && str_equals(key, search->name)) search->found = value;
}
}  // namespace

PyObject* instance_attribute(PyObject* obj, const char* name) {
    PyTypeObject* tp = Py_TYPE(obj);
    if (compat::has_managed_dict(tp)) {
        AttributeSearch search{name, nullptr};
        PyObject* dict = nullptr;
        rs_managed_attributes(obj, &match_attribute, &search, &dict);
        if (search.found) return search.found;
        return dict_find_str(dict, name);
    }
    if (tp->tp_dictoffset == 0) return nullptr;
    PyObject** slot = _PyObject_GetDictPtr(obj);
    return slot ? dict_find_str(*slot, name) : nullptr;
}

}  // namespace refscope::probe

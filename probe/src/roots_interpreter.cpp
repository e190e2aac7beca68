// Interpreter roots: references held by the interpreter state itself, which
// no object in the graph accounts for.
//   count 1: sys.modules, the builtins dict, the sys dict, the interpreter
//            dict (each held once by PyInterpreterState), the interned strs'
//            dict when the collector tracks it (3.14+), the typing types the
//            interpreter creates (3.12+: TypeVar, ParamSpec, ...);
//   count n: names in the type attribute cache (3.10+), n = its entries;
//   count 0: ("all of its surplus") the saved copy of a single-phase
//            extension module's dict (PyModuleDef.m_base.m_copy: the
//            import system keeps it to re-create the module; held once by
//            the def, and on 3.13+ once more by the extensions cache);
//            static types and the interpreter's
//            singletons: None, True, False, Ellipsis, NotImplemented, small
//            ints (-5..256), the empty tuple/str/bytes and the 1-character
//            latin-1 strs. These are recognised by value when the walk
//            reaches them; on 3.12+ they are also immortal.
#include <algorithm>
#include <string>
#include <vector>

#include "compat.h"
#include "cpython_internals.h"
#include "heap_walker.h"
#include "python_text.h"

namespace refscope::probe {

using format::RootKind;

namespace {
void collect_name(PyObject* name, void* context) {
    static_cast<std::vector<PyObject*>*>(context)->push_back(name);
}

void add_interpreter_type(PyObject* type, const char* field, void* context) {
    auto& w = *static_cast<HeapWalker*>(context);
    std::string label = "interpreter cached_objects.";
    label += field;
    w.add_root(type, RootKind::Interpreter, kNoNode, w.text(label), 1);
}

// A single-phase extension module (PyModule_Create, m_size -1: pybind11's
// modules, torch._C, the probe's own) leaves the import system a shallow copy
// of its dict, reachable from no object: without a root it is an unexplained
// dict that shares every value with the module's own (and ranked as a suspect
// held from C). Found through each module in sys.modules: PyModule_GetDef
// only reads md_def, and the def's m_copy is a public field.
void add_module_dict_copies(HeapWalker& w, PyObject* modules) {
    std::vector<PyObject*> seen;
    Py_ssize_t pos = 0;
    PyObject* key = nullptr;
    PyObject* module = nullptr;
    while (PyDict_Next(modules, &pos, &key, &module)) {
        if (!PyModule_Check(module)) continue;
        PyModuleDef* def = PyModule_GetDef(module);
        if (def == nullptr || def->m_size != -1) continue;
        PyObject* copy = def->m_base.m_copy;
        if (copy == nullptr || !PyDict_CheckExact(copy)) continue;
        if (std::find(seen.begin(), seen.end(), copy) != seen.end()) continue;
        seen.push_back(copy);
        std::string label = "extension module dict copy (m_copy) of ";
        label += def->m_name != nullptr ? def->m_name : "?";
        // 0: all of its surplus, since the cache's own reference (3.13+) is
        // not read from the runtime's private tables.
        w.add_root(copy, RootKind::Interpreter, kNoNode, w.text(label), 0);
    }
}
}  // namespace

void add_interpreter_roots(HeapWalker& w) {
    std::vector<PyObject*> cached_names;
    rs_type_cache_visit(&collect_name, &cached_names);
    std::sort(cached_names.begin(), cached_names.end());
    uint32_t cache_label = w.text("type attribute cache");
    for (size_t i = 0; i < cached_names.size();) {
        size_t j = i;
        while (j < cached_names.size() && cached_names[j] == cached_names[i]) ++j;
        w.add_root(cached_names[i], RootKind::Interpreter, kNoNode, cache_label, static_cast<uint32_t>(j - i));
        i = j;
    }

    PyObject* modules = PyImport_GetModuleDict();
    w.add_root(modules, RootKind::Interpreter, kNoNode, w.text("sys.modules"), 1);
    if (PyDict_Check(modules)) add_module_dict_copies(w, modules);
    if (PyObject* builtins = dict_find_str(modules, "builtins"); builtins && PyModule_Check(builtins))
        w.add_root(PyModule_GetDict(builtins), RootKind::Interpreter, kNoNode,
                   w.text("interpreter builtins dict"), 1);
    if (PyObject* sys = dict_find_str(modules, "sys"); sys && PyModule_Check(sys))
        w.add_root(PyModule_GetDict(sys), RootKind::Interpreter, kNoNode,
                   w.text("interpreter sys dict"), 1);
    PyInterpreterState* interp = PyInterpreterState_Get();
    if (PyObject* d = PyInterpreterState_GetDict(interp))
        w.add_root(d, RootKind::Interpreter, kNoNode, w.text("interpreter dict"), 1);
    // Reached only when the collector tracks it (3.14+): no object holds it.
    if (PyObject* interned = w.interned_strings(); interned && PyObject_GC_IsTracked(interned))
        w.add_root(interned, RootKind::Interpreter, kNoNode, w.text("interned strings"), 1);
    rs_interpreter_types_visit(&add_interpreter_type, &w);
}

void add_singleton_root_if_any(HeapWalker& w, PyObject* op, const TypeFacts& facts) {
    const char* label = nullptr;
    switch (facts.kind) {
    case ObjectKind::None:
    case ObjectKind::Bool: label = "interpreter singleton"; break;
    case ObjectKind::Type:
        if (!(reinterpret_cast<PyTypeObject*>(op)->tp_flags & Py_TPFLAGS_HEAPTYPE)) label = "static type";
        break;
    case ObjectKind::Int:
        if (facts.exact) {
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(op, &overflow);
            if (overflow == 0 && v >= -5 && v <= 256) label = "small int";
        }
        break;
    case ObjectKind::Tuple:
        if (facts.exact && PyTuple_GET_SIZE(op) == 0) label = "empty tuple";
        break;
    case ObjectKind::Bytes:
        if (facts.exact && PyBytes_GET_SIZE(op) == 0) label = "empty bytes";
        break;
    case ObjectKind::Str:
        if (facts.exact && compat::str_is_ready(op)) {
            Py_ssize_t n = PyUnicode_GET_LENGTH(op);
            if (n == 0) label = "empty str";
            else if (n == 1 && PyUnicode_READ_CHAR(op, 0) < 256) label = "latin-1 character";
        }
        break;
    default:
        if (op == Py_Ellipsis || op == Py_NotImplemented) label = "interpreter singleton";
        break;
    }
    if (label != nullptr) w.add_root(op, format::RootKind::Interpreter, kNoNode, w.literal(label), 0);
}

}  // namespace refscope::probe

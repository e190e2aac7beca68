// The probe's pybind11 recogniser: C++ type names of pybind11 instances,
// keep_alive patients, default arguments held by function records, and
// every registered instance added to the walk (a self-cycle through a
// non-GC pybind11 instance is reachable from nothing else).
//
// Keyed on pybind11's own ABI contract: modules that share pybind11 internals
// publish them under PYBIND11_INTERNALS_ID
// ("__pybind11_internals_v5_gcc_libstdcpp_cxxabi1019__"), and pybind11 bumps
// the version in that id whenever `internals`, `type_info` or `instance`
// change layout. Where they are published and what the capsule holds changed:
//   internals v4 (2.10-2.13 on Python < 3.12): `builtins`, internals**;
//   v5 (2.12-2.13 on Python >= 3.12): the interpreter's state dict,
//       internals**; function record capsules are named by the internals;
//   v11+ (3.x): the state dict, std::unique_ptr<internals>*; function
//       records are objects of a pybind11_detail_function_record_* type.
//
// This file is compiled once per pybind11 release the build found
// (probe/CMakeLists.txt), with REFSCOPE_PYBIND11_RELEASE naming it (3_1_0)
// and that release's headers first on the include path. Each copy reads only
// the internals whose id matches the one its headers define (up to the
// compiler ABI number: recognise_pybind11.h), through those headers' own
// struct definitions; extensions built with an internals version, compiler or
// standard library no copy knows are not recognised, and nothing is read from
// them. pybind11's namespace is renamed per copy, so that two releases'
// inline functions and structs never meet in one module (one definition
// rule). pybind11 functions that could create internals or run Python code
// (get_internals, casts) are never called: only fields are read.
//
// Function records (default arguments) are not covered by that contract as
// strictly, so they are read only for functions found in the dicts of
// registered pybind11 types (methods, static and class methods) and of loaded
// modules (m.def), and only when the record points back at the function's
// PyMethodDef.
#include "describe_session.h"

#include "recognise_pybind11.h"

#ifndef REFSCOPE_PYBIND11_RELEASE
#error "compiled once per pybind11 release, with REFSCOPE_PYBIND11_RELEASE set (probe/CMakeLists.txt)"
#endif

#define REFSCOPE_PASTE2(a, b) a##b
#define REFSCOPE_PASTE(a, b) REFSCOPE_PASTE2(a, b)
// The release's own namespace: pybind11 spells it through this one token.
#define pybind11 REFSCOPE_PASTE(refscope_pybind11_, REFSCOPE_PYBIND11_RELEASE)

#include <pybind11/pybind11.h>

#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "heap_walker.h"
#include "python_text.h"

#if PYBIND11_VERSION_MAJOR >= 3
#include <pybind11/detail/function_record_pyobject.h>
#endif

namespace refscope::probe {
namespace {

namespace pyd = pybind11::detail;

struct Pybind11State {
    pyd::internals* internals = nullptr;
    // Function record holders (capsules, or 3.x record objects) -> record.
    std::unordered_map<PyObject*, pyd::function_record*> records;
};

// One per release per process: the recogniser's context must outlive the
// walk's calls, and the entry point refills it at the start of every walk.
Pybind11State g_state;

const std::vector<pyd::type_info*>* type_infos(PyTypeObject* tp) {
    auto& map = g_state.internals->registered_types_py;
    // Python subclasses get their own entry when their first instance is
    // made; fall back to the nearest registered base.
    for (PyTypeObject* t = tp; t != nullptr; t = t->tp_base) {
        auto it = map.find(t);
        if (it != map.end()) return &it->second;
    }
    return nullptr;
}

int describe_instance(const refscope_describe_api* api, refscope_describe_sink* sink, PyObject* self, void*) {
    if (g_state.internals == nullptr) return 0;
    auto* inst = reinterpret_cast<pyd::instance*>(self);
    const std::vector<pyd::type_info*>* infos = type_infos(Py_TYPE(self));
    if (infos == nullptr || infos->empty()) return 0;
    if (inst->simple_layout) {
        const pyd::type_info* info = infos->front();
        void* value = inst->simple_value_holder[0];
        if (inst->simple_holder_constructed && value != nullptr)
            api->cpp_object(sink, info->cpptype->name(), REFSCOPE_NAME_MANGLED, value, info->type_size);
    } else if (inst->nonsimple.values_and_holders != nullptr) {
        // [value*][holder]... then one status byte per type (instance::allocate_layout).
        size_t offset = 0;
        for (size_t i = 0; i < infos->size(); ++i) {
            const pyd::type_info* info = (*infos)[i];
            void* value = inst->nonsimple.values_and_holders[offset];
            if ((inst->nonsimple.status[i] & pyd::instance::status_holder_constructed) && value != nullptr)
                api->cpp_object(sink, info->cpptype->name(), REFSCOPE_NAME_MANGLED, value, info->type_size);
            offset += 1 + info->holder_size_in_ptrs;
        }
    }
    if (inst->has_patients) {
        auto it = g_state.internals->patients.find(self);
        if (it != g_state.internals->patients.end()) {
            // keep_alive<Nurse, Patient>: pybind11 holds a reference to each
            // patient in its internals, on behalf of this instance.
            for (PyObject* patient : it->second)
                api->object_edge(sink, REFSCOPE_SELF, patient, "pybind11 keep_alive patient", 0);
        }
    }
    return 0;
}

int describe_heap(const refscope_describe_api* api, refscope_describe_sink* sink, void*) {
    pyd::internals* internals = g_state.internals;
    if (internals == nullptr) return 0;
    for (const auto& entry : internals->registered_instances)
        api->include_object(sink, reinterpret_cast<PyObject*>(entry.second));
    // pybind11 creates these once and keeps one reference to each in its
    // internals for the life of the process.
    api->object_root(sink, reinterpret_cast<PyObject*>(internals->static_property_type),
                     "pybind11 internals: static_property_type", 1);
    api->object_root(sink, reinterpret_cast<PyObject*>(internals->default_metaclass),
                     "pybind11 internals: default_metaclass", 1);
    api->object_root(sink, internals->instance_base, "pybind11 internals: instance_base", 1);
    return 0;
}

// Default argument values of every overload in a function record's chain:
// the record owns a reference to each (function_record's destructor drops
// them), and nothing reports them to the collector.
int describe_record(const refscope_describe_api* api, refscope_describe_sink* sink, PyObject* self, void*) {
    auto found = g_state.records.find(self);
    if (found == g_state.records.end()) return 0;
    std::string label;
    pyd::function_record* rec = found->second;
    for (int overloads = 0; rec != nullptr && overloads < 64; rec = rec->next, ++overloads) {
        if (rec->args.size() > 256) break;
        // "_pybindfix.DefaultWrapper.__init__ default argument 'other'"
        // (or "_pybindfix.configure ..." for a module's function)
        PyObject* scope = rec->scope.ptr();
        std::string function;
        if (scope != nullptr && PyType_Check(scope)) {
            function = reinterpret_cast<PyTypeObject*>(scope)->tp_name + std::string(".");
        } else if (scope != nullptr && PyModule_Check(scope)) {
            PyObject* name = dict_find_str(PyModule_GetDict(scope), "__name__");
            if (name != nullptr && append_utf8(function, name, 200)) function += '.';
        }
        function += rec->name != nullptr ? rec->name : "?";
        for (const pyd::argument_record& arg : rec->args) {
            if (arg.value.ptr() == nullptr) continue;
            label = function + " default argument '" + (arg.name != nullptr ? arg.name : "?") + "'";
            api->object_edge(sink, REFSCOPE_SELF, arg.value.ptr(), label.c_str(), 0);
        }
    }
    return 0;
}

// The function record a cpp_function's m_self holds, or nullptr: a capsule
// (2.x; unnamed in internals v4, named by the internals' own string in v5)
// or, in 3.x, an object of pybind11's versioned function record type.
pyd::function_record* function_record_of(PyObject* holder) {
#if PYBIND11_VERSION_MAJOR >= 3
    namespace methods = pyd::function_record_PyTypeObject_methods;
    if (PyType_Check(holder) || std::strcmp(Py_TYPE(holder)->tp_name, methods::tp_qualname_impl) != 0) return nullptr;
    return reinterpret_cast<pyd::function_record_PyObject*>(holder)->cpp_func_rec;
#else
#if PYBIND11_INTERNALS_VERSION > 4
    const char* name = g_state.internals->function_record_capsule_name.c_str();
#else
    const char* name = nullptr;
#endif
    // The name is compared by address, as pybind11 does. An unnamed capsule
    // (v4) could be any extension's, now that modules' functions are read
    // too: pybind11's keeps its destructor as the capsule's context.
    if (!PyCapsule_CheckExact(holder) || PyCapsule_GetName(holder) != name || !PyCapsule_IsValid(holder, name))
        return nullptr;
    if (name == nullptr && PyCapsule_GetContext(holder) == nullptr) return nullptr;
    return static_cast<pyd::function_record*>(PyCapsule_GetPointer(holder, name));
#endif
}

// staticmethod and classmethod objects keep their callable first after the
// object header (Objects/funcobject.c, 3.9 to 3.15); there is no C API for
// it that runs no code.
struct MethodWrapper {
    PyObject_HEAD
    PyObject* callable;
};

// Records the function record behind a pybind11 cpp_function found in a
// pybind11 type's dict or a module's; the record must name the function's
// own PyMethodDef.
void note_record(PyObject* value, Pybind11Claims& claims) {
    if (value == nullptr) return;
    if (PyInstanceMethod_Check(value)) value = PyInstanceMethod_GET_FUNCTION(value);
    if (Py_IS_TYPE(value, &PyStaticMethod_Type) || Py_IS_TYPE(value, &PyClassMethod_Type))
        value = reinterpret_cast<MethodWrapper*>(value)->callable;
    if (value == nullptr) return;
    if (!PyCFunction_Check(value)) return;
    auto* f = reinterpret_cast<PyCFunctionObject*>(value);
    // The calling convention every cpp_function of this release has
    // (METH_VARARGS in 2.x, METH_FASTCALL in 3.x, with METH_KEYWORDS).
#if PYBIND11_VERSION_MAJOR >= 3
    constexpr int kFlags = METH_FASTCALL | METH_KEYWORDS;
#else
    constexpr int kFlags = METH_VARARGS | METH_KEYWORDS;
#endif
    if (f->m_self == nullptr || f->m_ml == nullptr || claims.count(f->m_self) != 0 ||
        (f->m_ml->ml_flags & ~METH_COEXIST) != kFlags)
        return;
    pyd::function_record* rec = function_record_of(f->m_self);
    if (rec == nullptr || rec->def != f->m_ml) return;
    g_state.records.emplace(f->m_self, rec);
    claims.insert(f->m_self);
}

// The internals behind the capsule of this release's id, or nullptr.
pyd::internals* internals_in(PyObject* capsule) {
    if (!PyCapsule_IsValid(capsule, nullptr)) return nullptr;
#if PYBIND11_VERSION_MAJOR >= 3
    auto* pp = static_cast<std::unique_ptr<pyd::internals>*>(PyCapsule_GetPointer(capsule, nullptr));
    return pp != nullptr ? pp->get() : nullptr;
#else
    auto** pp = static_cast<pyd::internals**>(PyCapsule_GetPointer(capsule, nullptr));
    return pp != nullptr ? *pp : nullptr;
#endif
}

}  // namespace

void REFSCOPE_PASTE(recognise_pybind11_, REFSCOPE_PYBIND11_RELEASE)(DescribeSession& session,
                                                                     Pybind11Claims& claims,
                                                                     ModuleFunctions& functions) {
    g_state.internals = nullptr;
    g_state.records.clear();
    PyObject* capsule = find_pybind11_internals(PYBIND11_INTERNALS_ID);
    pyd::internals* internals = capsule != nullptr ? internals_in(capsule) : nullptr;
    if (internals == nullptr) return;
    g_state.internals = internals;
    // Releases sharing an internals version share the internals: the first
    // to find them describes the instances. Function records are laid out by
    // the release that built each extension, which the id does not tell, so
    // every such release looks for the ones its layout reads (the record
    // must name its function's PyMethodDef), each record counted once.
    const bool owner = claims.insert(capsule).second;
    uint32_t index = 0;
    if (owner) {
        Describer instances;
        instances.library = "pybind11";
        instances.describe_instance = &describe_instance;
        instances.describe_heap = &describe_heap;
        instances.reports_members = false;
        index = session.add(nullptr, instances);
    }
    for (const auto& entry : internals->registered_types_py) {
        PyTypeObject* type = entry.first;
        if (owner) session.add_type(type, index);
        // Methods live in the type's dict as instancemethod(cpp_function).
        PyObject* dict = type->tp_dict;
        if (dict == nullptr || !PyDict_Check(dict)) continue;
        Py_ssize_t pos = 0;
        PyObject* key;
        PyObject* value;
        while (PyDict_Next(dict, &pos, &key, &value)) note_record(value, claims);
    }
    for (PyObject* function : functions.get()) note_record(function, claims);
    if (g_state.records.empty()) return;
    Describer records;
    records.library = "pybind11";
    records.describe_instance = &describe_record;
    records.reports_members = false;
    const uint32_t records_index = session.add(nullptr, records);
    for (const auto& entry : g_state.records) session.add_type(Py_TYPE(entry.first), records_index);
}

}  // namespace refscope::probe

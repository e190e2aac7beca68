// The probe's pybind11 recogniser: C++ type names of pybind11 instances,
// keep_alive patients, default arguments held by function records, and
// every registered instance added to the walk (a self-cycle through a
// non-GC pybind11 instance is reachable from nothing else).
//
// Keyed on pybind11's own ABI contract: all modules that share pybind11
// internals publish them in `builtins` under PYBIND11_INTERNALS_ID
// ("__pybind11_internals_v4_gcc_libstdcpp_cxxabi1017__"), and pybind11 bumps
// the version in that id whenever `internals`, `type_info` or `instance`
// change layout. The probe is compiled against one pybind11 (Debian's, found
// at configure time) and reads only the capsule whose id matches the one it
// was compiled with, through pybind11's own struct definitions. Modules built
// with another internals version, compiler or standard library publish
// another id: they are not recognised, and nothing is read from them.
//
// Function records (default arguments) are not covered by that contract as
// strictly, so they are read only for functions found in the dicts of
// registered pybind11 types, and only when the record points back at the
// function's PyMethodDef.
#include "describe_session.h"

#if REFSCOPE_HAVE_PYBIND11

#include <pybind11/pybind11.h>

#include <string>
#include <unordered_set>

#include "heap_walker.h"
#include "python_text.h"

namespace refscope::probe {
namespace {

namespace pyd = pybind11::detail;

struct Pybind11State {
    pyd::internals* internals = nullptr;
    std::unordered_set<PyObject*> record_capsules;
};

// One per process: the recogniser's context must outlive the walk's calls,
// and begin() refills it at the start of every walk.
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
    if (g_state.record_capsules.count(self) == 0) return 0;
    auto* rec = static_cast<pyd::function_record*>(PyCapsule_GetPointer(self, nullptr));
    std::string label;
    for (int overloads = 0; rec != nullptr && overloads < 64; rec = rec->next, ++overloads) {
        if (rec->args.size() > 256) break;
        // "_pybindfix.DefaultWrapper.__init__ default argument 'other'"
        PyObject* scope = rec->scope.ptr();
        std::string function;
        if (scope != nullptr && PyType_Check(scope)) function = reinterpret_cast<PyTypeObject*>(scope)->tp_name + std::string(".");
        function += rec->name != nullptr ? rec->name : "?";
        for (const pyd::argument_record& arg : rec->args) {
            if (arg.value.ptr() == nullptr) continue;
            label = function + " default argument '" + (arg.name != nullptr ? arg.name : "?") + "'";
            api->object_edge(sink, REFSCOPE_SELF, arg.value.ptr(), label.c_str(), 0);
        }
    }
    return 0;
}

// The function record capsule behind a pybind11 cpp_function found in a
// pybind11 type's dict, or nullptr. In internals v4 the capsule has no name;
// the record must name the function's own PyMethodDef.
PyObject* record_capsule(PyObject* value) {
    if (value == nullptr) return nullptr;
    if (PyInstanceMethod_Check(value)) value = PyInstanceMethod_GET_FUNCTION(value);
    if (!PyCFunction_Check(value)) return nullptr;
    auto* f = reinterpret_cast<PyCFunctionObject*>(value);
    PyObject* capsule = f->m_self;
    if (capsule == nullptr || !PyCapsule_CheckExact(capsule) || !PyCapsule_IsValid(capsule, nullptr)) return nullptr;
    auto* rec = static_cast<pyd::function_record*>(PyCapsule_GetPointer(capsule, nullptr));
    if (rec == nullptr || rec->def != f->m_ml) return nullptr;
    return capsule;
}

}  // namespace

void recognise_pybind11(DescribeSession& session) {
    g_state.internals = nullptr;
    g_state.record_capsules.clear();
    // pybind11 stores its internals in the builtins module's dict.
    PyObject* capsule = dict_find_str(loaded_module_dict("builtins"), PYBIND11_INTERNALS_ID);
    if (capsule == nullptr || !PyCapsule_IsValid(capsule, nullptr)) return;
    auto** pp = static_cast<pyd::internals**>(PyCapsule_GetPointer(capsule, nullptr));
    if (pp == nullptr || *pp == nullptr) return;
    g_state.internals = *pp;

    Describer instances;
    instances.library = "pybind11";
    instances.describe_instance = &describe_instance;
    instances.describe_heap = &describe_heap;
    const uint32_t index = session.add(nullptr, instances);
    for (const auto& entry : g_state.internals->registered_types_py) {
        PyTypeObject* type = entry.first;
        session.add_type(type, index);
        // Methods live in the type's dict as instancemethod(cpp_function).
        PyObject* dict = type->tp_dict;
        if (dict == nullptr || !PyDict_Check(dict)) continue;
        Py_ssize_t pos = 0;
        PyObject* key;
        PyObject* value;
        while (PyDict_Next(dict, &pos, &key, &value)) {
            if (PyObject* record = record_capsule(value)) g_state.record_capsules.insert(record);
        }
    }
    if (!g_state.record_capsules.empty()) {
        Describer records;
        records.library = "pybind11";
        records.describe_instance = &describe_record;
        session.add(&PyCapsule_Type, records);
    }
}

}  // namespace refscope::probe

#else  // no pybind11 headers at build time: nothing is recognised

namespace refscope::probe {
void recognise_pybind11(DescribeSession&) {}
}  // namespace refscope::probe

#endif

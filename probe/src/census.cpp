// census() (see census.h).
#define PY_SSIZE_T_CLEAN  // Py_BuildValue "s#" lengths are Py_ssize_t
#include "census.h"

#include <cstdint>

#include "heap_walker.h"

namespace refscope::probe {

namespace {

struct Entry {
    uint64_t address;
    uint64_t type_address;
    std::string name;
    std::string module;
};

std::string top_package(const std::string& module) {
    const size_t dot = module.find('.');
    return dot == std::string::npos ? module : module.substr(0, dot);
}

}  // namespace

PyObject* census(const Snapshot& s, const CensusFilter& filter) {
    std::vector<Entry> entries;
    std::string name, module;
    for (size_t i = 0; i < s.node_count(); ++i) {
        if (s.node_flags[i] & format::kNodeNative) continue;
        const TypeInfo& type = s.types[s.node_type[i]];
        if (!filter.types.empty()) {
            auto* tp = reinterpret_cast<PyTypeObject*>(type.type_address);
            bool match = false;
            for (PyTypeObject* wanted : filter.types) match = match || tp == wanted || PyType_IsSubtype(tp, wanted);
            if (!match) continue;
        }
        if (s.node_flags[i] & format::kNodeTypeObject) {
            type_names(reinterpret_cast<PyTypeObject*>(s.node_address[i]), name, module);
        } else {
            name.assign(s.strings.view(type.name));
            module.assign(s.strings.view(type.module));
        }
        if (filter.types.empty() && filter.excluded_packages.count(top_package(module)) != 0) continue;
        entries.push_back({s.node_address[i], type.type_address, name, module});
    }
    // Python objects from here on: nothing above may be read any more.
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(entries.size()));
    if (list == nullptr) return nullptr;
    for (size_t k = 0; k < entries.size(); ++k) {
        const Entry& e = entries[k];
        PyObject* item = Py_BuildValue("(KKs#s#)", static_cast<unsigned long long>(e.address),
                                       static_cast<unsigned long long>(e.type_address), e.name.data(),
                                       static_cast<Py_ssize_t>(e.name.size()), e.module.data(),
                                       static_cast<Py_ssize_t>(e.module.size()));
        if (item == nullptr) {
            Py_DECREF(list);
            return nullptr;
        }
        PyList_SET_ITEM(list, static_cast<Py_ssize_t>(k), item);
    }
    return list;
}

}  // namespace refscope::probe

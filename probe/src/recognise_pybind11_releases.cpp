// Runs the pybind11 recogniser of every pybind11 release the probe was built
// with (newest first), and finds the internals each may read.
//
// The list comes from the build: probe/CMakeLists.txt writes
// pybind11_releases.inc with one REFSCOPE_PYBIND11_RELEASE(3_1_0) line per
// header set it found (the system's pybind11-dev and the packages of
// packaging/fetch-third-party.sh), and compiles recognise_pybind11.cpp once
// for each, defining the function named below.
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "describe_session.h"
#include "python_text.h"
#include "recognise_pybind11.h"

#define REFSCOPE_PYBIND11_RELEASE(release) \
    void recognise_pybind11_##release(DescribeSession& session, Pybind11Claims& claims, ModuleFunctions& functions);

namespace refscope::probe {

#if REFSCOPE_HAVE_PYBIND11
#include "pybind11_releases.inc"
#endif

namespace {

// "_cxxabi1017" -> "_cxxabi1xxx" (see find_pybind11_internals).
std::string normalise_abi(const char* id, size_t length) {
    std::string text(id, length);
    static constexpr char kTag[] = "_cxxabi1";
    const size_t at = text.find(kTag);
    const size_t digits = at == std::string::npos ? 0 : at + sizeof(kTag) - 1;
    if (at != std::string::npos && digits + 3 <= text.size()) {
        bool numeric = true;
        for (size_t i = digits; i < digits + 3; ++i) numeric = numeric && text[i] >= '0' && text[i] <= '9';
        if (numeric) text.replace(digits, 3, "xxx");
    }
    return text;
}

PyObject* find_in(PyObject* dict, const std::string& wanted) {
    if (dict == nullptr || !PyDict_Check(dict)) return nullptr;
    Py_ssize_t pos = 0;
    PyObject* key;
    PyObject* value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        // Only compact ASCII keys can be pybind11's; their bytes are read in
        // place (nothing is encoded or cached in the str).
        if (!PyUnicode_CheckExact(key) || !PyUnicode_IS_COMPACT_ASCII(key)) continue;
        const auto* text = static_cast<const char*>(PyUnicode_DATA(key));
        const auto length = static_cast<size_t>(PyUnicode_GET_LENGTH(key));
        if (length < 22 || std::strncmp(text, "__pybind11_internals_v", 22) != 0) continue;
        if (normalise_abi(text, length) == wanted && PyCapsule_CheckExact(value)) return value;
    }
    return nullptr;
}

}  // namespace

const std::vector<PyObject*>& ModuleFunctions::get() {
    if (collected_) return functions_;
    collected_ = true;
    constexpr size_t kMaxModules = 1 << 16;  // more than any process has
    std::vector<PyObject*> pending;
    std::unordered_set<PyObject*> seen;
    Py_ssize_t pos = 0;
    PyObject* key;
    PyObject* value;
    PyObject* modules = PyImport_GetModuleDict();
    while (modules != nullptr && PyDict_Next(modules, &pos, &key, &value))
        if (PyModule_Check(value)) pending.push_back(value);
    while (!pending.empty() && seen.size() < kMaxModules) {
        PyObject* module = pending.back();
        pending.pop_back();
        if (!seen.insert(module).second) continue;
        PyObject* dict = PyModule_GetDict(module);
        pos = 0;
        while (dict != nullptr && PyDict_Next(dict, &pos, &key, &value)) {
            if (PyModule_Check(value)) pending.push_back(value);
            else if (PyCFunction_Check(value)) functions_.push_back(value);
        }
    }
    return functions_;
}

PyObject* find_pybind11_internals(const char* compiled_id) {
    const std::string wanted = normalise_abi(compiled_id, std::strlen(compiled_id));
    if (PyObject* found = find_in(PyInterpreterState_GetDict(PyInterpreterState_Get()), wanted)) return found;
    return find_in(loaded_module_dict("builtins"), wanted);
}

void recognise_pybind11(DescribeSession& session) {
    Pybind11Claims claims;
    ModuleFunctions functions;
#if REFSCOPE_HAVE_PYBIND11
#undef REFSCOPE_PYBIND11_RELEASE
#define REFSCOPE_PYBIND11_RELEASE(release) recognise_pybind11_##release(session, claims, functions);
#include "pybind11_releases.inc"
#else
    (void)session;
#endif
}

}  // namespace refscope::probe

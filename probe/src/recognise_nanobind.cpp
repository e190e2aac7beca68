// The probe's nanobind recogniser, compiled once per nanobind release the
// build found (probe/CMakeLists.txt; recognise_nanobind_releases.cpp runs
// them all): C++ type names and value pointers of nanobind instances,
// keep_alive patients, and every instance of nanobind's instance map added to
// the walk (nanobind instances are not GC objects, so a `w.value = w`
// self-cycle is reachable from nothing else).
//
// Keyed on nanobind's own contract between binaries: every extension of one
// nanobind domain finds the domain's shared state (`nb_internals`) in the
// interpreter's private dict under "__nb_internals_<abi tag>_<domain>__",
// where the tag holds NB_INTERNALS_VERSION (bumped whenever nb_internals,
// type_data or nb_inst change layout) and the platform ABI. Binaries whose
// tags differ never share state. This copy reads only capsules (named
// "nb_internals") whose tag has its release's internals version, through that
// release's own struct definitions (its src/nb_internals.h):
//   3.x   "<platform>_a<backend ABI>_v<N>" exactly as compiled here
//   2.x   "v<N>" then the platform: any compiler, but libstdc++ (the C++
//         containers in the internals are libstdc++'s, as in this build), and
//         not the limited API, free-threaded, debug or pre-release variants,
//         whose layouts differ. 2.5's tag also names the C++ ABI number of
//         the compiler (_cxxabi1017 for GCC 12, 1019 for GCC 14), which
//         changes no container layout, so any number is accepted.
// The layouts differ between releases in three places the code below names:
// the metaclass (2.x before 2.15: bound types are instances of a per-size
// metaclass derived from nb_meta; later: instances of nb_type), the instance
// state (bit fields of nb_inst, later an nb_inst_state), and the lifeline
// list (2.6+).
#include "describe_session.h"

#define REFSCOPE_NB_CAT2(a, b) a##b
#define REFSCOPE_NB_CAT(a, b) REFSCOPE_NB_CAT2(a, b)
#define REFSCOPE_NB_ENTRY REFSCOPE_NB_CAT(recognise_nanobind_, REFSCOPE_NANOBIND_RELEASE)

// The release's headers refuse Pythons it does not support; the build
// passes the range it was checked on.
#if PY_VERSION_HEX >= (0x03000000 | (REFSCOPE_NANOBIND_PY_FIRST_MINOR << 16)) && \
    PY_VERSION_HEX < (0x03000000 | (REFSCOPE_NANOBIND_PY_END_MINOR << 16)) && !defined(Py_GIL_DISABLED)

// Every release's copy is linked into one probe: renaming nanobind's and
// robin_map's namespaces keeps one release's inline functions and templates
// from standing in for another's (NB_NAMESPACE is not configurable in 2.x).
// Include paths in <...> are not macro-expanded, so the headers still resolve.
#define nanobind REFSCOPE_NB_CAT(refscope_nanobind_, REFSCOPE_NANOBIND_RELEASE)
#define tsl REFSCOPE_NB_CAT(refscope_tsl_, REFSCOPE_NANOBIND_RELEASE)
#include <nb_internals.h>

// 3.x's header defines the internals version; 2.x's is in a source file
// (nb_internals.cpp, later nb_abi.h), read by the build.
#if defined(NB_INTERNALS_VERSION) && NB_INTERNALS_VERSION != REFSCOPE_NANOBIND_INTERNALS
#error "nanobind headers do not match the internals version the build found"
#endif

#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "python_text.h"

namespace refscope::probe {
namespace {

namespace nbd = nanobind::detail;

#if NB_VERSION_MAJOR >= 3
// The capsule key of a domain is kKeyPrefix + domain + "__".
constexpr const char kKeyPrefix[] = "__nb_internals_" NB_INTERNALS_KEY "_";
#else
constexpr const char kKeyPrefix[] = "__nb_internals_v" NB_TOSTRING(REFSCOPE_NANOBIND_INTERNALS) "_";
#endif
constexpr const char kCapsuleName[] = "nb_internals";

// The three layout differences between releases (see the top of the file).
template <typename Internals>
bool is_bound_type(PyTypeObject* tp, const Internals* p) {
    PyTypeObject* meta = Py_TYPE(reinterpret_cast<PyObject*>(tp));
    if constexpr (requires { p->nb_type; })
        return meta == p->nb_type;
    else
        return Py_TYPE(reinterpret_cast<PyObject*>(meta)) == p->nb_meta;
}

template <typename Inst>
uint32_t state_of(const Inst* inst) {
    if constexpr (requires { inst->state.state; })
        return inst->state.state;
    else
        return inst->state;
}

template <typename Inst>
bool holds_keep_alive(const Inst* inst) {
    if constexpr (requires { inst->state.clear_keep_alive; })
        return inst->state.clear_keep_alive;
    else
        return inst->clear_keep_alive;
}

template <typename Internals>
PyObject* lifeline_of(const Internals* p) {
    if constexpr (requires { p->lifeline; })
        return p->lifeline;
    else
        return nullptr;
}

struct BoundType {
    const nbd::type_data* record;
    nbd::nb_internals* domain;
};

struct NanobindState {
    std::vector<nbd::nb_internals*> domains;
    // Every bound (C++) type of every domain. Python subclasses are found
    // through tp_base.
    std::unordered_map<PyTypeObject*, BoundType> bound_types;
};

// One per process and release: the recogniser's context must outlive the
// walk's calls, and the entry point refills it at the start of every walk.
NanobindState g_state;

// The bound type `tp` is or (a Python subclass) derives from; nullptr if none.
const BoundType* bound_type_of(PyTypeObject* tp) {
    for (int depth = 0; tp != nullptr && depth < 256; tp = tp->tp_base, ++depth) {
        const auto found = g_state.bound_types.find(tp);
        if (found != g_state.bound_types.end()) return &found->second;
    }
    return nullptr;
}

int describe_instance(const refscope_describe_api* api, refscope_describe_sink* sink, PyObject* self, void*) {
    const BoundType* bound = bound_type_of(Py_TYPE(self));
    if (bound == nullptr) return 0;
    const nbd::type_data* td = bound->record;
    nbd::nb_internals* p = bound->domain;
    auto* inst = reinterpret_cast<nbd::nb_inst*>(self);
    // Uninitialised instances (between __new__ and __init__) have no C++
    // object yet; relinquished ones point at a live object C++ now owns.
    // (The state values are the same in every release: 1 relinquished,
    // 2 ready.)
    const uint32_t state = state_of(inst);
    if (state == 2 || state == 1) {
        void* value = nbd::inst_ptr(inst);
        if (value != nullptr && td->type != nullptr)
            api->cpp_object(sink, td->type->name(), REFSCOPE_NAME_MANGLED, value, td->size);
    }
    if (holds_keep_alive(inst)) {
        // keep_alive<Nurse, Patient>: nanobind holds one reference to each
        // patient in the nurse's list (entries with a callback are C++
        // payloads, not Python objects).
        for (size_t s = 0; s < p->shard_count; ++s) {
            const nbd::nb_ptr_map& keep_alive = p->shards[s].keep_alive;
            auto it = keep_alive.find(self);
            if (it == keep_alive.end()) continue;
            int guard = 0;
            for (auto* entry = static_cast<nbd::nb_weakref_seq*>(it->second); entry != nullptr && guard < 100000;
                 entry = entry->next, ++guard) {
                if (entry->callback == nullptr && entry->payload != nullptr)
                    api->object_edge(sink, REFSCOPE_SELF, static_cast<PyObject*>(entry->payload),
                                     "nanobind keep_alive patient", 0);
            }
        }
    }
    return 0;
}

// A Python object of the instance map, if it is alive: instances of pooled
// types (nb::pooled) stay in the map, dead (refcount 0), while they wait in
// their type's pool for reuse.
void include_instance(const refscope_describe_api* api, refscope_describe_sink* sink, void* entry) {
    auto* op = static_cast<PyObject*>(entry);
    if (op != nullptr && Py_REFCNT(op) > 0) api->include_object(sink, op);
}

int describe_heap(const refscope_describe_api* api, refscope_describe_sink* sink, void*) {
    for (nbd::nb_internals* p : g_state.domains) {
        for (size_t s = 0; s < p->shard_count; ++s) {
            for (const auto& entry : p->shards[s].inst_c2p) {
                void* value = entry.second;
                if (!nbd::nb_is_seq(value)) {
                    include_instance(api, sink, value);
                    continue;
                }
                // Several instances at one C++ address (a struct and its
                // first member).
                int guard = 0;
                for (nbd::nb_inst_seq* seq = nbd::nb_get_seq(value); seq != nullptr && guard < 100000;
                     seq = seq->next, ++guard)
                    include_instance(api, sink, seq->inst);
            }
        }
        // The domain's list of objects nanobind keeps alive for the life of
        // the domain (its metaclass, function types, interned strings).
        PyObject* lifeline = lifeline_of(p);
        if (lifeline != nullptr && PyList_Check(lifeline))
            api->object_root(sink, lifeline, "nanobind internals: lifeline", 1);
    }
    return 0;
}

// Whether the rest of a 2.x key, after "v<N>_", names a layout this copy
// reads (see the top of the file): the platform part, then "_" and the
// domain, not one of the variants. 3.x keys are compared whole.
bool platform_matches(const std::string& key) {
#if NB_VERSION_MAJOR >= 3
    (void)key;
    return true;
#else
    std::string_view rest(key);
    rest.remove_prefix(sizeof(kKeyPrefix) - 1);
    // 2.6 and later: GCC and Clang share one tag; libstdc++, C++11 ABI.
    static constexpr std::string_view kSystem = "system_libstdcpp_gxx_abi_1xxx_use_cxx11_abi_1";
    // 2.5 and earlier: <compiler>_libstdcpp_cxxabi1<3 digits>.
    static constexpr std::string_view kStdlib = "_libstdcpp_cxxabi1";
    if (rest.starts_with(kSystem)) {
        rest.remove_prefix(kSystem.size());
    } else {
        const size_t at = rest.find(kStdlib);
        if (at == std::string_view::npos) return false;
        const std::string_view compiler = rest.substr(0, at);
        if (compiler != "gcc" && compiler != "clang") return false;
        rest.remove_prefix(at + kStdlib.size());
        if (rest.size() < 3) return false;
        for (int i = 0; i < 3; ++i)
            if (rest[static_cast<size_t>(i)] < '0' || rest[static_cast<size_t>(i)] > '9') return false;
        rest.remove_prefix(3);
    }
    for (std::string_view variant : {"_stable_", "_ft_", "_debug_"})
        if (rest.starts_with(variant)) return false;
    return rest.starts_with("_");
#endif
}

}  // namespace

void REFSCOPE_NB_ENTRY(DescribeSession& session) {
    g_state.domains.clear();
    g_state.bound_types.clear();
    // nanobind keeps its domains in the interpreter's private dict.
    PyObject* interp_dict = PyInterpreterState_GetDict(PyInterpreterState_Get());
    if (interp_dict == nullptr || !PyDict_Check(interp_dict)) return;
    Py_ssize_t pos = 0;
    PyObject* key;
    PyObject* value;
    std::string text;
    while (PyDict_Next(interp_dict, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) continue;
        text.clear();
        bool truncated = false;
        if (!append_utf8(text, key, 512, &truncated) || truncated) continue;
        if (text.compare(0, sizeof(kKeyPrefix) - 1, kKeyPrefix) != 0 ||
            text.size() < sizeof(kKeyPrefix) - 1 + 2 || text.compare(text.size() - 2, 2, "__") != 0 ||
            !platform_matches(text))
            continue;
        // PyCapsule_IsValid sets no exception; GetPointer cannot fail after it.
        if (!PyCapsule_IsValid(value, kCapsuleName)) continue;
        auto* p = static_cast<nbd::nb_internals*>(PyCapsule_GetPointer(value, kCapsuleName));
        if (p == nullptr || p->shard_count != 1) continue;
        g_state.domains.push_back(p);
    }
    if (g_state.domains.empty()) return;

    Describer instances;
    instances.library = "nanobind";
    instances.describe_instance = &describe_instance;
    instances.describe_heap = &describe_heap;
    instances.reports_members = false;
    const uint32_t index = session.add(nullptr, instances);
    for (nbd::nb_internals* p : g_state.domains) {
        for (const auto& entry : p->type_c2p_slow) {
            const nbd::type_data* td = entry.second;
            // Enumerations share the map but are Python enum classes, not
            // instances of the domain's metaclass.
            if (td == nullptr || td->type_py == nullptr || !is_bound_type(td->type_py, p)) continue;
            g_state.bound_types[td->type_py] = BoundType{td, p};
            session.add_type(td->type_py, index);
        }
    }
}

}  // namespace refscope::probe

#else  // a Python this release does not support

namespace refscope::probe {
void REFSCOPE_NB_ENTRY(DescribeSession&) {}
}  // namespace refscope::probe

#endif

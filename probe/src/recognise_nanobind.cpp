// The probe's nanobind recogniser: C++ type names and value pointers of
// nanobind instances, keep_alive patients, and every instance of nanobind's
// instance map added to the walk (nanobind instances are not GC objects, so
// a `w.value = w` self-cycle is reachable from nothing else).
//
// Keyed on nanobind's own contract between binaries: every extension of one
// nanobind domain finds the domain's shared state (`nb_internals`) in the
// interpreter's private dict under
//     "__nb_internals_" NB_INTERNALS_KEY "_" <domain> "__"
// where NB_INTERNALS_KEY holds the platform ABI tag (compiler, standard
// library ABI, debug, free-threaded, pre-release), the backend ABI major and
// NB_INTERNALS_VERSION (bumped whenever nb_internals, type_data or nb_inst
// change layout), plus "_stable" under the limited API. Binaries whose keys
// differ never share state; the probe reads only the capsules (named
// "nb_internals") under a key equal to the one it was compiled with, through
// nanobind's own struct definitions (src/nb_internals.h of the nanobind
// source tree given as REFSCOPE_NANOBIND_DIR).
//
// Those definitions give the layout; what the fields mean (the tagged values
// of inst_c2p, dead pooled instances left in it, the keep_alive lists) was
// checked against one release only, so the recogniser also requires that
// release's internals version and backend ABI (kVerified* below) and
// compiles to nothing for any other nanobind source.
#include "describe_session.h"

// nanobind 3 supports Python 3.10 and later; its headers refuse older ones.
#if REFSCOPE_HAVE_NANOBIND && PY_VERSION_HEX >= 0x030A0000
#define REFSCOPE_NANOBIND_HEADERS 1

// nanobind's private header (from its src/ directory): nb_internals,
// type_data, nb_inst, nb_shard and the pointer maps, as nanobind's own
// backend compiles them.
#include <nb_internals.h>

// nanobind v3.0.0 (commit 1bd31397): internals version 22, backend ABI 1.
#if NB_INTERNALS_VERSION == 22 && NB_BACKEND_ABI_MAJOR == 1 && !defined(NB_FREE_THREADED) && !defined(Py_LIMITED_API)
#define REFSCOPE_NANOBIND_VERIFIED 1
#else
#define REFSCOPE_NANOBIND_VERIFIED 0
#endif

#else
#define REFSCOPE_NANOBIND_HEADERS 0
#endif

#if REFSCOPE_NANOBIND_HEADERS && REFSCOPE_NANOBIND_VERIFIED

#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "python_text.h"

namespace refscope::probe {
namespace {

namespace nbd = nanobind::detail;

// The capsule key of a domain is kKeyPrefix + domain + "__".
constexpr const char kKeyPrefix[] = "__nb_internals_" NB_INTERNALS_KEY "_";
constexpr const char kCapsuleName[] = "nb_internals";

struct NanobindState {
    std::vector<nbd::nb_internals*> domains;
    // Every bound (C++) type of every domain: its type record. Python
    // subclasses are found through tp_base.
    // (A type's domain is its record's `internals`.)
    std::unordered_map<PyTypeObject*, const nbd::type_data*> bound_types;
};

// One per process: the recogniser's context must outlive the walk's calls,
// and recognise_nanobind() refills it at the start of every walk.
NanobindState g_state;

// The record of the bound type `tp` is or (a Python subclass) derives from;
// nullptr if none.
const nbd::type_data* bound_type_of(PyTypeObject* tp) {
    for (int depth = 0; tp != nullptr && depth < 256; tp = tp->tp_base, ++depth) {
        const auto found = g_state.bound_types.find(tp);
        if (found != g_state.bound_types.end()) return found->second;
    }
    return nullptr;
}

int describe_instance(const refscope_describe_api* api, refscope_describe_sink* sink, PyObject* self, void*) {
    const nbd::type_data* td = bound_type_of(Py_TYPE(self));
    if (td == nullptr) return 0;
    nbd::nb_internals* p = td->internals;
    auto* inst = reinterpret_cast<nbd::nb_inst*>(self);
    // Uninitialised instances (between __new__ and __init__) have no C++
    // object yet; relinquished ones point at a live object C++ now owns.
    const uint8_t state = inst->state.state;
    if (state == nbd::nb_inst_state::state_ready || state == nbd::nb_inst_state::state_relinquished) {
        void* value = nbd::inst_ptr(inst);
        if (value != nullptr && td->type != nullptr)
            api->cpp_object(sink, td->type->name(), REFSCOPE_NAME_MANGLED, value, td->size);
    }
    if (inst->state.clear_keep_alive) {
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
        if (p->lifeline != nullptr && PyList_Check(p->lifeline))
            api->object_root(sink, p->lifeline, "nanobind internals: lifeline", 1);
    }
    return 0;
}

bool starts_with(const std::string& text, const char* prefix) {
    return text.compare(0, std::strlen(prefix), prefix) == 0;
}

}  // namespace

void recognise_nanobind(DescribeSession& session) {
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
        if (!starts_with(text, kKeyPrefix) || text.size() < sizeof(kKeyPrefix) - 1 + 2 ||
            text.compare(text.size() - 2, 2, "__") != 0)
            continue;
        // PyCapsule_IsValid sets no exception; GetPointer cannot fail after it.
        if (!PyCapsule_IsValid(value, kCapsuleName)) continue;
        auto* p = static_cast<nbd::nb_internals*>(PyCapsule_GetPointer(value, kCapsuleName));
        if (p == nullptr || p->nb_type == nullptr || p->shard_count != 1) continue;
        g_state.domains.push_back(p);
    }
    if (g_state.domains.empty()) return;

    Describer instances;
    instances.library = "nanobind";
    instances.describe_instance = &describe_instance;
    instances.describe_heap = &describe_heap;
    const uint32_t index = session.add(nullptr, instances);
    for (nbd::nb_internals* p : g_state.domains) {
        for (const auto& entry : p->type_c2p_slow) {
            const nbd::type_data* td = entry.second;
            // Enumerations share the map but are Python enum classes, not
            // instances of the domain's metaclass.
            if (td == nullptr || td->type_py == nullptr || td->internals != p) continue;
            PyTypeObject* tp = td->type_py;
            if (reinterpret_cast<PyObject*>(Py_TYPE(reinterpret_cast<PyObject*>(tp))) !=
                reinterpret_cast<PyObject*>(p->nb_type))
                continue;
            g_state.bound_types[tp] = td;
            session.add_type(tp, index);
        }
    }
}

}  // namespace refscope::probe

#else  // no nanobind source at build time, Python 3.9, or a nanobind whose layout was not verified

namespace refscope::probe {
void recognise_nanobind(DescribeSession&) {}
}  // namespace refscope::probe

#endif

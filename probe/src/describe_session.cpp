// DescribeSession (see describe_session.h): the registry, the calls and the
// commit of their reports into the walk.
#include "describe_session.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "heap_walker.h"
#include "python_text.h"

namespace refscope::probe {

using format::EdgeKind;

namespace {

// The report being filled by the running callback. Callbacks run on the
// walking thread with the GIL held, and a walk cannot start while another
// runs (module.cpp's run_walk refuses one from this thread or from the live
// connection's), so one pointer is enough. The sink handed to a callback is
// this report's address; a sink kept past its call no longer matches and
// its reports are ignored.
CallReport* g_active_report = nullptr;
// Handle generations count across walks (under the GIL), so that a handle
// kept from any earlier call, in this walk or a previous one, never resolves.
uint32_t g_generation = 0;

}  // namespace

void CallReport::clear() {
    // Generation 0 is never used: with it, handle(0) would be 1 and a
    // caller's small made-up numbers could match.
    if (++g_generation == 0) g_generation = 1;
    generation = g_generation;
    for_instance = false;
    self = nullptr;
    self_begin = self_end = 0;
    reports = dropped = 0;
    library = 0;
    natives.clear();
    edges.clear();
    roots.clear();
    includes.clear();
}

bool CallReport::admit() {
    if (reports >= kMaxReportsPerCall) {
        ++dropped;
        return false;
    }
    ++reports;
    return true;
}

DescribeSession::DescribeSession(HeapWalker& walker) : walker_(walker) {
    lists_.emplace_back();
    report_.session = this;
}

DescribeSession::~DescribeSession() {
    if (g_active_report == &report_) g_active_report = nullptr;
}

CallReport* DescribeSession::active(refscope_describe_sink* sink) {
    auto* report = reinterpret_cast<CallReport*>(sink);
    return report != nullptr && report == g_active_report ? report : nullptr;
}

uint32_t DescribeSession::type_name_id(const char* name, uint32_t flags) {
    if (name == nullptr) return 0;
    if (flags & REFSCOPE_NAME_MANGLED) {
        // typeid(T).name() strings are static: cache by pointer. Demangling
        // allocates with malloc only; no Python object is involved.
        auto it = mangled_names_.find(name);
        if (it != mangled_names_.end()) return it->second;
        std::string text(name, bounded_length(name, kMaxTypeNameBytes));
        int status = 0;
        char* demangled = abi::__cxa_demangle(text.c_str(), nullptr, nullptr, &status);
        if (status == 0 && demangled != nullptr) {
            text.assign(demangled, bounded_length(demangled, kMaxTypeNameBytes));
        }
        std::free(demangled);
        const uint32_t id = walker_.text(text);
        mangled_names_.emplace(name, id);
        return id;
    }
    return walker_.text(std::string_view(name, bounded_length(name, kMaxTypeNameBytes)));
}

uint32_t DescribeSession::add(PyTypeObject* type, Describer describer) {
    const auto index = static_cast<uint32_t>(describers_.size());
    describer.library_id = walker_.text(describer.library);
    describers_.push_back(std::move(describer));
    ++stats_.registrations;
    if (describers_.back().describe_heap != nullptr) heap_describers_.push_back(index);
    if (type != nullptr) add_type(type, index);
    return index;
}

void DescribeSession::add_type(PyTypeObject* type, uint32_t index) {
    if (type == nullptr || index >= describers_.size() || describers_[index].describe_instance == nullptr) return;
    std::vector<uint32_t>& list = by_type_[type];
    if (std::find(list.begin(), list.end(), index) == list.end()) list.push_back(index);
}

void DescribeSession::read_registry() {
    PyObject* interp_dict = PyInterpreterState_GetDict(PyInterpreterState_Get());
    PyObject* registry = dict_find_str(interp_dict, REFSCOPE_DESCRIBE_REGISTRY_KEY);
    if (registry == nullptr || !PyList_Check(registry)) return;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(registry); ++i) {
        PyObject* entry = PyList_GET_ITEM(registry, i);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) continue;
        PyObject* type_ref = PyTuple_GET_ITEM(entry, 0);
        PyObject* capsule = PyTuple_GET_ITEM(entry, 1);
        // PyCapsule_IsValid sets no exception; GetPointer cannot fail after it.
        if (!PyCapsule_IsValid(capsule, REFSCOPE_DESCRIBE_REGISTRATION_CAPSULE)) continue;
        auto* r = static_cast<const refscope_describe_registration*>(
            PyCapsule_GetPointer(capsule, REFSCOPE_DESCRIBE_REGISTRATION_CAPSULE));
        // Fields up to `context` exist since 1.0; a larger struct is a newer
        // minor whose extra fields this probe does not know.
        constexpr size_t kKnownSize = offsetof(refscope_describe_registration, context) + sizeof(void*);
        if (r == nullptr || r->abi_major != REFSCOPE_DESCRIBE_ABI_MAJOR || r->struct_size < kKnownSize)
            continue;
        Describer d;
        if (r->library != nullptr) d.library.assign(r->library, bounded_length(r->library, 128));
        d.describe_instance = r->describe_instance;
        d.describe_heap = r->describe_heap;
        d.context = r->context;
        PyTypeObject* type = nullptr;
        if (type_ref != Py_None) {
            if (!PyWeakref_CheckRef(type_ref)) continue;
            // Read the referent without calling anything (a dead type: None).
            PyObject* target = reinterpret_cast<PyWeakReference*>(type_ref)->wr_object;
            if (target == nullptr || target == Py_None || !PyType_Check(target)) continue;
            type = reinterpret_cast<PyTypeObject*>(target);
        } else {
            d.describe_instance = nullptr;
        }
        if (d.describe_instance == nullptr && d.describe_heap == nullptr) continue;
        add(type, std::move(d));
    }
}

void DescribeSession::begin() {
    // The probe's recognisers first: a library's own callback, called after
    // them, can refine what they report (same nodes, more edges).
    recognise_pybind11(*this);
    recognise_nanobind(*this);
    recognise_numpy(*this);
    recognise_numba(*this);
    recognise_torch(*this);
    read_registry();
    for (uint32_t index : heap_describers_) {
        Describer& d = describers_[index];
        if (d.disabled) continue;
        report_.clear();
        report_.library = d.library_id;
        if (call(d, nullptr)) commit(report_, kNoNode, nullptr);
    }
}

bool DescribeSession::reports_members(uint32_t list) const {
    if (list >= lists_.size()) return false;
    for (uint32_t index : lists_[list])
        if (describers_[index].reports_members) return true;
    return false;
}

uint32_t DescribeSession::describers_for(PyTypeObject* tp) {
    if (by_type_.empty()) return 0;
    auto cached = list_of_type_.find(tp);
    if (cached != list_of_type_.end()) return cached->second;
    std::vector<uint32_t> list;
    auto add_base = [&](PyTypeObject* base) {
        auto it = by_type_.find(base);
        if (it == by_type_.end()) return;
        for (uint32_t d : it->second)
            if (std::find(list.begin(), list.end(), d) == list.end()) list.push_back(d);
    };
    // The MRO, read as a tuple (no code runs); a type not yet ready has none.
    PyObject* mro = tp->tp_mro;
    if (mro != nullptr && PyTuple_Check(mro)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); ++i) {
            PyObject* base = PyTuple_GET_ITEM(mro, i);
            if (PyType_Check(base)) add_base(reinterpret_cast<PyTypeObject*>(base));
        }
    } else {
        for (PyTypeObject* t = tp; t != nullptr; t = t->tp_base) add_base(t);
    }
    uint32_t id = 0;
    if (!list.empty()) {
        id = static_cast<uint32_t>(lists_.size());
        lists_.push_back(std::move(list));
    }
    list_of_type_.emplace(tp, id);
    return id;
}

bool DescribeSession::call(Describer& d, PyObject* self) {
    ++stats_.calls;
    g_active_report = &report_;
    auto* sink = reinterpret_cast<refscope_describe_sink*>(&report_);
    int rc = -1;
    // The library's helpers catch their own exceptions; this guard is for
    // callbacks written without them.
    try {
        rc = self != nullptr ? d.describe_instance(describe_api(), sink, self, d.context)
                             : d.describe_heap(describe_api(), sink, d.context);
    } catch (...) {
        rc = -1;
    }
    g_active_report = nullptr;
    if (PyErr_Occurred()) {
        // The callback used the C API in a way that failed: its reports
        // cannot be trusted, and the exception must not leak to the caller.
        PyErr_Clear();
        rc = -1;
    }
    stats_.dropped_reports += report_.dropped;
    if (rc == 0) return true;
    ++stats_.failed_calls;
    if (++d.failures >= kMaxFailuresPerWalk && !d.disabled) {
        d.disabled = true;
        ++stats_.disabled;
    }
    return false;
}

void DescribeSession::describe_instance(PyObject* op, uint32_t node, uint64_t shallow_size,
                                        uint32_t list, EdgeCollector& collector) {
    if (list >= lists_.size()) return;
    for (uint32_t index : lists_[list]) {
        Describer& d = describers_[index];
        if (d.disabled) continue;
        report_.clear();
        report_.for_instance = true;
        report_.self = op;
        report_.self_begin = reinterpret_cast<uint64_t>(op);
        report_.self_end = report_.self_begin + shallow_size;
        report_.library = d.library_id;
        if (call(d, op)) commit(report_, node, &collector);
    }
}

// Applies a successful call's reports. Native handles are 1-based indexes
// into report.natives (0 is the instance); anything that does not resolve is
// dropped.
void DescribeSession::commit(CallReport& report, uint32_t self_node, EdgeCollector* collector) {
    const bool instance = report.for_instance && collector != nullptr && self_node != kNoNode;
    local_nodes_.assign(report.natives.size(), kNoNode);
    writable_.assign(report.natives.size(), 0);
    const uint32_t cpp_label = walker_.literal("C++ object");
    for (size_t k = 0; k < report.natives.size(); ++k) {
        const CallReport::Native& n = report.natives[k];
        uint64_t size = n.size;
        // Bytes inside the Python object are already its shallow size.
        if (instance && n.address >= report.self_begin && n.address < report.self_end) size = 0;
        bool created = false;
        bool writable = false;
        const uint32_t type = walker_.native_type(n.type_name, report.library);
        const uint32_t reporter = instance ? self_node : HeapWalker::kHeapReporter;
        local_nodes_[k] = walker_.native_node(type, n.address, size, n.refcount, n.preview, report.library,
                                              reporter, created, writable);
        writable_[k] = writable;
        if (created) ++stats_.native_nodes;
        if (n.cpp_object && instance) {
            bool seen = false;
            for (const auto& e : collector->node_edges) seen = seen || e.node == local_nodes_[k];
            if (!seen) {
                collector->node_edges.push_back({local_nodes_[k], cpp_label, format::kEdgeOwned});
                walker_.note_native_in_edge(local_nodes_[k], true);
            }
        }
    }
    auto resolve = [&](refscope_node handle, bool& writable) -> uint32_t {
        writable = false;
        const size_t k = report.index_of(handle);
        if (k == SIZE_MAX) return kNoNode;
        writable = writable_[k] != 0;
        return local_nodes_[k];
    };
    for (const CallReport::Edge& e : report.edges) {
        const uint8_t flags = e.owned ? format::kEdgeOwned : 0;
        bool from_writable = false;
        const bool from_self = e.from == REFSCOPE_SELF;
        const uint32_t from = from_self ? self_node : resolve(e.from, from_writable);
        if (from_self ? !instance : (from == kNoNode || !from_writable)) {
            ++stats_.dropped_reports;  // no source, or a node another object described
            continue;
        }
        if (e.object != nullptr) {
            if (from_self) {
                collector->add(e.object, e.attribute && e.label != 0 ? EdgeKind::Field : EdgeKind::Native,
                               e.label, e.owned ? EdgeMode::Owned : EdgeMode::NotOwned);
            } else {
                const uint32_t index = walker_.add_native_edge(from, e.object, e.label, flags);
                if (instance && e.owned) collector->native_matches.push_back(index);
            }
            continue;
        }
        bool to_writable = false;
        const uint32_t to = resolve(e.native, to_writable);
        if (to == kNoNode) {
            ++stats_.dropped_reports;
            continue;
        }
        if (from_self) {
            collector->node_edges.push_back({to, e.label, flags});
            walker_.note_native_in_edge(to, e.owned);
        } else {
            walker_.add_native_edge(from, to, e.label, flags);
        }
    }
    for (const CallReport::Root& r : report.roots) {
        if (r.object != nullptr) {
            walker_.add_root(r.object, format::RootKind::Extension, kNoNode, r.label, r.count);
            continue;
        }
        bool writable = false;
        const uint32_t node = resolve(r.native, writable);
        if (node == kNoNode) {
            ++stats_.dropped_reports;
            continue;
        }
        walker_.add_node_root(node, format::RootKind::Extension, r.label, 0);
    }
    for (PyObject* op : report.includes) walker_.node_for(op);
}

}  // namespace refscope::probe

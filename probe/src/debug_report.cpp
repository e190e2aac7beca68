// TEST HOOK ONLY (see debug_report.h).
#include "debug_report.h"

#include <algorithm>
#include <string>

namespace refscope::probe {

namespace {

using format::EdgeKind;

std::string label_text(const Snapshot& s, uint32_t kind, uint32_t label) {
    switch (static_cast<EdgeKind>(kind)) {
    case EdgeKind::DictValue:
    case EdgeKind::Attribute:
        return label < s.node_count() ? std::string(s.strings.view(s.node_preview[label])) : std::string();
    case EdgeKind::Index:
    case EdgeKind::Reference: return std::to_string(label);
    case EdgeKind::Slot:
    case EdgeKind::Field:
    case EdgeKind::Local:
    case EdgeKind::Native: return std::string(s.strings.view(label));
    default: return std::string();
    }
}

PyObject* text(std::string_view s) { return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"); }

// Steals `value`; returns false on error.
bool set_item(PyObject* dict, const char* key, PyObject* value) {
    if (value == nullptr) return false;
    int rc = PyDict_SetItemString(dict, key, value);
    Py_DECREF(value);
    return rc == 0;
}

}  // namespace

PyObject* debug_report(const Snapshot& s, const std::vector<uint64_t>& watch) {
    size_t n = s.node_count();
    std::vector<int64_t> owned_in(n, 0);
    // Each edge's source is held as first-edge offsets (the probe's
    // Snapshot::edge_first) or as a column (a hand-built snapshot):
    // either way they must say that edges are grouped by source.
    const size_t edges = s.edge_count();
    const bool grouped =
        s.edge_first.empty()
            ? s.edge_source.size() == edges && std::is_sorted(s.edge_source.begin(), s.edge_source.end())
            : s.edge_first.size() == n + 1 && s.edge_first.front() == 0 && s.edge_first.back() == edges &&
                  std::is_sorted(s.edge_first.begin(), s.edge_first.end());
    bool ids_valid = grouped && (s.edge_source.empty() || s.edge_source.back() < n);
    for (size_t e = 0; e < edges; ++e) {
        if (s.edge_target[e] >= n) {
            ids_valid = false;
            continue;
        }
        if (s.edge_flags[e] & format::kEdgeOwned) owned_in[s.edge_target[e]] += 1;
    }
    std::vector<int64_t> explained(n, 0);
    std::vector<uint8_t> all_explained(n, 0);
    for (const RootRef& r : s.roots) {
        if (r.node >= n) {
            ids_valid = false;
            continue;
        }
        if (r.count == 0) all_explained[r.node] = 1;
        else explained[r.node] += r.count;
    }
    // surplus = refcount - owned in-edges - explained root references
    std::vector<std::pair<int64_t, uint32_t>> unexplained;
    std::vector<std::pair<int64_t, uint32_t>> negative;
    int64_t unexplained_total = 0;
    for (size_t i = 0; i < n; ++i) {
        // Immortal refcounts are meaningless; native nodes' are C++ counts.
        if (all_explained[i] || (s.node_flags[i] & (format::kNodeImmortal | format::kNodeNative))) continue;
        int64_t surplus = s.node_refcount[i] - owned_in[i] - explained[i];
        if (surplus > 0) {
            unexplained_total += surplus;
            unexplained.push_back({surplus, static_cast<uint32_t>(i)});
        } else if (surplus < 0) {
            negative.push_back({surplus, static_cast<uint32_t>(i)});
        }
    }
    std::sort(unexplained.rbegin(), unexplained.rend());
    std::sort(negative.begin(), negative.end());

    auto describe = [&](const std::vector<std::pair<int64_t, uint32_t>>& v) -> PyObject* {
        PyObject* list = PyList_New(0);
        if (list == nullptr) return nullptr;
        for (size_t k = 0; k < v.size() && k < 40; ++k) {
            uint32_t i = v[k].second;
            PyObject* item = Py_BuildValue("(NNLK)", text(s.strings.view(s.types[s.node_type[i]].name)),
                                           text(s.strings.view(s.node_preview[i])),
                                           static_cast<long long>(v[k].first),
                                           static_cast<unsigned long long>(s.node_address[i]));
            if (item == nullptr || PyList_Append(list, item) < 0) {
                Py_XDECREF(item);
                Py_DECREF(list);
                return nullptr;
            }
            Py_DECREF(item);
        }
        return list;
    };

    PyObject* result = PyDict_New();
    if (result == nullptr) return nullptr;
    bool ok = set_item(result, "nodes", PyLong_FromSize_t(n)) &&
              set_item(result, "edges", PyLong_FromSize_t(s.edge_count())) &&
              set_item(result, "roots", PyLong_FromSize_t(s.roots.size())) &&
              set_item(result, "types", PyLong_FromSize_t(s.types.size())) &&
              set_item(result, "strings", PyLong_FromSize_t(s.strings.size())) &&
              set_item(result, "edges_grouped", PyBool_FromLong(grouped)) &&
              set_item(result, "ids_valid", PyBool_FromLong(ids_valid)) &&
              set_item(result, "walk_ns", PyLong_FromUnsignedLongLong(s.header.walk_ns)) &&
              set_item(result, "unexplained_total", PyLong_FromLongLong(unexplained_total)) &&
              set_item(result, "unexplained", describe(unexplained)) &&
              set_item(result, "negative", describe(negative)) &&
              set_item(result, "argv_count", PyLong_FromSize_t(s.header.argv.size())) &&
              set_item(result, "executable", text(s.header.executable));
    if (!ok) {
        Py_DECREF(result);
        return nullptr;
    }
    PyObject* threads = PyList_New(0);
    if (!set_item(result, "threads", threads)) {
        Py_DECREF(result);
        return nullptr;
    }
    for (const ThreadInfo& t : s.threads) {
        PyObject* item = Py_BuildValue("(KNO)", static_cast<unsigned long long>(t.ident),
                                       text(s.strings.view(t.name)), t.is_main ? Py_True : Py_False);
        if (item == nullptr || PyList_Append(threads, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(result);
            return nullptr;
        }
        Py_DECREF(item);
    }

    PyObject* watched = PyDict_New();
    if (!set_item(result, "watch", watched)) {
        Py_DECREF(result);
        return nullptr;
    }
    for (uint64_t address : watch) {
        auto it = std::find(s.node_address.begin(), s.node_address.end(), address);
        if (it == s.node_address.end()) continue;
        auto i = static_cast<uint32_t>(it - s.node_address.begin());
        PyObject* in_edges = PyList_New(0);
        for (size_t e = 0; in_edges && ids_valid && e < edges; ++e) {
            if (s.edge_target[e] != i) continue;
            PyObject* item = Py_BuildValue("(iiNK)", static_cast<int>(s.edge_kind[e]),
                                           static_cast<int>(s.edge_flags[e]),
                                           text(label_text(s, s.edge_kind[e], s.edge_label[e])),
                                           static_cast<unsigned long long>(
                                               s.node_address[s.source_of(static_cast<uint32_t>(e))]));
            if (item == nullptr || PyList_Append(in_edges, item) < 0) Py_CLEAR(in_edges);
            Py_XDECREF(item);
        }
        PyObject* roots = PyList_New(0);
        for (const RootRef& r : s.roots) {
            if (!roots || r.node != i) continue;
            PyObject* item = Py_BuildValue("(iNIi)", static_cast<int>(r.kind), text(s.strings.view(r.label)),
                                           r.count, r.thread == kNoNode ? -1 : static_cast<int>(r.thread));
            if (item == nullptr || PyList_Append(roots, item) < 0) Py_CLEAR(roots);
            Py_XDECREF(item);
        }
        PyObject* info = Py_BuildValue(
            "{s:L,s:L,s:i,s:K,s:N,s:N,s:I,s:N,s:N}", "refcount", static_cast<long long>(s.node_refcount[i]),
            "owned_in", static_cast<long long>(owned_in[i]), "flags", static_cast<int>(s.node_flags[i]), "size",
            static_cast<unsigned long long>(s.node_size[i]), "type",
            text(s.strings.view(s.types[s.node_type[i]].name)), "preview", text(s.strings.view(s.node_preview[i])),
            "preview_id", static_cast<unsigned int>(s.node_preview[i]), "in_edges", in_edges, "roots", roots);
        PyObject* key = PyLong_FromUnsignedLongLong(address);
        if (info == nullptr || key == nullptr || PyDict_SetItem(watched, key, info) < 0) {
            Py_XDECREF(info);
            Py_XDECREF(key);
            Py_DECREF(result);
            return nullptr;
        }
        Py_DECREF(info);
        Py_DECREF(key);
    }
    return result;
}

}  // namespace refscope::probe

// Native nodes: the C/C++ objects recognisers and describe callbacks name
// (their types, edges from and to them, in-edge counts) and the roots of
// native objects held by C/C++ code (see heap_walker.h for the overall order).
#include "heap_walker.h"

#include <algorithm>
#include <string>

namespace refscope::probe {

using format::EdgeKind;

uint32_t HeapWalker::native_type(uint32_t name, uint32_t library) {
    // Keyed on the name alone: the probe's pybind11 recogniser and the
    // module's own describe callback name the same C++ object with the same
    // type, which must give one node. The first library to report a name
    // becomes its module.
    const uint64_t key = name;
    auto it = native_types_.find(key);
    if (it != native_types_.end()) return it->second;
    TypeInfo info;
    info.name = name;
    info.module = library;
    info.type_address = 0;
    snapshot_.types.push_back(info);
    type_facts_.push_back(TypeFacts{});  // keeps type_facts_ indexed by type id
    const auto id = static_cast<uint32_t>(snapshot_.types.size() - 1);
    native_types_.emplace(key, id);
    return id;
}

uint32_t HeapWalker::native_node(uint32_t type, uint64_t address, uint64_t size, int64_t refcount,
                                 uint32_t preview, uint32_t library, uint32_t reporter, bool& created,
                                 bool& writable) {
    const NativeKey key{address, type};
    auto it = native_index_.find(key);
    if (it != native_index_.end()) {
        const NativeRecord& r = natives_[it->second];
        created = false;
        writable = r.reporter == reporter;
        return r.node;
    }
    created = writable = true;
    // Its other columns wait in its record until the walk reaches it (as a
    // Python object's wait for process()).
    const auto node = static_cast<uint32_t>(snapshot_.node_address.size());
    snapshot_.node_address.push_back(address);
    NativeRecord record;
    record.node = node;
    record.library = library;
    record.reporter = reporter;
    record.type = type;
    record.preview = preview;
    record.size = size;
    record.refcount = refcount;
    native_index_.emplace(key, static_cast<uint32_t>(natives_.size()));
    natives_.push_back(record);
    return node;
}

namespace {
// The record of native node `node`, or nullptr if it is not native.
template <typename Records>
auto* find_record(Records& natives, uint32_t node) {
    // Native nodes are appended in node id order: binary search.
    auto it = std::lower_bound(natives.begin(), natives.end(), node,
                               [](const auto& r, uint32_t n) { return r.node < n; });
    return it != natives.end() && it->node == node ? &*it : nullptr;
}
template <typename Records>
auto& record_of(Records& natives, uint32_t node) {
    return *find_record(natives, node);
}
}  // namespace

// Appends `edge` to the out-edge list of native node `from`; returns its index.
uint32_t HeapWalker::link_native_edge(uint32_t from, const NativeEdge& edge) {
    NativeRecord& r = record_of(natives_, from);
    const auto index = static_cast<uint32_t>(native_edges_.size());
    native_edges_.push_back(edge);
    if (r.last_edge == kNoEdgeIndex) r.first_edge = index;
    else native_edges_[r.last_edge].next = index;
    r.last_edge = index;
    return index;
}

uint32_t HeapWalker::add_native_edge(uint32_t from, PyObject* target, uint32_t label, uint8_t flags) {
    return link_native_edge(from, {target, kNoNode, label, kNoEdgeIndex, flags});
}

void HeapWalker::add_native_edge(uint32_t from, uint32_t to_node, uint32_t label, uint8_t flags) {
    link_native_edge(from, {nullptr, to_node, label, kNoEdgeIndex, flags});
    note_native_in_edge(to_node, (flags & format::kEdgeOwned) != 0);
}

void HeapWalker::note_native_in_edge(uint32_t node, bool owned) {
    NativeRecord& r = record_of(natives_, node);
    ++r.in_edges;
    if (owned) ++r.owned_in_edges;
}

void HeapWalker::add_node_root(uint32_t node, format::RootKind kind, uint32_t label, uint32_t count) {
    push_root(node, kind, kNoNode, label, count);
    // The node may not be processed yet (its flags may not exist): whether
    // it is native is whether it has a record.
    if (NativeRecord* record = find_record(natives_, node)) record->rooted = true;
}

void HeapWalker::process_native(const NativeRecord& r) {
    const uint32_t id = r.node;
    append_node_columns(r.type, r.size, r.refcount, format::kNodeNative);
    // Interned again with every other preview (finish_previews()): the same id.
    previews_.add(snapshot_.strings.view(r.preview));
    for (uint32_t e = r.first_edge; e != kNoEdgeIndex; e = native_edges_[e].next) {
        const NativeEdge& edge = native_edges_[e];
        if (edge.object != nullptr) pend(edge.object, nullptr, edge.label, EdgeKind::Native, edge.flags);
        else pend_node(edge.node, edge.label, edge.flags);
    }
    pending_end_[id % kResolveLag] = pending_.size();
}

// A native node that nothing in the graph holds is held by C/C++ code: the
// describer vouched that it exists, and no reported edge explains it. So is
// one whose own reference count (a C++ strong count, reported by its
// describer) is larger than the owned references the graph shows: a torch
// TensorImpl saved by the autograd graph, a MemInfo a compiled function keeps.
void HeapWalker::add_native_holder_roots() {
    for (const NativeRecord& r : natives_) {
        if (r.rooted) continue;
        const int64_t refcount = snapshot_.node_refcount[r.node];
        std::string label;
        if (r.in_edges == 0) {
            label = "held by C/C++ code";
        } else if (refcount > static_cast<int64_t>(r.owned_in_edges)) {
            label = "held by C/C++ code: " + std::to_string(refcount - r.owned_in_edges) + " of " +
                    std::to_string(refcount) + " references";
        } else {
            continue;
        }
        std::string_view library = snapshot_.strings.view(r.library);
        if (!library.empty()) label += " (described by " + std::string(library) + ")";
        push_root(r.node, format::RootKind::Extension, kNoNode, interner_.intern(label), 0);
    }
}

}  // namespace refscope::probe

// The walk loop, the start set, resolution of pending edges and refcount
// corrections (see heap_walker.h for the overall order).
#include "heap_walker.h"

#include "cpython_internals.h"

#include <algorithm>
#include <bitset>
#include <new>
#include <stdexcept>

#include "address_space.h"
#include "compat.h"
#include "describe_session.h"
#include "python_text.h"

namespace refscope::probe {

using format::EdgeKind;

void EdgeCollector::field(PyObject* target, const char* name, EdgeMode mode) {
    if (target != nullptr) add(target, EdgeKind::Field, walker_.literal(name), mode);
}

HeapWalker::HeapWalker(Snapshot& snapshot)
    : snapshot_(snapshot), interner_(snapshot.strings), nodes_(snapshot.node_address, 1 << 16), types_(256),
      literals_(512, {nullptr, 0}), collector_(*this),
      describe_(std::make_unique<DescribeSession>(*this)) {
    interned_strings_ = rs_interned_strings();
}

HeapWalker::~HeapWalker() { Py_XDECREF(start_list_); }

uint32_t HeapWalker::literal(const char* s) {
    size_t mask = literals_.size() - 1;
    size_t i = (reinterpret_cast<uintptr_t>(s) >> 3) & mask;
    for (size_t probes = 0; probes < literals_.size(); ++probes, i = (i + 1) & mask) {
        if (literals_[i].first == s) return literals_[i].second;
        if (literals_[i].first == nullptr) {
            literals_[i] = {s, interner_.intern(s)};
            return literals_[i].second;
        }
    }
    return interner_.intern(s);  // table full (never in practice): no caching
}

void HeapWalker::exclude(PyObject* op) {
    nodes_.exclude(reinterpret_cast<uint64_t>(op));
}

uint32_t HeapWalker::node_for(PyObject* op) {
    const auto address = reinterpret_cast<uint64_t>(op);
    // Only the address for a new node: process() appends the node's other
    // columns when it reaches it, and finish_previews() the preview column
    // (writing zeros here that process() overwrote cost a store per column
    // per node).
    const uint32_t id = nodes_.find_or_add(address, [&] { snapshot_.node_address.push_back(address); });
    return id == NodeMap::kExcluded ? kNoNode : id;
}

uint32_t HeapWalker::python_text(PyObject* str, size_t max_chars) {
    scratch_.clear();
    if (!append_utf8(scratch_, str, max_chars)) return 0;
    return interner_.intern(scratch_);
}

void HeapWalker::add_root(PyObject* op, format::RootKind kind, uint32_t thread, uint32_t label,
                          uint32_t count) {
    if (op == nullptr) return;
    uint32_t node = node_for(op);
    if (node == kNoNode) return;
    push_root(node, kind, thread, label, count);
}

void HeapWalker::push_root(uint32_t node, format::RootKind kind, uint32_t thread, uint32_t label,
                           uint32_t count) {
    RootRef root;
    root.node = node;
    root.kind = kind;
    root.thread = thread;
    root.label = label;
    root.count = count;
    snapshot_.roots.push_back(root);
}

uint32_t HeapWalker::add_thread(uint64_t ident, std::string_view name, bool is_main) {
    ThreadInfo info;
    info.ident = ident;
    info.name = interner_.intern(name);
    info.is_main = is_main;
    snapshot_.threads.push_back(info);
    return static_cast<uint32_t>(snapshot_.threads.size() - 1);
}

// ------------------------------------------------------------ start set

#if PY_VERSION_HEX >= 0x030C0000
static int visit_tracked(PyObject* op, void* list) {
    static_cast<std::vector<PyObject*>*>(list)->push_back(op);
    return 1;  // continue
}
#endif

void HeapWalker::reserve_for(size_t tracked) {
    // Reserve for the whole walk from the tracked count. A reservation costs
    // address space, not memory, until it is written, and it avoids vector
    // doubling: a copy of every column while the GIL is held, and the old
    // and the new block at once. So it is generous: untracked objects (str,
    // int, atomic tuples and dicts) come on top of the tracked ones, 3.4x
    // as many nodes and 5-6x as many edges on the benchmark heap, 5x and
    // 16x in a program that imported SymPy.
    //
    // Under an address-space limit (ulimit -v) the reservation is real
    // cost: what it takes, the rest of the walk (the map, the labeller's
    // buffers, columns growing past a small reservation) cannot have. So
    // there an attempt is made only if it takes at most half of what the
    // limit leaves; the less generous ones follow, then none, and the
    // columns grow as they fill. Without the rule a limit that let the
    // generous reservation through failed the walk later with MemoryError
    // (110 and 130 MB of headroom on tests/probe/test_address_space.py's
    // heap).
    struct Per {
        size_t nodes, edges;  // per tracked object
    };
    const std::optional<uint64_t> left = address_space_left();
    for (const Per per : {Per{8, 24}, Per{3, 5}}) {
        const size_t nodes = tracked * per.nodes + 4096, edges = tracked * per.edges + 4096;
        if (left && column_bytes(nodes, edges) > *left / 2) continue;
        try {
            reserve_columns(nodes, edges);
            break;
        } catch (const std::bad_alloc&) {
        }
    }
    // The map is made present when reserved (empty slots are zeros, see
    // ZeroedBlock): memory, not address space, so reserved for 2.5 nodes per
    // tracked object only; a heap with more makes it grow during the walk.
    nodes_.reserve(tracked * 5 / 2);
}

namespace {
// What column.reserve(n) reserves.
template <typename T>
size_t reserved_bytes(const std::vector<T>&, size_t n) {
    return n * sizeof(T);
}
template <typename Wide, typename Narrow>
size_t reserved_bytes(const NarrowColumn<Wide, Narrow>&, size_t n) {
    return n * sizeof(Narrow);  // escapes go to a side table
}
size_t reserved_bytes(const PackedColumn&, size_t n) { return PackedColumn::reserved_bytes(n); }
size_t reserved_bytes(const std::string&, size_t n) { return n; }

// Where a column's values are (ColumnPrefault).
template <typename T>
ColumnBlock block_of(const std::vector<T>& column) {
    return {column.data(), column.size() * sizeof(T), column.capacity() * sizeof(T), sizeof(T)};
}
ColumnBlock block_of(const std::string& column) { return {column.data(), column.size(), column.capacity(), 1}; }
template <typename Wide, typename Narrow>
ColumnBlock block_of(const NarrowColumn<Wide, Narrow>& column) {
    return block_of(column.narrow_values());
}
ColumnBlock block_of(const PackedColumn& column) { return block_of(column.packed_words()); }
}  // namespace

// Calls act(column, n) for every column the walk appends to, n being what a
// walk of `nodes` nodes and `edges` edges puts in it (the preview arena
// reckons 8 bytes of text per node).
template <typename Act>
void HeapWalker::each_column(size_t nodes, size_t edges, Act&& act) {
    Snapshot& s = snapshot_;
    act(s.node_address, nodes);
    act(s.node_type, nodes);
    act(s.node_size, nodes);
    act(s.node_refcount, nodes);
    act(s.node_flags, nodes);
    act(s.edge_first, nodes + 1);
    act(s.edge_target, edges);
    act(s.edge_kind, edges);
    act(s.edge_flags, edges);
    act(s.edge_label, edges);
    act(previews_.text(), nodes * 8);
    act(previews_.lengths(), nodes);
}

size_t HeapWalker::column_bytes(size_t nodes, size_t edges) {
    size_t bytes = 0;
    each_column(nodes, edges, [&](const auto& column, size_t n) { bytes += reserved_bytes(column, n); });
    return bytes;
}

// Makes the pages just past every column's end present (column_prefault.h):
// called every few thousand nodes, it keeps ahead of the writes.
void HeapWalker::prefault_columns() {
    size_t column = 0;
    each_column(0, 0, [&](const auto& values, size_t) { prefault_.ahead(column++, block_of(values)); });
}

// Reserves every column the walk appends to, or none: a failed attempt gives
// back what it had reserved, so that the next, smaller one has the room.
void HeapWalker::reserve_columns(size_t nodes, size_t edges) {
    try {
        each_column(nodes, edges, [](auto& column, size_t n) { column.reserve(n); });
    } catch (const std::bad_alloc&) {
        // The columns are still empty here (the start set comes next), so
        // shrinking frees their blocks (the packed label column keeps its
        // one 8-byte pad word).
        each_column(nodes, edges, [](auto& column, size_t) { column.shrink_to_fit(); });
        throw;
    }
}

// Interns the start set. Each insert is a cache miss in a large table, so the
// slot of the object 16 places ahead is prefetched.
void HeapWalker::add_start_objects(PyObject* const* objects, size_t count) {
    constexpr size_t kAhead = 16;
    reserve_for(count);
    for (size_t i = 0; i < count; ++i) {
        if (i + kAhead < count) nodes_.prefetch(reinterpret_cast<uint64_t>(objects[i + kAhead]));
        if (i % 4096 == 0) prefault_columns();
        node_for(objects[i]);
    }
}

void HeapWalker::add_start_set() {
#if PY_VERSION_HEX >= 0x030C0000
    // Reads the collector's lists directly; allocates no Python object.
    std::vector<PyObject*> tracked;
    PyUnstable_GC_VisitObjects(&visit_tracked, &tracked);
    add_start_objects(tracked.data(), tracked.size());
#else
    // Before 3.12 the generation lists are only reachable through the
    // interpreter's private state. gc.get_objects() (C code, no Python runs)
    // copies them into a list instead: one list the probe owns, excluded from
    // the snapshot, whose reference to each item is subtracted at the end.
    // This costs 8 bytes per tracked object but no layout assumptions.
    PyObject* gc = PyImport_ImportModule("gc");
    if (gc == nullptr) throw std::runtime_error("cannot import gc");
    PyObject* list = PyObject_CallMethod(gc, "get_objects", nullptr);
    Py_DECREF(gc);
    if (list == nullptr || !PyList_Check(list)) {
        Py_XDECREF(list);
        throw std::runtime_error("gc.get_objects() failed");
    }
    start_list_ = list;
    exclude(list);
    add_start_objects(reinterpret_cast<PyListObject*>(list)->ob_item,
                      static_cast<size_t>(PyList_GET_SIZE(list)));
    start_list_nodes_ = snapshot_.node_address.size();
#endif
    start_set_nodes_ = snapshot_.node_address.size();
}

// --------------------------------------------------------------- walk

void HeapWalker::walk() {
    add_start_set();
    add_interpreter_roots(*this);
    add_thread_roots(*this);
    // Registered describers and the probe's recognisers; heap callbacks add
    // their roots, native nodes and objects before the first object is processed.
    describe_->begin();
    // The buffer never grows past this (stream_pending); the slack lets
    // most nodes that pass kMaxPendingEdges finish without streaming.
    pending_.reserve(kMaxPendingEdges + 4096);
    // Software pipeline. Looking up an edge target in the node map is a cache
    // miss (the map is megabytes), and most objects have only a few edges,
    // so looking them up at once would wait for each miss in turn. Instead
    // node i's edges are matched and their map slots prefetched, and the
    // look-ups happen when node i + kResolveLag is processed. (A look-up
    // also reads the address its slot names in the address column,
    // node_map.h; prefetching that too, in a middle stage, cost more than
    // it hid: docs/performance-probe-cuts.md.) Resolution stays
    // in node order, so node ids and edge order are the same as without the
    // lag. The front only runs on nodes that exist: when it catches up with
    // the node count (or too many edges are pending), resolution catches up.
    uint32_t front = 0;
    resolved_ = 0;
    for (;;) {
        bool room = front - resolved_ < kResolveLag && pending_.size() - pending_head_ < kMaxPendingEdges;
        if (front < snapshot_.node_address.size() && room) {
            process(front++);
            if (front % 256 == 0) prefault_columns();
        } else if (resolved_ < front) {
            resolve(resolved_++);
            if (pending_head_ >= kMaxPendingEdges / 2) compact_pending(front);
        } else {
            break;
        }
    }
    add_native_holder_roots();
    snapshot_.end_edge_runs();
    if (dead_nodes_) disown_dead_targets();
    apply_adjustments();
    if (start_list_ != nullptr) {
        // The list held one reference to every object that was tracked.
        for (size_t i = 0; i < start_list_nodes_; ++i) snapshot_.node_refcount[i] -= 1;
        Py_CLEAR(start_list_);
    }
    // Needs the final refcounts and every owned edge and root.
    settle_inferred_edges();
}

// The type map stays (a few thousand entries, and freeing would allocate
// its replacement): all that is freed here is freed without allocating.
void HeapWalker::release_walk_tables() noexcept {
    nodes_.release();
    // And the scratch: the pending-edge queue (20 k edges, 480 KiB) and one
    // object's referents, their sort order and candidates, grown to the
    // largest such object's (a dict of a million entries: tens of MiB; an
    // exact list's or tuple's items are not copied). Freed before the
    // previews are interned, glibc hands the interning these blocks
    // (docs/performance-probe-cuts.md). Swapped with empty ones: `v = {}`
    // would assign an empty list and keep the capacity.
    const auto give_back = [](auto& container) { std::remove_reference_t<decltype(container)>().swap(container); };
    give_back(native_index_);
    give_back(native_edges_);
    give_back(pending_);
    pending_head_ = 0;
    give_back(refs_);
    give_back(consumed_);
    give_back(sorted_);
    give_back(group_next_);
    give_back(collector_.candidates);
}

void HeapWalker::finish_previews() {
    release_walk_tables();
    // Every non-empty preview may be a new string: reserve for all of them
    // and all their text (a reservation is address space until written; the
    // table's doublings would copy it and hold both copies). Except that
    // "len N" repeats: most small containers show one of a few lengths, so
    // each "len N" under 4096 is counted once (a third of the benchmark
    // heap's previews; the de-duplication table is most of the snapshot's
    // second memory peak, docs/performance-probe-cuts.md).
    const size_t count = previews_.count();
    size_t texts = 0;
    std::bitset<4096> lengths_seen;
    PreviewArena::Reader counter(previews_);
    for (size_t id = 0; id < count; ++id) {
        const std::string_view text = counter.next();
        if (text.empty()) continue;
        if (const int length = small_length_shown(text); length >= 0) {
            if (lengths_seen.test(static_cast<size_t>(length))) continue;
            lengths_seen.set(static_cast<size_t>(length));
        }
        ++texts;
    }
    interner_.reserve(texts, previews_.text_bytes());
    // The column is made here, after the walk's maps are freed, so it adds
    // nothing to the walk's peak.
    snapshot_.node_preview.reserve(count);
    // Each look-up is a cache miss in a table of a million slots: the
    // preview kAhead places on is hashed and its slot fetched early, its
    // hash kept in a ring until its turn (half of the interning's time
    // before, on the benchmark heap).
    constexpr size_t kAhead = 16;
    uint32_t ahead[kAhead] = {};  // 0 for an empty preview, never read
    PreviewArena::Reader front(previews_), back(previews_);
    const auto fetch = [&](size_t id) {
        const std::string_view text = front.next();
        if (text.empty()) return;  // most nodes: no preview, nothing to look up
        const uint32_t h = StringInterner::hash(text);
        interner_.prefetch(h);
        ahead[id % kAhead] = h;
    };
    for (size_t id = 0; id < std::min(count, kAhead); ++id) fetch(id);
    for (size_t id = 0; id < count; ++id) {
        const std::string_view text = back.next();
        const uint32_t h = ahead[id % kAhead];
        if (id + kAhead < count) fetch(id + kAhead);
        snapshot_.node_preview.push_back(text.empty() ? 0 : interner_.intern(text, h));
        if (id % 4096 == 0) previews_.discard_text_before(back.offset());
    }
    previews_.release();
    // Nothing is interned after this: give its table back before encoding.
    interner_.release();
}

void HeapWalker::apply_adjustments() {
    for (auto& [op, count] : adjustments_) {
        uint32_t id = nodes_.find(reinterpret_cast<uint64_t>(op));
        if (id == NodeMap::kMissing || id == NodeMap::kExcluded) continue;
        if (snapshot_.node_flags[id] & format::kNodeImmortal) continue;
        snapshot_.node_refcount[id] -= count;
    }
}

uint32_t HeapWalker::type_id_for(PyTypeObject* tp) {
    uint32_t id = types_.find(reinterpret_cast<uint64_t>(tp));
    if (id != AddressMap::kMissing) return id;
    std::string qualified, module;
    type_names(tp, qualified, module);
    TypeInfo info;
    info.name = interner_.intern(qualified);
    info.module = interner_.intern(module);
    info.type_address = reinterpret_cast<uint64_t>(tp);
    TypeFacts facts = classify_type(tp);
    facts.describers = describe_->describers_for(tp);
    // What the analysis needs to tell an instance whose C/C++ members nobody
    // reported (no tp_traverse, no describe callback) from one the collector
    // traverses: node flags cannot say it, as a GC type's instance may be
    // untracked (docs/format.md, "Types").
    // A pybind11 enum_ type (its dict keeps the `__entries` table) wraps a
    // C++ enum value: it has no member that could hold a Python object, so
    // it is not "bound" for the inference of C++ holders (torch.DispatchKey
    // reached through a function's globals named a false holder).
    const bool enum_value = tp->tp_dict != nullptr && PyDict_Check(tp->tp_dict) &&
                            dict_find_str(tp->tp_dict, "__entries") != nullptr;
    info.flags = static_cast<uint8_t>(format::kTypeFactsRecorded | (facts.gc ? format::kTypeHasGc : 0) |
                                      (describe_->reports_members(facts.describers) ? format::kTypeDescribed : 0) |
                                      (facts.describers != 0 && !enum_value ? format::kTypeBound : 0));
    snapshot_.types.push_back(info);
    facts.members_begin = static_cast<uint32_t>(member_slots_.size());
    collect_member_slots(tp, facts, member_slots_);
    collect_stdlib_fields(tp, facts, member_slots_);
    facts.members_count = static_cast<uint32_t>(member_slots_.size() - facts.members_begin);
    facts.scan_words = scans_words(tp, facts);
    type_facts_.push_back(facts);
    id = static_cast<uint32_t>(snapshot_.types.size() - 1);
    bool inserted = false;
    types_.insert(reinterpret_cast<uint64_t>(tp), id, inserted);
    return id;
}

int HeapWalker::collect_referent(PyObject* op, void* self) {
    if (op != nullptr) static_cast<HeapWalker*>(self)->refs_.push_back(op);
    return 0;
}

void HeapWalker::process(uint32_t id) {
    // The next objects' headers are almost always cache misses: start
    // loading them now (type and refcount are read first).
    if (id + 8 < snapshot_.node_address.size())
        __builtin_prefetch(reinterpret_cast<const void*>(snapshot_.node_address[id + 8]));
    // Nodes are processed once each, in id order: each appends its columns.
    if (snapshot_.node_flags.size() != id) throw std::logic_error("heap walker: nodes processed out of order");
    processing_ = id;
    if (next_native_ < natives_.size() && natives_[next_native_].node == id) {
        process_native(natives_[next_native_++]);
        return;
    }
    auto* op = reinterpret_cast<PyObject*>(snapshot_.node_address[id]);
    PyTypeObject* tp = Py_TYPE(op);
    uint32_t type_id = type_id_for(tp);
    const TypeFacts facts = type_facts_[type_id];
    bool is_gc = object_is_gc(op, facts);

    // Every tracked object is in the collector's lists, so the start set is
    // exactly the tracked set (objects frozen by gc.freeze() excepted: they
    // are found through edges and shown untracked).
    uint8_t flags = id < start_set_nodes_ ? format::kNodeGcTracked : 0;
    if (compat::is_immortal(op)) flags |= format::kNodeImmortal;
    if (facts.kind == ObjectKind::Type) {
        flags |= format::kNodeTypeObject;
        if (!(reinterpret_cast<PyTypeObject*>(op)->tp_flags & Py_TPFLAGS_HEAPTYPE))
            flags |= format::kNodeStaticType;
        else if (heap_type_made_by_c(reinterpret_cast<PyTypeObject*>(op)))
            flags |= format::kNodeExtensionType;
    }
    const uint64_t size = shallow_size(op, facts);
    append_node_columns(type_id, size, static_cast<int64_t>(Py_REFCNT(op)), flags);
    if (Py_REFCNT(op) == 0) dead_nodes_ = true;
    static_holder_ = compat::is_static_holder(op);
    preview_text(op, facts, previews_.open());
    previews_.close();

    add_singleton_root_if_any(*this, op, facts);

    EdgeCollector& collector = collector_;
    collector.reset();
    label_edges(op, facts, collector);
    refs_.clear();
    if (!collector.complete && tp->tp_traverse != nullptr && is_gc)
        tp->tp_traverse(op, &HeapWalker::collect_referent, this);
    if (facts.describers != 0)
        describe_->describe_instance(op, id, size, facts.describers, collector);
    // A dead object's memory (a free list's) and a statically allocated
    // holder's borrowed pointers are not references.
    if (facts.scan_words && Py_REFCNT(op) > 0 && !static_holder_) scan_words(op, tp, facts, collector);
    emit_edges(collector, facts.reports_link_types);
    pending_end_[id % kResolveLag] = pending_.size();
}

void HeapWalker::resolve(uint32_t source) {
    // Nodes are resolved in id order, so each edge's source is kept as the
    // node's first-edge offset, not once per edge (4 bytes per edge less).
    // A node whose edges were partly resolved while it was processed
    // (stream_pending) has begun already: begin_edges_of does nothing then.
    snapshot_.begin_edges_of(source);
    resolve_pending(pending_end_[source % kResolveLag]);
}

// Resolves the pending edges before `end`, all of one node, whose edges
// have begun.
void HeapWalker::resolve_pending(size_t end) {
    for (; pending_head_ < end; ++pending_head_) {
        const PendingEdge& e = pending_[pending_head_];
        uint32_t target = e.target_is_node ? static_cast<uint32_t>(reinterpret_cast<uintptr_t>(e.target))
                                           : node_for(e.target);
        if (target == kNoNode) continue;
        uint32_t label = e.label;
        if (e.label_object != nullptr) {
            label = node_for(e.label_object);
            if (label == kNoNode) label = 0;
        }
        snapshot_.append_edge(target, static_cast<EdgeKind>(e.kind), e.flags, label);
    }
}

// Drops the resolved prefix of pending_, so the buffer stays bounded.
// Nodes [resolved_, front) are processed and wait for resolution.
void HeapWalker::compact_pending(uint32_t front) {
    size_t head = pending_head_;
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(head));
    for (uint32_t n = resolved_; n < front; ++n) pending_end_[n % kResolveLag] -= head;
    pending_head_ = 0;
}

// The pending buffer is full while an object is processed. When a good
// part of it is edges already resolved, dropping them makes the room (the
// walk loop drops them only once half the buffer is). Otherwise the object
// has more edges than the buffer holds (a list of a million items), or the
// nodes before it had many. Growing the buffer would hold every edge of
// the largest object at once (24 bytes each, and the holes its doublings
// leave: 6 MiB for the benchmark heap's list of 125,000 records). Instead
// the nodes before it are resolved, then its own edges but the last
// kStreamLag, whose map slots pend() has only just prefetched. Edges, and
// the nodes they make, come out in the same order as without this:
// resolution stays in node order and, within a node, in edge order. (Only
// a node a describe callback makes while the object is processed may take
// its id at another point among them, as it may with the lag itself.)
void HeapWalker::stream_pending() {
    if (pending_head_ >= kStreamLag * 4) {
        compact_pending(processing_);
        return;
    }
    while (resolved_ < processing_) resolve(resolved_++);
    snapshot_.begin_edges_of(processing_);
    if (pending_.size() > pending_head_ + kStreamLag) resolve_pending(pending_.size() - kStreamLag);
    compact_pending(processing_);
}

}  // namespace refscope::probe

// HeapWalker: turns the live heap into a refscope::Snapshot under the GIL.
//
// Order of work (heap_walker.cpp):
//   1. start set: every GC-tracked object, then the roots (interpreter state,
//      thread stacks: roots_interpreter.cpp, roots_threads.cpp);
//   2. breadth-first over node ids: node i is processed once, in id order,
//      which appends its type, size, refcount and flags (its address was
//      appended when it was found), copies its preview text and matches its
//      out-edges; the edges' targets are resolved to node ids a few dozen
//      nodes later, in node order (a software pipeline that hides the node
//      map's cache misses), so edges come out grouped by source as
//      snapshot.h requires; every target not yet seen becomes a new node;
//   3. refcount corrections for the probe's own references;
//   4. (GIL released) finish_previews() frees the node map and the scratch,
//      then interns the preview texts into the snapshot's preview column,
//      made only then.
//
// Edges: tp_traverse decides which references exist. Labellers
// (edge_labels_*.cpp) propose labelled candidates; each candidate says how it
// relates to tp_traverse (EdgeMode). Candidates consume matching tp_traverse
// entries, what is left becomes positional Reference edges.
#pragma once

#include <Python.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "address_map.h"
#include "column_prefault.h"
#include "node_map.h"
#include "object_kinds.h"
#include "preview_arena.h"
#include "refscope/snapshot.h"
#include "string_interner.h"

namespace refscope::probe {

enum class EdgeMode : uint8_t {
    // Reported by tp_traverse: kept (Owned|GcVisible) only if tp_traverse
    // reported it, otherwise dropped (a label never invents an edge).
    Traversed,
    // A strong reference: Owned|GcVisible if tp_traverse reported it, Owned
    // alone if not (keys of str-keyed dicts, code constants...).
    Owned,
    // A strong reference that tp_traverse is known never to report: Owned,
    // not GcVisible, no matching needed.
    OwnedUntraversed,
    // Known to be reported by tp_traverse (items of exact lists and tuples,
    // whose tp_traverse is then skipped): Owned|GcVisible without matching.
    OwnedVisible,
    // Shown but not counted (weakref referents, keys of split dicts whose
    // references belong to the type's shared key table).
    NotOwned,
    // Reported by tp_traverse but holding no reference of its own (3.14+
    // borrowed stack references of a frame): kept as GcVisible, not Owned,
    // only if reported, and it consumes that report.
    TraversedBorrowed,
    // A strong reference that only some patch releases' tp_traverse reports
    // from this object (3.13+ dicts over an object's inline values: 3.13.0
    // reports the values from the object, later 3.13 releases and 3.14+ from
    // the dict): Owned|GcVisible, consuming the report, if reported here;
    // otherwise shown but not counted, as the object that reports it owns it.
    OwnedIfTraversed,
    // A field known to hold no reference of its own (sqlite3.Connection's
    // exception members): always shown, never Owned; GcVisible, consuming
    // the report, if tp_traverse reports it.
    Borrowed,
    // Reported by tp_traverse on behalf of another node that holds the
    // reference and shows it as its own edge (lru_cache reports each link's
    // key, result and type; the link node owns them): consumes one report,
    // emits nothing.
    ReportedForOther,
    // Found in the memory of an object nothing describes (scan_words):
    // Inferred, not Owned and not GcVisible until settle_inferred_edges()
    // finds room for it in the target's refcount; no matching.
    Inferred,
};

struct EdgeCandidate {
    PyObject* target;
    PyObject* label_object;  // DictValue/Attribute: label is this object's node id
    uint32_t label;
    format::EdgeKind kind;
    EdgeMode mode;
};

class HeapWalker;
class DescribeSession;

// Collects one object's candidate edges; the walker matches and emits them.
class EdgeCollector {
public:
    explicit EdgeCollector(HeapWalker& walker) : walker_(walker) {}
    void add(PyObject* target, format::EdgeKind kind, uint32_t label, EdgeMode mode) {
        if (target != nullptr) candidates.push_back({target, nullptr, label, kind, mode});
    }
    void add_keyed(PyObject* target, format::EdgeKind kind, PyObject* label_object,
                   EdgeMode mode) {
        if (target != nullptr) candidates.push_back({target, label_object, 0, kind, mode});
    }
    // A Field edge labelled with a field name (a string literal: its id is
    // cached by pointer, see HeapWalker::literal).
    void field(PyObject* target, const char* name, EdgeMode mode);
    // An exact list or tuple whose items are all of its edges (Index,
    // labelled by position, owned and reported by tp_traverse): they are
    // read from the object when emitted (emit_edges, before any
    // candidate), where a candidate each cost 24 bytes per item (3 MB for
    // the benchmark heap's list of 125,000 records). Read then, not here:
    // a describe callback registered for every type runs in between. Null
    // items (a list being filled by C code) are skipped.
    void items_of(PyObject* sequence) { items_sequence = sequence; }
    void reset() {
        candidates.clear();
        items_sequence = nullptr;
        node_edges.clear();
        native_matches.clear();
        leftover_kind = format::EdgeKind::Reference;
        complete = false;
    }
    HeapWalker& walker() { return walker_; }

    std::vector<EdgeCandidate> candidates;
    PyObject* items_sequence = nullptr;  // an exact list or tuple (items_of)
    // Kind given to tp_traverse referents no candidate claims.
    format::EdgeKind leftover_kind = format::EdgeKind::Reference;
    // Set when the labeller emitted every edge itself (exact list/tuple):
    // tp_traverse is then not called.
    bool complete = false;

    // Described edges (describe API): from this object to native nodes, and
    // the native nodes' edges to Python objects whose GC visibility this
    // object's tp_traverse decides (indexes into HeapWalker's native edges).
    struct NodeEdge {
        uint32_t node;
        uint32_t label;
        uint8_t flags;
    };
    std::vector<NodeEdge> node_edges;
    std::vector<uint32_t> native_matches;

private:
    HeapWalker& walker_;
};

class HeapWalker {
public:
    explicit HeapWalker(Snapshot& snapshot);
    // Destroyed with the GIL held (it may still own the start-set list if
    // the walk was interrupted by an exception).
    ~HeapWalker();
    HeapWalker(const HeapWalker&) = delete;
    HeapWalker& operator=(const HeapWalker&) = delete;

    // The probe's own references, subtracted from refcounts at the end.
    void subtract_reference(PyObject* op, int64_t count = 1) { adjustments_.push_back({op, count}); }
    // Objects the probe created (never appear in the snapshot).
    void exclude(PyObject* op);

    // Runs the whole walk. Must be called with the GIL held; runs no Python code.
    void walk();
    // Turns the preview texts copied during the walk into string ids. Needs
    // no Python object, so it runs after the GIL is released.
    void finish_previews();
    // Frees the node map and the scratch, which only the walk needs: called
    // by finish_previews() (the GIL released: unmapping them is the
    // kernel's work, kept out of the walk's pause), and, with the GIL held,
    // before the allocation-site look-ups when tracemalloc traces and before
    // the census, which follow the walk first. A second call frees nothing
    // more.
    void release_walk_tables() noexcept;

    // --- used by roots and labellers -----------------------------------
    uint32_t node_for(PyObject* op);      // interns; kNoNode if excluded
    uint32_t text(std::string_view s) { return interner_.intern(s); }
    // String id of a C string that lives as long as the process (field
    // names, PyMemberDef names): cached by pointer, no hashing of the text.
    uint32_t literal(const char* s);
    uint32_t python_text(PyObject* str, size_t max_chars = 200);
    void add_root(PyObject* op, format::RootKind kind, uint32_t thread, uint32_t label,
                  uint32_t count);
    uint32_t add_thread(uint64_t ident, std::string_view name, bool is_main);
    Snapshot& snapshot() { return snapshot_; }
    // The interpreter's dict of interned strs (3.12+), whose references are
    // not counted in the strs' refcounts (docs/probe.md), or nullptr.
    PyObject* interned_strings() const { return interned_strings_; }

    // --- native nodes (describe API; describe_session.cpp fills them) ----
    // Type id of a native type: a C++ type name (first reported by `library`).
    uint32_t native_type(uint32_t name, uint32_t library);
    // The native node for (address, type), created if new (`created` says
    // which). `reporter` is the Python object being described (its node
    // id), or kHeapReporter for heap callbacks: a node's out-edges may only
    // be added while describing the reporter that created it (so that two
    // objects sharing one C++ object do not report its references twice),
    // which `writable` says.
    static constexpr uint32_t kHeapReporter = 0xFFFFFFFEu;
    uint32_t native_node(uint32_t type, uint64_t address, uint64_t size, int64_t refcount,
                         uint32_t preview, uint32_t library, uint32_t reporter, bool& created,
                         bool& writable);
    // Out-edges of a writable native node. Returns the index of the edge
    // (for GC-visibility matching, see EdgeCollector).
    uint32_t add_native_edge(uint32_t from, PyObject* target, uint32_t label, uint8_t flags);
    void add_native_edge(uint32_t from, uint32_t to_node, uint32_t label, uint8_t flags);
    // Counts an in-edge of a native node: nodes nothing holds, and nodes
    // whose reference count exceeds their owned in-edges, become roots.
    void note_native_in_edge(uint32_t node, bool owned);
    void add_node_root(uint32_t node, format::RootKind kind, uint32_t label, uint32_t count);
    const DescribeSession& describe_session() const { return *describe_; }
    // The object members of a type (TypeFacts::members_begin/count).
    const MemberSlot* member_slots(const TypeFacts& facts) const { return member_slots_.data() + facts.members_begin; }

private:
    friend class EdgeCollector;
    struct TraverseBuffer;

    // An edge whose target (and label object) still has to be turned into a
    // node id; see walk() for why resolution lags behind processing. Edges
    // to native nodes carry the node id already (target_is_node).
    struct PendingEdge {
        PyObject* target;
        PyObject* label_object;
        uint32_t label;
        uint8_t kind;
        uint8_t flags;
        uint8_t target_is_node;
    };

    // Native nodes: their out-edges wait here until the walk processes them.
    static constexpr uint32_t kNoEdgeIndex = 0xFFFFFFFFu;
    struct NativeEdge {
        PyObject* object;   // Python target, or nullptr
        uint32_t node;      // native target when object is nullptr
        uint32_t label;
        uint32_t next;      // next edge of the same source, kNoEdgeIndex at the end
        uint8_t flags;
    };
    struct NativeRecord {
        uint32_t node;
        uint32_t library;   // string id
        uint32_t reporter;  // see native_node()
        // The node's columns, appended when the walk reaches it (process()).
        uint32_t type;
        uint32_t preview;   // string id
        uint64_t size;
        int64_t refcount;
        uint32_t first_edge = kNoEdgeIndex;
        uint32_t last_edge = kNoEdgeIndex;
        uint32_t in_edges = 0;
        uint32_t owned_in_edges = 0;
        bool rooted = false;
    };
    struct NativeKey {
        uint64_t address;
        uint32_t type;
        bool operator==(const NativeKey& o) const { return address == o.address && type == o.type; }
    };
    struct NativeKeyHash {
        size_t operator()(const NativeKey& k) const {
            return std::hash<uint64_t>()(k.address * 0x9E3779B97F4A7C15ull ^ k.type);
        }
    };

    void add_start_set();
    void add_start_objects(PyObject* const* objects, size_t count);
    void reserve_for(size_t tracked);
    void reserve_columns(size_t nodes, size_t edges);
    void prefault_columns();
    size_t column_bytes(size_t nodes, size_t edges);
    template <typename Act>
    void each_column(size_t nodes, size_t edges, Act&& act);
    void process(uint32_t id);
    void resolve(uint32_t id);
    void resolve_pending(size_t end);
    void compact_pending(uint32_t front);
    void stream_pending();
    void pend(PyObject* target, PyObject* label_object, uint32_t label, format::EdgeKind kind,
              uint8_t flags);
    uint32_t type_id_for(PyTypeObject* tp);
    void emit_edges(EdgeCollector& collector, bool reports_link_types);
    bool is_repeated_link_type(PyObject* op);
    bool consume_match(PyObject* target);
    void apply_adjustments();
    void push_root(uint32_t node, format::RootKind kind, uint32_t thread, uint32_t label, uint32_t count);
    void process_native(const NativeRecord& record);
    // Appends a node's columns but its address (appended when the node is
    // made, node_for) and its preview (finish_previews()).
    void append_node_columns(uint32_t type, uint64_t size, int64_t refcount, uint8_t flags) {
        snapshot_.node_type.push_back(type);
        snapshot_.node_size.push_back(size);
        snapshot_.node_refcount.push_back(refcount);
        snapshot_.node_flags.push_back(flags);
    }
    uint32_t link_native_edge(uint32_t from, const NativeEdge& edge);
    void pend_node(uint32_t node, uint32_t label, uint8_t flags);
    void add_native_holder_roots();
    void scan_words(PyObject* op, PyTypeObject* tp, const TypeFacts& facts, EdgeCollector& collector);
    uint32_t word_label(Py_ssize_t offset);
    void settle_inferred_edges();
    // Called for every edge: the test inline, the rare case out of line.
    uint8_t adjust_ownership(PyObject* target, uint8_t flags) {
        return static_holder_ ? adjust_static_ownership(target, flags) : flags;
    }
    uint8_t adjust_static_ownership(PyObject* target, uint8_t flags);
    void disown_dead_targets();

    Snapshot& snapshot_;
    StringInterner interner_;
    NodeMap nodes_;
    AddressMap types_;
    std::vector<TypeFacts> type_facts_;  // by type id
    std::vector<MemberSlot> member_slots_;  // TypeFacts::members_begin indexes it
    std::vector<std::pair<PyObject*, int64_t>> adjustments_;
    ColumnPrefault prefault_;
    PyObject* interned_strings_ = nullptr;
    PyObject* start_list_ = nullptr;   // gc.get_objects() result on < 3.12
    size_t start_list_nodes_ = 0;      // nodes [0, n) are its items
    size_t start_set_nodes_ = 0;       // nodes [0, n) are the GC-tracked objects

    // Preview texts, copied during the walk and interned after it (one
    // entry per processed node, in node order).
    PreviewArena previews_;
    // literal(): pointer -> string id, open addressing, 0 = empty.
    std::vector<std::pair<const char*, uint32_t>> literals_;

    // Edges of processed but not yet resolved nodes, and where each node's
    // edges end (ring indexed by node id). The buffer keeps the capacity
    // walk() reserves: an object with more edges than fit has them resolved
    // while it is processed (stream_pending), all but the last kStreamLag.
    static constexpr uint32_t kResolveLag = 64;
    static constexpr size_t kMaxPendingEdges = 1 << 14;
    static constexpr size_t kStreamLag = 512;
    std::vector<PendingEdge> pending_;
    size_t pending_head_ = 0;
    size_t pending_end_[kResolveLag] = {};
    uint32_t processing_ = 0;  // the node process() is at
    uint32_t resolved_ = 0;    // nodes [0, resolved_) have their edges resolved

    // Per-object scratch, reused to avoid allocations.
    EdgeCollector collector_;
    std::vector<PyObject*> refs_;
    std::vector<uint8_t> consumed_;
    std::vector<uint32_t> sorted_;     // indexes into refs_, sorted by pointer
    std::vector<uint32_t> group_next_;
    bool sorted_ready_ = false;
    size_t cursor_ = 0;
    // The object being processed holds uncounted references to the
    // interpreter's static objects (3.11 statically allocated objects).
    bool static_holder_ = false;
    // Link types reported so far by the object being processed
    // (TypeFacts::reports_link_types).
    std::vector<PyObject*> link_types_;
    // Some processed object had refcount 0 (dead, kept in a free list).
    bool dead_nodes_ = false;
    std::string scratch_;
    // scan_words: label string ids by word index ("word at +24"), 0 = not
    // interned yet; how many inferred edges were emitted.
    std::vector<uint32_t> word_labels_;
    uint64_t inferred_edges_ = 0;

    std::unique_ptr<DescribeSession> describe_;
    std::vector<NativeRecord> natives_;          // in node id order
    size_t next_native_ = 0;                     // the first one process() has not reached
    std::vector<NativeEdge> native_edges_;
    std::unordered_map<NativeKey, uint32_t, NativeKeyHash> native_index_;  // -> natives_ index
    std::unordered_map<uint64_t, uint32_t> native_types_;  // type name string id -> type id

public:
    static int collect_referent(PyObject* op, void* self);
};

// Labellers (edge_labels_*.cpp) and per-object facts (object_sizes.cpp,
// value_previews.cpp).
void label_edges(PyObject* op, const TypeFacts& facts, EdgeCollector& collector);
uint64_t shallow_size(PyObject* op, const TypeFacts& facts);
// Appends the preview text for `op` to `out` (empty: no preview).
void preview_text(PyObject* op, const TypeFacts& facts, std::string& out);
// Whether instances of `tp` have their memory scanned for references
// (TypeFacts::scan_words; heap_walker_inferred.cpp). `facts` is complete
// but for that field.
bool scans_words(PyTypeObject* tp, const TypeFacts& facts);
// Qualified type name ("app.Leaky", "dict") and module ("app", "builtins").
void type_names(PyTypeObject* tp, std::string& qualified, std::string& module);

// Roots (roots_interpreter.cpp, roots_threads.cpp).
void add_interpreter_roots(HeapWalker& walker);
void add_singleton_root_if_any(HeapWalker& walker, PyObject* op, const TypeFacts& facts);
void add_thread_roots(HeapWalker& walker);

}  // namespace refscope::probe

// The in-memory snapshot: what the probe's heap walk produces and what the
// reader returns. Columnar (one vector per field) so that a 10-million-object
// heap is a handful of flat arrays, not millions of small objects.
//
// Ids: node ids are indexes into the node columns (0..node_count-1), string ids
// index `strings` (id 0 is always the empty string, meaning "none"), type ids
// index `types`, thread ids index `threads`.
//
// This header is shared by the probe (which fills it), the format code and the
// analysis; keep it free of anything but the standard library.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "refscope/format/constants.h"
#include "refscope/narrow_column.h"
#include "refscope/packed_column.h"

namespace refscope {

inline constexpr uint32_t kNoNode = 0xFFFFFFFFu;

struct SnapshotHeader {
    // Filled by the reader from the file's preamble; ignored by the writer,
    // which always writes the current version.
    uint16_t format_major = format::kFormatMajor;
    uint16_t format_minor = format::kFormatMinor;

    std::string probe_version;
    std::string python_version;     // sys.version
    uint64_t python_hexversion = 0; // sys.hexversion
    std::string python_build;       // e.g. "CPython release GCC 12.2.0"
    std::string platform;           // e.g. "linux x86_64"
    int64_t pid = 0;
    std::string executable;
    std::vector<std::string> argv;
    int64_t time_unix_ns = 0;
    bool collected_first = false;   // gc.collect() ran before the walk
    uint64_t sequence = 0;          // n-th snapshot of this process
    std::string label;
    uint64_t walk_ns = 0;           // GIL held for the walk
};

struct TypeInfo {
    uint32_t name = 0;            // string id: qualified name, "app.Leaky", "dict"
    uint32_t module = 0;          // string id: "app", "builtins"
    uint64_t type_address = 0;    // address of the type object (often also a node)
    uint8_t flags = 0;            // format::kType* bits (0 when unknown: 1.0 files, native types)
};

struct RootRef {
    uint32_t node = 0;            // the object held
    format::RootKind kind = format::RootKind::Interpreter;
    uint32_t thread = kNoNode;    // thread id for ThreadStack roots, else kNoNode
    uint32_t label = 0;           // string id: "sys.modules", "frame app.py:12 in main, local x"
    // How many references this record explains; 0 means "all of the
    // object's surplus" (C statics that hold an unknown number of references:
    // static types, None, small ints...).
    uint32_t count = 1;
};

struct ThreadInfo {
    uint64_t ident = 0;           // threading.get_ident()
    uint32_t name = 0;            // string id: "MainThread", "worker-1"
    bool is_main = false;
};

// One line of Python code where an allocation happened (tracemalloc's frame,
// with the function the probe found for it).
struct AllocationFrame {
    uint32_t file = 0;            // string id: the code's co_filename
    uint32_t line = 0;
    uint32_t function = 0;        // string id: the qualified name, 0 = not found
};

// Allocation tracebacks recorded from tracemalloc (format section
// Allocations, docs/format.md). Empty when the target did not trace
// allocations; then `node_traceback` is empty too.
struct AllocationSites {
    uint32_t traceback_limit = 0;             // frames tracemalloc keeps (tracemalloc.start(n))
    std::vector<AllocationFrame> frames;      // distinct frames
    // Traceback t is frame ids traceback_frames[traceback_start[t] ..
    // traceback_start[t + 1]), the most recent call first; traceback_start
    // has one entry more than there are tracebacks (0 when there are none).
    std::vector<uint32_t> traceback_start;
    std::vector<uint32_t> traceback_frames;
    // Per node: traceback id + 1, or 0 for an object tracemalloc did not
    // trace (allocated before it started, a static object, a native node).
    std::vector<uint32_t> node_traceback;

    bool recorded() const { return !node_traceback.empty(); }
    size_t traceback_count() const { return traceback_start.empty() ? 0 : traceback_start.size() - 1; }
    uint64_t traced_count() const {
        uint64_t n = 0;
        for (const uint32_t t : node_traceback) n += t != 0;
        return n;
    }
    // The traceback of `node`, or kNone.
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    uint32_t traceback_of(uint32_t node) const {
        return node < node_traceback.size() && node_traceback[node] != 0 ? node_traceback[node] - 1 : kNone;
    }
    // Frame ids of traceback `t` (most recent first) as [begin, end).
    const uint32_t* frames_begin(uint32_t t) const { return traceback_frames.data() + traceback_start[t]; }
    const uint32_t* frames_end(uint32_t t) const { return traceback_frames.data() + traceback_start[t + 1]; }
    // Appends a traceback of frame ids; returns its id.
    uint32_t add_traceback(const std::vector<uint32_t>& frame_ids) {
        if (traceback_start.empty()) traceback_start.push_back(0);
        traceback_frames.insert(traceback_frames.end(), frame_ids.begin(), frame_ids.end());
        traceback_start.push_back(static_cast<uint32_t>(traceback_frames.size()));
        return static_cast<uint32_t>(traceback_start.size() - 2);
    }
};

// The snapshot's strings by id; id 0 is the empty string ("none"). One
// arena: every string's bytes back to back, and where each one ends. A
// std::string per string cost 32 bytes before its text (and a heap block
// past 15 characters), and a large heap has a preview string for most of
// its ints and strs; the arena costs 4 bytes a string besides its text.
// Id 0 is empty by construction (the writer and reader rely on it).
//
// Where a string ends is kept in 32 bits (End): 2.5 MiB less than 64 for
// the 645,000 strings of the probe's benchmark heap, held at the snapshot's
// memory peak (docs/performance-probe-cuts.md). Past 4 GiB of text the
// high bits are the number of entries of `wraps_` at or before the
// string's id: each is the id of a string whose end crossed one more 4 GiB
// boundary (in memory only; the file stores lengths, docs/format.md).
// Tests use a narrower End to cross boundaries with little text.
template <typename End>
class BasicStringTable {
    static_assert(sizeof(End) < sizeof(uint64_t));
    static constexpr unsigned kEndBits = 8 * sizeof(End);

public:
    // Appends without de-duplication; the probe de-duplicates where it matters.
    // A failed allocation leaves the table as it was.
    uint32_t add(std::string_view s) {
        if (ends_.empty()) clear();  // a moved-from table: id 0 first
        const uint64_t begin = bytes_.size();
        const uint64_t end = begin + s.size();
        const auto id = static_cast<uint32_t>(ends_.size());
        const size_t crossed = static_cast<size_t>((end >> kEndBits) - (begin >> kEndBits));
        ends_.push_back(static_cast<End>(end));
        try {
            wraps_.insert(wraps_.end(), crossed, id);
            try {
                bytes_.append(s);
            } catch (...) {
                wraps_.resize(wraps_.size() - crossed);
                throw;
            }
        } catch (...) {
            ends_.pop_back();
            throw;
        }
        return id;
    }
    // Empty for id 0 and for an id past the end.
    std::string_view view(uint32_t id) const {
        if (id == 0 || id >= ends_.size()) return {};
        const uint64_t begin = end_of(id - 1);
        return std::string_view(bytes_.data() + begin, static_cast<size_t>(end_of(id) - begin));
    }
    // At least 1 (id 0), also for a moved-from table.
    size_t size() const { return ends_.empty() ? 1 : ends_.size(); }
    // The text of all strings together.
    size_t byte_size() const { return bytes_.size(); }
    // Room for `strings` more strings holding `bytes` more bytes of text.
    void reserve(size_t strings, size_t bytes) {
        ends_.reserve(ends_.size() + strings);
        bytes_.reserve(bytes_.size() + bytes);
    }
    // Back to only id 0.
    void clear() {
        ends_.assign(1, 0);
        wraps_.clear();
        bytes_.clear();
    }
    bool operator==(const BasicStringTable&) const = default;

private:
    uint64_t end_of(uint32_t id) const {
        const uint64_t high =
            wraps_.empty() ? 0 : static_cast<uint64_t>(std::upper_bound(wraps_.begin(), wraps_.end(), id) - wraps_.begin());
        return high << kEndBits | ends_[id];
    }
    std::vector<End> ends_{0};     // ends_[i]: where string i's text ends, its low bits
    std::vector<uint32_t> wraps_;  // ids of the strings whose ends cross a 2^kEndBits boundary
    std::string bytes_;
};
using StringTable = BasicStringTable<uint32_t>;

struct Snapshot {
    SnapshotHeader header;
    StringTable strings;
    std::vector<TypeInfo> types;

    // Nodes, one entry per object, same index in every column.
    std::vector<uint64_t> node_address;
    std::vector<uint32_t> node_type;      // type id
    // Sizes in 16 bits and refcounts in 8, the rare wider value kept aside
    // (narrow_column.h): 13 bytes a node less than 64-bit columns in the
    // probe and the analysis. Measured on snapshots of real programs and the
    // benchmark heaps (docs/performance-probe-cuts.md): sizes of 65535 bytes
    // and more are 0.001-0.002 % of objects; refcounts outside ±127 are
    // 0.06 % on 3.9 and 3.10 and 0.8-8 % on 3.11 and later, nearly all of
    // them static or immortal objects (refcounts of 10^9 and more; on 3.12
    // and later past 32 bits, so kept aside before these columns narrowed).
    NarrowColumn<uint64_t, uint16_t> node_size;     // shallow bytes, computed in C
    NarrowColumn<int64_t, int8_t> node_refcount;    // ob_refcnt minus the probe's own references
    std::vector<uint8_t> node_flags;      // format::kNode* bits
    std::vector<uint32_t> node_preview;   // string id, 0 = none

    // Edges, grouped by source, so that the analysis can build its CSR
    // index without sorting and the writer can store out-degrees. Each
    // edge's source is held one of two ways: edge_source, one entry per
    // edge (non-decreasing; what add_edge fills, in tests and hand-built
    // snapshots), or edge_first, node_count + 1 offsets, the same
    // information in 4 bytes per node instead of 4 per edge (12 B/node at 3
    // edges per node). The reader (from the file's out-degrees) and the
    // probe (begin_edges_of, append_edge, end_edge_runs) build edge_first
    // directly; drop_edge_sources() turns the first form into the second.
    // Exactly one of the two is non-empty when there are edges. Read
    // an edge's source with source_of(), or every node's edges in order with
    // for_each_source_run(); both work either way, and so does the writer.
    std::vector<uint32_t> edge_source;
    // Empty, or node_count + 1 offsets: node n's edges are
    // [edge_first[n], edge_first[n + 1]).
    std::vector<uint32_t> edge_first;
    std::vector<uint32_t> edge_target;
    std::vector<uint8_t> edge_kind;       // format::EdgeKind
    std::vector<uint8_t> edge_flags;      // format::kEdge* bits
    // Meaning depends on kind (constants.h); bit-packed in blocks of 64
    // (packed_column.h): most labels need a few bits, not 32.
    PackedColumn edge_label;

    std::vector<RootRef> roots;
    std::vector<ThreadInfo> threads;
    AllocationSites allocations;          // format 1.2; empty if not traced

    size_t node_count() const { return node_address.size(); }
    size_t edge_count() const { return edge_target.size(); }

    // The source of `edge` (< edge_count()), from whichever of edge_source and
    // edge_first the snapshot holds; a binary search in the latter case.
    uint32_t source_of(uint32_t edge) const {
        if (edge_first.empty()) return edge_source[edge];
        const auto after = std::upper_bound(edge_first.begin(), edge_first.end(), edge);
        return static_cast<uint32_t>(after - edge_first.begin() - 1);
    }

    // Replaces edge_source by edge_first and frees it. Does nothing (and
    // returns false) when edge_first is set already, when the columns
    // disagree in length, or when the edges are not grouped by source or name
    // a source that is not a node: the GraphIndex then reports or works
    // around that as before.
    bool drop_edge_sources() {
        const size_t nodes = node_count();
        const size_t edges = edge_count();
        if (!edge_first.empty() || edge_source.size() != edges || edges >= 0xFFFFFFFFu) return false;
        std::vector<uint32_t> first(nodes + 1, 0);
        uint32_t previous = 0;
        for (const uint32_t source : edge_source) {
            if (source >= nodes || source < previous) return false;
            previous = source;
            ++first[size_t{source} + 1];
        }
        for (size_t n = 0; n < nodes; ++n) first[n + 1] += first[n];
        edge_first = std::move(first);
        std::vector<uint32_t>().swap(edge_source);
        return true;
    }

    // Calls f(node, begin, end) for every node in id order, [begin, end)
    // being its edges, from whichever of edge_source and edge_first the
    // snapshot holds. Assumes the columns are consistent (format::
    // find_defect checks them); with edge_source, a node whose edges are
    // out of order gets none and the rest are skipped.
    template <typename F>
    void for_each_source_run(F&& f) const {
        const size_t nodes = node_count();
        if (!edge_first.empty()) {
            for (size_t n = 0; n < nodes; ++n)
                f(static_cast<uint32_t>(n), size_t{edge_first[n]}, size_t{edge_first[n + 1]});
            return;
        }
        const size_t edges = edge_source.size();
        size_t i = 0;
        for (size_t n = 0; n < nodes; ++n) {
            const size_t begin = i;
            while (i < edges && edge_source[i] == n) ++i;
            f(static_cast<uint32_t>(n), begin, i);
        }
    }

    // Building edge_first directly, node by node in id order: the node's
    // edges follow begin_edges_of(node) (nodes skipped get none), and
    // end_edge_runs() closes the column once every node exists.
    void begin_edges_of(uint32_t node) {
        while (edge_first.size() <= node) edge_first.push_back(static_cast<uint32_t>(edge_count()));
    }
    void append_edge(uint32_t target, format::EdgeKind kind, uint8_t flags, uint32_t label) {
        edge_target.push_back(target);
        edge_kind.push_back(static_cast<uint8_t>(kind));
        edge_flags.push_back(flags);
        edge_label.push_back(label);
    }
    void end_edge_runs() {
        while (edge_first.size() <= node_count()) edge_first.push_back(static_cast<uint32_t>(edge_count()));
    }

    uint32_t add_node(uint64_t address, uint32_t type, uint64_t size, int64_t refcount,
                      uint8_t flags, uint32_t preview) {
        node_address.push_back(address);
        node_type.push_back(type);
        node_size.push_back(size);
        node_refcount.push_back(refcount);
        node_flags.push_back(flags);
        node_preview.push_back(preview);
        return static_cast<uint32_t>(node_address.size() - 1);
    }
    void add_edge(uint32_t source, uint32_t target, format::EdgeKind kind, uint8_t flags,
                  uint32_t label) {
        edge_source.push_back(source);
        append_edge(target, kind, flags, label);
    }
};

}  // namespace refscope

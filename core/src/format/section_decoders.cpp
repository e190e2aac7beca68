// Snapshot reader, part two: decodes each section's raw (already framed,
// checked and decompressed) payload into the Snapshot, column by column,
// failing through PayloadCursor with the section and payload offset. The
// framing and the whole-file checks are in snapshot_reader.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "background_job.h"
#include "format/section_decoders.h"
#include "refscope/format/encoding.h"

namespace refscope::format {

std::string section_label(uint16_t id) {
    const char* name = section_name(id);
    return name ? std::string(name) + " section" : "section " + std::to_string(id);
}

namespace {

std::string read_string_value(PayloadCursor& c, uint64_t len, const char* what) {
    if (len > kMaxStringBytes)
        c.fail(ReadErrorCode::TooLarge, std::string(what) + " of " + std::to_string(len) +
                                            " bytes exceeds the limit of " +
                                            std::to_string(kMaxStringBytes));
    const uint8_t* p = c.bytes(len, what);
    return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
}

}  // namespace

// Header: fields `varint tag, varint length, value` (see the writer).
void decode_header(PayloadCursor& c, SnapshotHeader& h) {
    uint32_t seen = 0;  // bit per known tag, to refuse duplicates
    while (c.remaining() > 0) {
        const uint64_t tag = c.varint("header field tag");
        const uint64_t len = c.varint("header field length");
        if (len > c.remaining())
            c.fail(ReadErrorCode::Corrupt, "header field " + std::to_string(tag) + " declares " +
                                               std::to_string(len) + " bytes, " +
                                               std::to_string(c.remaining()) + " remain");
        if (tag >= 1 && tag < 32) {
            if (seen & (1u << tag))
                c.fail(ReadErrorCode::Corrupt, "duplicate header field " + std::to_string(tag));
            seen |= 1u << tag;
        }
        // An integer field is exactly one varint filling the field.
        auto integer = [&](const char* what) {
            const uint8_t* p = c.bytes(len, what);
            uint64_t v = 0;
            if (len == 0 || get_varint(p, p + len, v) != len)
                c.fail(ReadErrorCode::Corrupt, std::string("bad varint in header field ") + what);
            return v;
        };
        switch (static_cast<HeaderTag>(tag)) {
            case HeaderTag::ProbeVersion:
                h.probe_version = read_string_value(c, len, "probe version");
                break;
            case HeaderTag::PythonVersion:
                h.python_version = read_string_value(c, len, "python version");
                break;
            case HeaderTag::PythonHexVersion:
                h.python_hexversion = integer("python hexversion");
                break;
            case HeaderTag::PythonBuild:
                h.python_build = read_string_value(c, len, "python build");
                break;
            case HeaderTag::Pid: h.pid = zigzag_decode(integer("pid")); break;
            case HeaderTag::Executable:
                h.executable = read_string_value(c, len, "executable");
                break;
            case HeaderTag::Argv: {
                PayloadCursor argv = c.sub(len, "argv");
                const size_t n = argv.count("argv count", 1);
                h.argv.clear();
                h.argv.reserve(n);
                for (size_t i = 0; i < n; ++i)
                    h.argv.push_back(
                        read_string_value(argv, argv.varint("argv length"), "argv item"));
                if (argv.remaining() != 0)
                    c.fail(ReadErrorCode::Corrupt, "bytes after the last argv item");
                break;
            }
            case HeaderTag::TimeUnixNs: h.time_unix_ns = zigzag_decode(integer("time")); break;
            case HeaderTag::CollectedFirst: {
                const uint64_t v = integer("collected-first flag");
                if (v > 1)
                    c.fail(ReadErrorCode::Corrupt,
                           "collected-first flag " + std::to_string(v) + " is not 0 or 1");
                h.collected_first = v == 1;
                break;
            }
            case HeaderTag::Sequence: h.sequence = integer("sequence"); break;
            case HeaderTag::Label: h.label = read_string_value(c, len, "label"); break;
            case HeaderTag::WalkNs: h.walk_ns = integer("walk time"); break;
            case HeaderTag::Platform: h.platform = read_string_value(c, len, "platform"); break;
            default: c.bytes(len, "unknown header field"); break;  // added by a later minor
        }
    }
}

void decode_strings(PayloadCursor& c, StringTable& table) {
    const size_t n = c.count("string count", 0);
    if (n == 0)
        c.fail(ReadErrorCode::Corrupt, "string count is 0 (id 0, the empty string, is implicit)");
    if (n - 1 > c.remaining())
        c.fail(ReadErrorCode::Corrupt, "string count " + std::to_string(n) + " needs at least " +
                                           std::to_string(n - 1) + " bytes, " +
                                           std::to_string(c.remaining()) + " remain");
    std::vector<uint32_t> lengths(n - 1);
    uint64_t total = 0;
    for (uint32_t& len : lengths) {
        const uint64_t v = c.varint("string length column");
        if (v > kMaxStringBytes)
            c.fail(ReadErrorCode::TooLarge, "string of " + std::to_string(v) +
                                                " bytes exceeds the limit of " +
                                                std::to_string(kMaxStringBytes));
        len = static_cast<uint32_t>(v);
        total += v;
    }
    const uint8_t* bytes = c.bytes(total, "string bytes");
    table.clear();
    table.reserve(n - 1, static_cast<size_t>(total));
    for (uint32_t len : lengths) {
        table.add(std::string_view(reinterpret_cast<const char*>(bytes), len));
        bytes += len;
    }
}

void decode_types(PayloadCursor& c, std::vector<TypeInfo>& types, uint16_t minor) {
    const size_t n = c.count("type count", 3);
    types.resize(n);
    for (TypeInfo& t : types) t.name = c.u32("type name column");
    for (TypeInfo& t : types) t.module = c.u32("type module column");
    for (TypeInfo& t : types) t.type_address = c.varint("type address column");
    // 1.1 added a byte of kType* flags per type; a 1.0 file has none, and
    // its types keep flags 0 ("not recorded").
    if (minor >= 1)
        for (TypeInfo& t : types) t.flags = c.byte("type flags column");
}

// The Nodes section in two steps: the count (which the Edges section needs),
// then the columns.
size_t decode_node_count(PayloadCursor& c) {
    // Six columns, each at least one byte per node.
    const size_t n = c.count("node count", 6);
    if (n >= kNoNode)
        c.fail(ReadErrorCode::TooLarge,
               "node count " + std::to_string(n) + " leaves no room for kNoNode");
    return n;
}

void decode_node_columns(PayloadCursor& c, Snapshot& s, size_t n) {
    const uint64_t shift = c.varint("address shift");
    if (shift > 63)
        c.fail(ReadErrorCode::Corrupt, "address shift " + std::to_string(shift) + " exceeds 63");
    s.node_address.resize(n);
    uint64_t cur = 0;
    for (uint64_t& a : s.node_address) {
        cur += static_cast<uint64_t>(zigzag_decode(c.varint("address column")));
        a = cur << shift;
    }
    s.node_type.resize(n);
    for (uint32_t& t : s.node_type) t = c.u32("type column");
    // Appended, not resized and set: a value aside is then added at the
    // end of its column's sorted pairs without a search (narrow_column.h).
    s.node_size.clear();
    s.node_size.reserve(n);
    for (size_t i = 0; i < n; ++i) s.node_size.push_back(c.varint("size column"));
    s.node_refcount.clear();
    s.node_refcount.reserve(n);
    for (size_t i = 0; i < n; ++i) s.node_refcount.push_back(zigzag_decode(c.varint("refcount column")));
    const uint8_t* flags = c.bytes(n, "flags column");
    s.node_flags.assign(flags, flags + n);
    s.node_preview.resize(n);
    int64_t prev = 0;
    for (uint32_t& p : s.node_preview) {
        const uint64_t v = c.varint("preview column");
        if (v == 0) {
            p = 0;
            continue;
        }
        const int64_t id = prev + zigzag_decode(v - 1);
        if (id <= 0 || static_cast<uint64_t>(id) > kU32Max)
            c.fail(ReadErrorCode::Corrupt,
                   "preview string id " + std::to_string(id) + " is out of range");
        p = static_cast<uint32_t>(id);
        prev = id;
    }
}

namespace {

// Where `count` varints starting at `p` end, or nullptr if [p, end) holds
// fewer: each varint ends at the first byte with its high bit clear, so this
// counts such bytes, 8 at a time.
const uint8_t* skip_varints(const uint8_t* p, const uint8_t* end, uint64_t count) {
    if (count == 0) return p;
    while (end - p >= 8) {
        const uint64_t stops = ~load_le64(p) & 0x8080808080808080ull;
        const auto in_word = static_cast<uint64_t>(__builtin_popcountll(stops));
        if (in_word >= count) break;  // the last one ends in this word
        count -= in_word;
        p += 8;
    }
    for (; p < end; ++p) {
        if ((*p & 0x80) == 0 && --count == 0) return p + 1;
    }
    return nullptr;
}

// The label column of `e` edges, with their kinds at `kinds` (edge_first
// already decoded). A reference's or an index's label is stored relative to
// the edge's position among its source's edges.
//
// This loop and the target loop in decode_edges go node by node over
// edge_first themselves rather than through Snapshot::for_each_source_run,
// which counts the nodes by node_address: the Nodes section's job may be
// filling that on another thread meanwhile. (One shared helper taking a
// lambda was measured 5-8 % slower on the 10M read.)
void decode_labels(PayloadCursor& c, const uint8_t* kinds, Snapshot& s, size_t e) {
    s.edge_label.clear();
    s.edge_label.reserve(e);
    const size_t n = s.edge_first.size() - 1;
    for (size_t node = 0, k = 0; node < n; ++node) {
        const size_t first = s.edge_first[node];
        for (const size_t end = s.edge_first[node + 1]; k < end; ++k) {
            const uint8_t kind = kinds[k];
            if (kind == static_cast<uint8_t>(EdgeKind::Index) ||
                kind == static_cast<uint8_t>(EdgeKind::Reference)) {
                const int64_t label = static_cast<int64_t>(k - first) + zigzag_decode(c.varint("label column"));
                if (label < 0 || static_cast<uint64_t>(label) > kU32Max)
                    c.fail(ReadErrorCode::Corrupt, "edge " + std::to_string(k) + ": label " +
                                                       std::to_string(label) + " exceeds 32 bits");
                s.edge_label.push_back(static_cast<uint32_t>(label));
            } else {
                s.edge_label.push_back(c.u32("label column"));
            }
        }
    }
}

}  // namespace


// `n`: the node count of the Nodes section.
uint64_t decode_edge_count(PayloadCursor& c, size_t n, uint64_t bytes) {
    // The out-degree column has one varint per node; each edge then takes at
    // least 4 bytes (target, kind, flags, label).
    const uint8_t* start = c.position();
    const uint64_t e = c.varint("edge count");
    const uint64_t remain = bytes - static_cast<uint64_t>(c.position() - start);
    if (e > kMaxCount)
        c.fail(ReadErrorCode::TooLarge, "edge count " + std::to_string(e) +
                                            " exceeds the limit of " + std::to_string(kMaxCount));
    if (n + 4 * e > remain)
        c.fail(ReadErrorCode::Corrupt, "edge count " + std::to_string(e) + " with " +
                                           std::to_string(n) + " nodes needs at least " +
                                           std::to_string(n + 4 * e) + " bytes, " +
                                           std::to_string(remain) + " remain");
    return e;
}

// Each edge's source comes out as the node's first-edge offset
// (Snapshot::edge_first, from the out-degree column), not as a per-edge
// column: 4 bytes a node instead of 4 an edge, and what the analysis uses.
void decode_edges(PayloadCursor& c, Snapshot& s, size_t n) {
    const uint64_t e = decode_edge_count(c, n, c.remaining());
    s.edge_first.resize(n + 1);
    uint64_t filled = 0;
    for (size_t node = 0; node < n; ++node) {
        const uint64_t deg = c.varint("out-degree column");
        if (deg > e - filled)
            c.fail(ReadErrorCode::Corrupt, "out-degree of node " + std::to_string(node) +
                                               " makes more edges than the " + std::to_string(e) +
                                               " declared");
        s.edge_first[node] = static_cast<uint32_t>(filled);
        filled += deg;
    }
    if (filled != e)
        c.fail(ReadErrorCode::Corrupt, "out-degrees add up to " + std::to_string(filled) +
                                           " edges, " + std::to_string(e) + " declared");
    s.edge_first[n] = static_cast<uint32_t>(e);

    // The label column is decoded on a second thread while this one decodes
    // the targets (each is about a third of the section's work). It starts
    // 2e bytes (kinds, flags) after the target column, whose end the job
    // finds by counting varints. Errors keep their order: one in the target,
    // kind or flags columns is thrown from here, after waiting for the job
    // (BackgroundJob's destructor joins it and drops its result); the job's
    // own error comes only after those columns were read without one. The
    // job reads the kinds from the payload and writes only edge_label.
    struct LabelResult {
        bool decoded = false;  // false: the columns before did not fit (this thread says why)
        const uint8_t* end = nullptr;
    } labels;
    BackgroundJob label_job;
    const uint64_t edge_count = e;
    label_job.start([&s, &labels, c, edge_count] {
        const uint8_t* kinds = skip_varints(c.position(), c.end(), edge_count);
        if (kinds == nullptr || static_cast<uint64_t>(c.end() - kinds) < 2 * edge_count) return;
        PayloadCursor label_cursor = c.at(kinds + 2 * edge_count);
        decode_labels(label_cursor, kinds, s, static_cast<size_t>(edge_count));
        labels.end = label_cursor.position();
        labels.decoded = true;
    });
    s.edge_target.resize(static_cast<size_t>(e));
    for (size_t node = 0, k = 0; node < n; ++node) {
        for (const size_t end = s.edge_first[node + 1]; k < end; ++k) {
            const int64_t t = static_cast<int64_t>(node) + zigzag_decode(c.varint("target column"));
            if (t < 0 || static_cast<uint64_t>(t) >= n)
                c.fail(ReadErrorCode::Corrupt, "edge " + std::to_string(k) + ": target " +
                                                   std::to_string(t) + " is out of range (" +
                                                   std::to_string(n) + " nodes)");
            s.edge_target[k] = static_cast<uint32_t>(t);
        }
    }
    const uint8_t* kinds = c.bytes(e, "kind column");
    s.edge_kind.assign(kinds, kinds + e);
    const uint8_t* flags = c.bytes(e, "edge flags column");
    s.edge_flags.assign(flags, flags + e);
    label_job.finish();
    if (labels.decoded) {
        c.skip_to(labels.end);
    } else {
        // Cannot happen when the columns before were read (the job finds
        // the same boundaries), but decoding here is always right.
        decode_labels(c, s.edge_kind.data(), s, static_cast<size_t>(e));
    }
}

void decode_roots(PayloadCursor& c, std::vector<RootRef>& roots) {
    const size_t n = c.count("root count", 5);
    roots.resize(n);
    for (RootRef& r : roots) r.node = c.u32("root node column");
    for (RootRef& r : roots) r.kind = static_cast<RootKind>(c.byte("root kind column"));
    for (RootRef& r : roots) {
        const uint64_t t = c.varint("root thread column");
        if (t > kU32Max)
            c.fail(ReadErrorCode::Corrupt, "root thread " + std::to_string(t) + " exceeds 32 bits");
        r.thread = t == 0 ? kNoNode : static_cast<uint32_t>(t - 1);
    }
    for (RootRef& r : roots) r.label = c.u32("root label column");
    for (RootRef& r : roots) r.count = c.u32("root count column");
}

void decode_threads(PayloadCursor& c, std::vector<ThreadInfo>& threads) {
    const size_t n = c.count("thread count", 3);
    threads.resize(n);
    for (ThreadInfo& t : threads) t.ident = c.varint("thread ident column");
    for (ThreadInfo& t : threads) t.name = c.u32("thread name column");
    for (ThreadInfo& t : threads) {
        const uint8_t b = c.byte("thread main column");
        if (b > 1)
            c.fail(ReadErrorCode::Corrupt,
                   "thread main flag " + std::to_string(b) + " is not 0 or 1");
        t.is_main = b == 1;
    }
}

void decode_allocations(PayloadCursor& c, AllocationSites& a, size_t node_count) {
    a.traceback_limit = c.u32("traceback limit");
    const size_t f = c.count("allocation frame count", 3);
    a.frames.resize(f);
    for (AllocationFrame& frame : a.frames) frame.file = c.u32("frame file column");
    for (AllocationFrame& frame : a.frames) frame.line = c.u32("frame line column");
    for (AllocationFrame& frame : a.frames) frame.function = c.u32("frame function column");
    const size_t t = c.count("traceback count", 2);
    a.traceback_start.assign(1, 0);
    a.traceback_start.reserve(t + 1);
    uint64_t total = 0;
    for (size_t i = 0; i < t; ++i) {
        const uint32_t length = c.u32("traceback length column");
        if (length == 0) c.fail(ReadErrorCode::Corrupt, "traceback " + std::to_string(i) + " has no frames");
        total += length;
        // Each frame id takes at least one byte of what is left.
        if (total > c.remaining())
            c.fail(ReadErrorCode::Corrupt, "tracebacks declare " + std::to_string(total) +
                                               " frames, more than the " + std::to_string(c.remaining()) +
                                               " bytes left");
        a.traceback_start.push_back(static_cast<uint32_t>(total));
    }
    if (t == 0) a.traceback_start.clear();
    a.traceback_frames.resize(static_cast<size_t>(total));
    for (uint32_t& frame : a.traceback_frames) frame = c.u32("traceback frame column");
    const size_t n = c.count("allocation node count", 1);
    if (n != node_count)
        c.fail(ReadErrorCode::Corrupt, "allocation node count " + std::to_string(n) + " differs from the " +
                                           std::to_string(node_count) + " nodes");
    a.node_traceback.resize(n);
    for (uint32_t& tb : a.node_traceback) tb = c.u32("node traceback column");
}

}  // namespace refscope::format

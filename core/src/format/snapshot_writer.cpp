// Snapshot writer: encodes a Snapshot as the section stream of docs/format.md.
//
// It runs inside the target Python process after the heap walk, with the GIL
// released, so it is built to be fast and lean: each column is encoded into a
// 64 KiB chunk that is fed straight into the section's zstd stream, so the
// only large buffer is the compressed payload of the current section (needed
// because the frame, which precedes the payload, carries its length and CRC).
//
// File layout (all integers little-endian):
//
//   offset 0                                     8        10       12
//   +---+---+---+---+---+---+---+---+--------+--------+
//   | R | S | C | O | P | E |\r |\n | major  | minor  |   preamble, 12 bytes
//   +---+---+---+---+---+---+---+---+--------+--------+
//   | section frame + payload: Header                 |
//   | section frame + payload: Strings                |
//   | ... Types, Nodes, Edges, Roots, Threads ...     |
//   | Allocations (1.2, only when traced; optional)   |
//   | section frame (empty payload): End              |
//   +-------------------------------------------------+
//
// Section frame, 28 bytes, then `stored length` payload bytes:
//
//   0       2       4                               12
//   +-------+-------+-------------------------------+
//   |  id   | flags |  stored length (u64)          |
//   +-------+-------+-------------------------------+
//   12                              20              24              28
//   +-------------------------------+---------------+---------------+
//   |  raw length (u64)             | payload CRC   | frame CRC     |
//   +-------------------------------+---------------+---------------+
//   |  payload: `stored length` bytes; one zstd frame if flags & 1,  |
//   |  else the raw bytes (then raw length == stored length)         |
//   +----------------------------------------------------------------+
//
//   flags:       bit 0 kSectionZstd, bit 1 kSectionRequired, others 0.
//   payload CRC: CRC-32C of the stored payload bytes (compressed or not).
//   frame CRC:   CRC-32C of frame bytes 0..23, so that a damaged length is
//                reported as damage rather than as truncation.
//
// Each section's raw payload is a count followed by columns, each column
// contiguous (all node addresses, then all node types, ...): similar values
// sit together, which is what makes zstd effective on them.

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>

#include "format/compression.h"
#include "format/validation.h"
#include "refscope/format/atomic_file.h"
#include "refscope/format/encoding.h"
#include "refscope/format/snapshot_io.h"

namespace refscope::format {

namespace {

// Sections this small are stored uncompressed when zstd does not shrink them
// (a zstd frame has ~10 bytes of overhead; tiny sections often grow).
constexpr size_t kSmallSection = 4096;
constexpr size_t kChunkBytes = 64 * 1024;

// Writes one section: columns are appended with put_*(), then end() emits the
// frame and the payload to the sink.
class SectionWriter {
public:
    SectionWriter(ByteSink& sink, const WriteOptions& options)
        : sink_(sink), chunk_(new uint8_t[kChunkBytes]) {
        // Levels above 19 need windows over 8 MiB, which readers refuse on
        // untrusted input; they gain nothing on snapshot columns anyway.
        if (options.compress)
            compressor_ = std::make_unique<SectionCompressor>(std::min(options.zstd_level, 19));
    }

    void begin(SectionId id) {
        id_ = id;
        raw_bytes_ = 0;
        used_ = 0;
        stored_.clear();
        small_raw_.clear();
        if (compressor_) compressor_->begin();
    }

    void put_varint(uint64_t v) {
        if (used_ + kMaxVarintBytes > kChunkBytes) flush();
        used_ = static_cast<size_t>(format::put_varint(chunk_.get() + used_, v) - chunk_.get());
    }
    void put_zigzag(int64_t v) { put_varint(zigzag_encode(v)); }
    void put_byte(uint8_t b) {
        if (used_ == kChunkBytes) flush();
        chunk_[used_++] = b;
    }
    void put_bytes(const void* data, size_t size) {
        const auto* p = static_cast<const uint8_t*>(data);
        while (size > 0) {
            if (used_ == kChunkBytes) flush();
            const size_t n = std::min(size, kChunkBytes - used_);
            std::memcpy(chunk_.get() + used_, p, n);
            used_ += n;
            p += n;
            size -= n;
        }
    }
    void put_string(std::string_view s) {
        put_varint(s.size());
        put_bytes(s.data(), s.size());
    }

    // Emits the section, or (only when compressing) declines: when the
    // payload compresses better than readers accept (within_compression_bound),
    // nothing is written and the caller encodes the section again with
    // without_compression().
    bool end() {
        flush();
        // Sections of later minors are optional: an older reader skips them.
        uint16_t flags = id_ == SectionId::Allocations ? 0 : kSectionRequired;
        if (compressor_) {
            compressor_->finish(stored_);
            if (!within_compression_bound(stored_.size(), raw_bytes_)) {
                stored_.clear();
                return false;
            }
            flags |= kSectionZstd;
            if (raw_bytes_ <= kSmallSection && stored_.size() >= raw_bytes_) {
                stored_.clear();
                stored_.append(small_raw_.data(), small_raw_.size());
                flags &= static_cast<uint16_t>(~kSectionZstd);
            }
        }
        SectionFrame frame;
        frame.id = static_cast<uint16_t>(id_);
        frame.flags = flags;
        frame.stored_bytes = stored_.size();
        frame.raw_bytes = raw_bytes_;
        uint32_t crc = 0;
        stored_.for_each([&](const uint8_t* data, size_t bytes) { crc = crc32c(data, bytes, crc); });
        frame.crc32c = crc;
        uint8_t bytes[kSectionFrameBytes];
        store_frame(bytes, frame);
        sink_.write(bytes, sizeof bytes);
        stored_.for_each([&](const uint8_t* data, size_t size) { sink_.write(data, size); });
        stored_.clear();
        return true;
    }

    // Runs `encode` (one section's begin … end) with compression off.
    template <typename Encode>
    void without_compression(Encode&& encode) {
        std::unique_ptr<SectionCompressor> saved = std::move(compressor_);
        encode();
        compressor_ = std::move(saved);
    }

private:
    void flush() {
        if (used_ == 0) return;
        if (compressor_) {
            // Keep a raw copy of small sections in case zstd does not pay.
            if (raw_bytes_ + used_ <= kSmallSection)
                small_raw_.insert(small_raw_.end(), chunk_.get(), chunk_.get() + used_);
            compressor_->feed(chunk_.get(), used_, stored_);
        } else {
            stored_.append(chunk_.get(), used_);
        }
        raw_bytes_ += used_;
        used_ = 0;
    }

    ByteSink& sink_;
    std::unique_ptr<SectionCompressor> compressor_;
    std::unique_ptr<uint8_t[]> chunk_;
    size_t used_ = 0;
    SectionId id_ = SectionId::End;
    uint64_t raw_bytes_ = 0;
    PieceBuffer stored_;  // the section's stored bytes, until it ends
    std::vector<uint8_t> small_raw_;
};

// Header: a sequence of fields, each `varint tag, varint length, value`.
// The length lets a reader skip tags it does not know (added by a later
// minor). Strings are raw UTF-8; integers one varint (zigzag when signed).
void put_field(SectionWriter& w, HeaderTag tag, std::string_view value) {
    w.put_varint(static_cast<uint32_t>(tag));
    w.put_string(value);
}
void put_field(SectionWriter& w, HeaderTag tag, uint64_t value) {
    uint8_t buf[kMaxVarintBytes];
    w.put_varint(static_cast<uint32_t>(tag));
    w.put_string(std::string_view(reinterpret_cast<const char*>(buf),
                                  static_cast<size_t>(format::put_varint(buf, value) - buf)));
}

bool write_header(SectionWriter& w, const SnapshotHeader& h) {
    w.begin(SectionId::Header);
    put_field(w, HeaderTag::ProbeVersion, h.probe_version);
    put_field(w, HeaderTag::PythonVersion, h.python_version);
    put_field(w, HeaderTag::PythonHexVersion, h.python_hexversion);
    put_field(w, HeaderTag::PythonBuild, h.python_build);
    put_field(w, HeaderTag::Platform, h.platform);
    put_field(w, HeaderTag::Pid, zigzag_encode(h.pid));
    put_field(w, HeaderTag::Executable, h.executable);
    // Argv: varint count, then each argument as varint length + bytes.
    std::vector<uint8_t> argv;
    append_varint(argv, h.argv.size());
    for (const std::string& a : h.argv) {
        append_varint(argv, a.size());
        argv.insert(argv.end(), a.begin(), a.end());
    }
    put_field(w, HeaderTag::Argv,
              std::string_view(reinterpret_cast<const char*>(argv.data()), argv.size()));
    put_field(w, HeaderTag::TimeUnixNs, zigzag_encode(h.time_unix_ns));
    put_field(w, HeaderTag::CollectedFirst, uint64_t{h.collected_first ? 1u : 0u});
    put_field(w, HeaderTag::Sequence, h.sequence);
    put_field(w, HeaderTag::Label, h.label);
    put_field(w, HeaderTag::WalkNs, h.walk_ns);
    return w.end();
}

// Strings: varint count (including id 0, the empty string, which is not
// stored), a column of count-1 varint lengths, then all bytes concatenated.
bool write_strings(SectionWriter& w, const StringTable& strings) {
    w.begin(SectionId::Strings);
    const uint32_t n = static_cast<uint32_t>(strings.size());
    w.put_varint(n);
    for (uint32_t i = 1; i < n; ++i) w.put_varint(strings.view(i).size());
    for (uint32_t i = 1; i < n; ++i) w.put_bytes(strings.view(i).data(), strings.view(i).size());
    return w.end();
}

// Types: varint count, then columns: name string ids, module string ids,
// type object addresses (all varints), then (since 1.1) one byte of kType*
// flags per type. The flags come last so that a 1.0 reader, which ignores
// bytes after the columns it knows in a newer minor, still reads the file.
bool write_types(SectionWriter& w, const std::vector<TypeInfo>& types) {
    w.begin(SectionId::Types);
    w.put_varint(types.size());
    for (const TypeInfo& t : types) w.put_varint(t.name);
    for (const TypeInfo& t : types) w.put_varint(t.module);
    for (const TypeInfo& t : types) w.put_varint(t.type_address);
    for (const TypeInfo& t : types) w.put_bytes(&t.flags, 1);
    return w.end();
}

// Nodes: varint count N, varint address shift S, then columns of N values:
//   address   zigzag varint of (addr[i] >> S) - (addr[i-1] >> S), addr[-1] = 0,
//             in wrapping 64-bit arithmetic. S is the number of low zero bits
//             common to all addresses (4 for pymalloc's 16-byte alignment).
//             Addresses are in walk order, not sorted, hence signed deltas;
//             objects allocated together sit in the same arena, so deltas
//             are mostly small.
//   type      varint type id
//   size      varint shallow size
//   refcount  zigzag varint
//   flags     one byte
//   preview   varint: 0 = none, else zigzag(id - previous nonzero id) + 1
//             (the probe adds preview strings in walk order, so this is
//             usually 3: "the next string").
bool write_nodes(SectionWriter& w, const Snapshot& s) {
    w.begin(SectionId::Nodes);
    const size_t n = s.node_count();
    w.put_varint(n);
    uint64_t all_bits = 0;
    for (uint64_t a : s.node_address) all_bits |= a;
    const unsigned shift = all_bits ? static_cast<unsigned>(std::countr_zero(all_bits)) : 0;
    w.put_varint(shift);
    uint64_t prev = 0;
    for (uint64_t a : s.node_address) {
        const uint64_t cur = a >> shift;
        w.put_zigzag(static_cast<int64_t>(cur - prev));
        prev = cur;
    }
    for (uint32_t t : s.node_type) w.put_varint(t);
    for (uint64_t sz : s.node_size) w.put_varint(sz);
    for (int64_t rc : s.node_refcount) w.put_zigzag(rc);
    w.put_bytes(s.node_flags.data(), n);
    uint32_t prev_preview = 0;
    for (uint32_t p : s.node_preview) {
        if (p == 0) {
            w.put_varint(0);
        } else {
            w.put_varint(zigzag_encode(int64_t{p} - int64_t{prev_preview}) + 1);
            prev_preview = p;
        }
    }
    return w.end();
}

// True if the edge kind's label is a position (delta-coded against the
// edge's position within its source's edges, see write_edges).
bool label_is_position(uint8_t kind) {
    return kind == static_cast<uint8_t>(EdgeKind::Index) ||
           kind == static_cast<uint8_t>(EdgeKind::Reference);
}

// Edges: varint count E, then columns:
//   out-degree  N varints (N = node count): edges of node 0, of node 1, ...
//               Edges are grouped by source, so this replaces the source
//               column (a node without edges costs one byte, 0).
//   target      E zigzag varints of target - source
//   kind        E bytes (EdgeKind)
//   flags       E bytes (kEdge* bits)
//   label       E varints; for Index and Reference kinds the zigzag of
//               label - position, position being the edge's 0-based index
//               among its source's edges (a list's items become all zeros);
//               for other kinds the label itself.
bool write_edges(SectionWriter& w, const Snapshot& s) {
    w.begin(SectionId::Edges);
    const size_t e = s.edge_count();
    w.put_varint(e);
    // Edges are grouped by source (find_defect checked), held as edge_source
    // or as edge_first: both give each node's run of edges in order.
    s.for_each_source_run([&](uint32_t, size_t begin, size_t end) { w.put_varint(end - begin); });
    s.for_each_source_run([&](uint32_t node, size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k) w.put_zigzag(int64_t{s.edge_target[k]} - int64_t{node});
    });
    w.put_bytes(s.edge_kind.data(), e);
    w.put_bytes(s.edge_flags.data(), e);
    s.for_each_source_run([&](uint32_t, size_t begin, size_t end) {
        s.edge_label.for_each(begin, end, [&](size_t k, uint32_t label) {
            const auto position = static_cast<int64_t>(k - begin);
            if (label_is_position(s.edge_kind[k]))
                w.put_zigzag(int64_t{label} - position);
            else
                w.put_varint(label);
        });
    });
    return w.end();
}

// Roots: varint count, then columns: node id (varint), kind (byte),
// thread (varint, thread id + 1, 0 = none), label string id (varint),
// count (varint).
bool write_roots(SectionWriter& w, const std::vector<RootRef>& roots) {
    w.begin(SectionId::Roots);
    w.put_varint(roots.size());
    for (const RootRef& r : roots) w.put_varint(r.node);
    for (const RootRef& r : roots) w.put_byte(static_cast<uint8_t>(r.kind));
    for (const RootRef& r : roots) w.put_varint(r.thread == kNoNode ? 0 : uint64_t{r.thread} + 1);
    for (const RootRef& r : roots) w.put_varint(r.label);
    for (const RootRef& r : roots) w.put_varint(r.count);
    return w.end();
}

// Threads: varint count, then columns: ident (varint), name string id
// (varint), is_main (byte 0/1).
bool write_threads(SectionWriter& w, const std::vector<ThreadInfo>& threads) {
    w.begin(SectionId::Threads);
    w.put_varint(threads.size());
    for (const ThreadInfo& t : threads) w.put_varint(t.ident);
    for (const ThreadInfo& t : threads) w.put_varint(t.name);
    for (const ThreadInfo& t : threads) w.put_byte(t.is_main ? 1 : 0);
    return w.end();
}

// Allocations (1.2, written only when the probe recorded tracebacks; not
// required: an older reader skips it): varint traceback limit; varint frame
// count F, then columns: file string id, line, function string id (0 =
// unknown); varint traceback count T, then T varints (frames in each
// traceback, at least 1) and their frame ids, the most recent call first;
// varint node count (that of the Nodes section), then per node its
// traceback id + 1, 0 = not traced.
bool write_allocations(SectionWriter& w, const AllocationSites& a) {
    w.begin(SectionId::Allocations);
    w.put_varint(a.traceback_limit);
    w.put_varint(a.frames.size());
    for (const AllocationFrame& f : a.frames) w.put_varint(f.file);
    for (const AllocationFrame& f : a.frames) w.put_varint(f.line);
    for (const AllocationFrame& f : a.frames) w.put_varint(f.function);
    const size_t t = a.traceback_count();
    w.put_varint(t);
    for (size_t i = 0; i < t; ++i) w.put_varint(a.traceback_start[i + 1] - a.traceback_start[i]);
    for (const uint32_t frame : a.traceback_frames) w.put_varint(frame);
    w.put_varint(a.node_traceback.size());
    for (const uint32_t tb : a.node_traceback) w.put_varint(tb);
    return w.end();
}

}  // namespace

void write_snapshot(const Snapshot& snapshot, ByteSink& sink, const WriteOptions& options) {
    if (auto defect = find_defect(snapshot, options.check_addresses)) {
        throw WriteError(std::string("invalid snapshot (") +
                         section_name(static_cast<uint16_t>(defect->section)) +
                         "): " + defect->message);
    }
    try {
        uint8_t preamble[kPreambleBytes];
        std::memcpy(preamble, kMagic, sizeof kMagic);
        store_le16(preamble + 8, kFormatMajor);
        store_le16(preamble + 10, kFormatMinor);
        sink.write(preamble, sizeof preamble);

        SectionWriter w(sink, options);
        // Each section is encoded again, uncompressed, when it compresses
        // past the readers' bound (a heap of millions of identical objects).
        const auto section = [&](auto&& encode) {
            if (!encode()) w.without_compression(encode);
        };
        section([&] { return write_header(w, snapshot.header); });
        section([&] { return write_strings(w, snapshot.strings); });
        section([&] { return write_types(w, snapshot.types); });
        section([&] { return write_nodes(w, snapshot); });
        section([&] { return write_edges(w, snapshot); });
        section([&] { return write_roots(w, snapshot.roots); });
        section([&] { return write_threads(w, snapshot.threads); });
        if (snapshot.allocations.recorded())
            section([&] { return write_allocations(w, snapshot.allocations); });
        w.begin(SectionId::End);
        w.end();
    } catch (const WriteError&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        throw WriteError(std::string("cannot encode snapshot: ") + e.what());
    }
}

std::vector<uint8_t> encode_snapshot(const Snapshot& snapshot, const WriteOptions& options) {
    std::vector<uint8_t> out;
    VectorSink sink(out);
    write_snapshot(snapshot, sink, options);
    return out;
}

void write_snapshot_file(const Snapshot& snapshot, const std::string& path,
                         const WriteOptions& options) {
    try {
        AtomicFile file(path);
        AtomicFileSink sink(file);
        write_snapshot(snapshot, sink, options);
        file.commit();
    } catch (const AtomicFileError& e) {
        throw WriteError(std::string("cannot write snapshot: ") + e.what());
    }
}

}  // namespace refscope::format

// Snapshot reader: decodes and validates the section stream of
// docs/format.md. The input is untrusted (a file from anywhere, a socket):
// every length and count is checked against the format limits and against the
// bytes actually present before anything is allocated, every id is checked
// against the table it indexes, and each failure becomes a ReadError whose
// one-line message names the section and the offset.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "background_job.h"
#include "format/compression.h"
#include "format/validation.h"
#include "refscope/format/encoding.h"
#include "refscope/format/snapshot_io.h"

namespace refscope::format {

const char* to_string(ReadErrorCode code) {
    switch (code) {
        case ReadErrorCode::Io: return "Io";
        case ReadErrorCode::BadMagic: return "BadMagic";
        case ReadErrorCode::NewerVersion: return "NewerVersion";
        case ReadErrorCode::OlderVersion: return "OlderVersion";
        case ReadErrorCode::Truncated: return "Truncated";
        case ReadErrorCode::BadChecksum: return "BadChecksum";
        case ReadErrorCode::Corrupt: return "Corrupt";
        case ReadErrorCode::TooLarge: return "TooLarge";
        case ReadErrorCode::Decompress: return "Decompress";
    }
    return "Unknown";
}

namespace {

constexpr uint64_t kU32Max = std::numeric_limits<uint32_t>::max();

std::string section_label(uint16_t id) {
    const char* name = section_name(id);
    return name ? std::string(name) + " section" : "section " + std::to_string(id);
}

std::string hex16(uint16_t v) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%04x", unsigned{v});
    return buf;
}

std::string supported_majors() {
    if (kOldestReadableMajor == kFormatMajor) return std::to_string(kFormatMajor) + ".x";
    return std::to_string(kOldestReadableMajor) + ".x to " + std::to_string(kFormatMajor) + ".x";
}

// Reads one section's raw payload. Every read is bounds-checked; failures
// name the section, the frame's file offset and the payload byte.
class PayloadCursor {
public:
    PayloadCursor(const uint8_t* data, size_t size, uint16_t id, uint64_t frame_offset)
        : begin_(data), p_(data), end_(data + size), id_(id), frame_offset_(frame_offset) {}

    [[noreturn]] void fail(ReadErrorCode code, const std::string& what) const {
        throw ReadError(code, section_label(id_) + " (frame at offset " +
                                  std::to_string(frame_offset_) + "), payload byte " +
                                  std::to_string(p_ - begin_) + ": " + what);
    }

    size_t remaining() const { return static_cast<size_t>(end_ - p_); }
    const uint8_t* position() const { return p_; }
    const uint8_t* end() const { return end_; }
    // The same section from another position in [position(), end()]: where
    // another thread decodes a later column.
    PayloadCursor at(const uint8_t* p) const {
        PayloadCursor c = *this;
        c.p_ = p;
        return c;
    }
    void skip_to(const uint8_t* p) { p_ = p; }

    // A cursor over the next `len` bytes (a nested structure), reporting
    // errors under the same section and frame offset.
    PayloadCursor sub(uint64_t len, const char* what) {
        const uint8_t* at = bytes(len, what);
        return PayloadCursor(at, static_cast<size_t>(len), id_, frame_offset_);
    }

    uint64_t varint(const char* what) {
        if (p_ < end_ && *p_ < 0x80) return *p_++;  // the common one-byte case
        uint64_t v = 0;
        const size_t n = get_varint(p_, end_, v);
        if (n == 0) {
            if (p_ == end_)
                fail(ReadErrorCode::Corrupt, std::string("section ends before ") + what);
            // Cut short (every remaining byte continues the varint) or malformed?
            bool cut = remaining() < kMaxVarintBytes;
            for (const uint8_t* q = p_; cut && q < end_; ++q) cut = (*q & 0x80) != 0;
            fail(ReadErrorCode::Corrupt,
                 std::string(cut ? "section ends inside " : "bad varint in ") + what);
        }
        p_ += n;
        return v;
    }
    uint32_t u32(const char* what) {
        const uint64_t v = varint(what);
        if (v > kU32Max)
            fail(ReadErrorCode::Corrupt,
                 std::string(what) + " " + std::to_string(v) + " exceeds 32 bits");
        return static_cast<uint32_t>(v);
    }
    uint8_t byte(const char* what) {
        if (p_ == end_) fail(ReadErrorCode::Corrupt, std::string("section ends before ") + what);
        return *p_++;
    }
    const uint8_t* bytes(uint64_t n, const char* what) {
        if (n > remaining())
            fail(ReadErrorCode::Corrupt, std::string(what) + " needs " + std::to_string(n) +
                                             " bytes, " + std::to_string(remaining()) + " remain");
        const uint8_t* at = p_;
        p_ += n;
        return at;
    }
    // A count of elements that each take at least `min_bytes` in this
    // section: refused if above the format limit or if the section cannot
    // possibly hold that many, before anything is allocated for them.
    size_t count(const char* what, uint64_t min_bytes) {
        const uint64_t n = varint(what);
        if (n > kMaxCount)
            fail(ReadErrorCode::TooLarge, std::string(what) + " " + std::to_string(n) +
                                              " exceeds the limit of " + std::to_string(kMaxCount));
        if (n * min_bytes > remaining())
            fail(ReadErrorCode::Corrupt, std::string(what) + " " + std::to_string(n) +
                                             " needs at least " + std::to_string(n * min_bytes) +
                                             " bytes, " + std::to_string(remaining()) + " remain");
        return static_cast<size_t>(n);
    }

private:
    const uint8_t* begin_;
    const uint8_t* p_;
    const uint8_t* end_;
    uint16_t id_;
    uint64_t frame_offset_;
};

std::string read_string_value(PayloadCursor& c, uint64_t len, const char* what) {
    if (len > kMaxStringBytes)
        c.fail(ReadErrorCode::TooLarge, std::string(what) + " of " + std::to_string(len) +
                                            " bytes exceeds the limit of " +
                                            std::to_string(kMaxStringBytes));
    const uint8_t* p = c.bytes(len, what);
    return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(len));
}

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
    auto& raw = table.raw();
    raw.clear();
    raw.reserve(n);
    raw.emplace_back();
    for (uint32_t len : lengths) {
        raw.emplace_back(reinterpret_cast<const char*>(bytes), len);
        bytes += len;
    }
}

void decode_types(PayloadCursor& c, std::vector<TypeInfo>& types) {
    const size_t n = c.count("type count", 3);
    types.resize(n);
    for (TypeInfo& t : types) t.name = c.u32("type name column");
    for (TypeInfo& t : types) t.module = c.u32("type module column");
    for (TypeInfo& t : types) t.type_address = c.varint("type address column");
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
    s.node_size.resize(n);
    for (uint64_t& sz : s.node_size) sz = c.varint("size column");
    s.node_refcount.resize(n);
    for (int64_t& rc : s.node_refcount) rc = zigzag_decode(c.varint("refcount column"));
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

// The label column of `e` edges, with their kinds at `kinds` (edge_source
// already decoded).
void decode_labels(PayloadCursor& c, const uint8_t* kinds, Snapshot& s, size_t e) {
    s.edge_label.resize(e);
    int64_t position = 0;
    for (size_t k = 0; k < e; ++k) {
        position = (k > 0 && s.edge_source[k] == s.edge_source[k - 1]) ? position + 1 : 0;
        const uint8_t kind = kinds[k];
        if (kind == static_cast<uint8_t>(EdgeKind::Index) ||
            kind == static_cast<uint8_t>(EdgeKind::Reference)) {
            const int64_t label = position + zigzag_decode(c.varint("label column"));
            if (label < 0 || static_cast<uint64_t>(label) > kU32Max)
                c.fail(ReadErrorCode::Corrupt, "edge " + std::to_string(k) + ": label " +
                                                   std::to_string(label) + " exceeds 32 bits");
            s.edge_label[k] = static_cast<uint32_t>(label);
        } else {
            s.edge_label[k] = c.u32("label column");
        }
    }
}

// `n`: the node count of the Nodes section.
void decode_edges(PayloadCursor& c, Snapshot& s, size_t n) {
    // The out-degree column has one varint per node; each edge then takes at
    // least 4 bytes (target, kind, flags, label).
    const uint64_t e = c.varint("edge count");
    if (e > kMaxCount)
        c.fail(ReadErrorCode::TooLarge, "edge count " + std::to_string(e) +
                                            " exceeds the limit of " + std::to_string(kMaxCount));
    if (n + 4 * e > c.remaining())
        c.fail(ReadErrorCode::Corrupt, "edge count " + std::to_string(e) + " with " +
                                           std::to_string(n) + " nodes needs at least " +
                                           std::to_string(n + 4 * e) + " bytes, " +
                                           std::to_string(c.remaining()) + " remain");
    s.edge_source.resize(static_cast<size_t>(e));
    uint64_t filled = 0;
    for (size_t node = 0; node < n; ++node) {
        const uint64_t deg = c.varint("out-degree column");
        if (deg > e - filled)
            c.fail(ReadErrorCode::Corrupt, "out-degree of node " + std::to_string(node) +
                                               " makes more edges than the " + std::to_string(e) +
                                               " declared");
        std::fill_n(s.edge_source.begin() + static_cast<ptrdiff_t>(filled), deg,
                    static_cast<uint32_t>(node));
        filled += deg;
    }
    if (filled != e)
        c.fail(ReadErrorCode::Corrupt, "out-degrees add up to " + std::to_string(filled) +
                                           " edges, " + std::to_string(e) + " declared");

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
    for (size_t k = 0; k < e; ++k) {
        const int64_t t = int64_t{s.edge_source[k]} + zigzag_decode(c.varint("target column"));
        if (t < 0 || static_cast<uint64_t>(t) >= n)
            c.fail(ReadErrorCode::Corrupt, "edge " + std::to_string(k) + ": target " +
                                               std::to_string(t) + " is out of range (" +
                                               std::to_string(n) + " nodes)");
        s.edge_target[k] = static_cast<uint32_t>(t);
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

// The sections a v1 file must contain, in this order (End last).
constexpr SectionId kRequiredSections[] = {SectionId::Header, SectionId::Strings, SectionId::Types,
                                           SectionId::Nodes,  SectionId::Edges,   SectionId::Roots,
                                           SectionId::Threads};

// Position of `id` in kRequiredSections, or std::size(kRequiredSections) if
// this reader does not decode that id.
constexpr size_t required_index(uint16_t id) {
    size_t i = 0;
    while (i < std::size(kRequiredSections) && static_cast<uint16_t>(kRequiredSections[i]) != id)
        ++i;
    return i;
}
constexpr size_t kNodesIndex = required_index(static_cast<uint16_t>(SectionId::Nodes));

// The Nodes and Edges sections are independent once the node count is known,
// and on a big snapshot each takes a few hundred milliseconds to decompress
// and decode: the Nodes columns are decoded on a second thread while the
// reader goes on with the Edges section. Errors keep their sequential order:
// the reader would have stopped at a bad Nodes section, so its error wins
// over anything found later in the file, and only after it has finished is
// anything that depends on the node columns (the cross-reference checks)
// looked at.
class NodeColumnsJob {
public:
    // Decodes the columns after the count on a second thread. `buffer` holds
    // the decompressed payload `c` reads (or is empty when `c` reads the
    // caller's input directly); it is kept until the job is done.
    void start(PayloadCursor c, Snapshot& s, size_t n, bool newer_minor,
               std::vector<uint8_t>&& buffer) {
        buffer_ = std::move(buffer);
        job_.start([c, &s, n, newer_minor]() mutable {
            decode_node_columns(c, s, n);
            if (c.remaining() != 0 && !newer_minor)
                c.fail(ReadErrorCode::Corrupt,
                       std::to_string(c.remaining()) + " unexpected bytes after the last column");
        });
    }

    // Waits for the job (if one was started) and rethrows its error.
    void finish() {
        job_.finish();
        buffer_ = {};
    }

private:
    std::vector<uint8_t> buffer_;
    BackgroundJob job_;  // declared last: destroyed (joined) before the buffer
};

}  // namespace

Snapshot decode_snapshot(const uint8_t* data, size_t size) {
    auto fail = [](ReadErrorCode code, const std::string& what) -> void {
        throw ReadError(code, what);
    };

    // Preamble. The magic is compared before the length so that a short
    // non-snapshot file reports "not a snapshot", not "truncated".
    if (size == 0) fail(ReadErrorCode::Truncated, "empty input: no refscope snapshot");
    if (std::memcmp(data, kMagic, std::min(size, sizeof kMagic)) != 0)
        fail(ReadErrorCode::BadMagic, "not a refscope snapshot: bad magic bytes at offset 0");
    if (size < kPreambleBytes)
        fail(ReadErrorCode::Truncated, "truncated at offset " + std::to_string(size) +
                                           ": the preamble needs " +
                                           std::to_string(kPreambleBytes) + " bytes");
    const uint16_t major = load_le16(data + 8);
    const uint16_t minor = load_le16(data + 10);
    if (major > kFormatMajor)
        fail(ReadErrorCode::NewerVersion, "written by refscope format " + std::to_string(major) +
                                              ".x; this reader supports " + supported_majors() +
                                              ": upgrade refscope");
    if (major < kOldestReadableMajor)
        fail(ReadErrorCode::OlderVersion, "written by refscope format " + std::to_string(major) +
                                              ".x; this reader supports " + supported_majors() +
                                              ": convert it with an older refscope");
    // A newer minor of our major may add sections, header fields, trailing
    // columns and flag bits; its unknown parts are skipped instead of refused.
    const bool newer_minor = major == kFormatMajor && minor > kFormatMinor;

    Snapshot s;
    s.header.format_major = major;
    s.header.format_minor = minor;

    uint64_t offset = kPreambleBytes;
    // File offset of each required section's frame (0 = not seen yet), by
    // position in kRequiredSections: for messages and the missing-section check.
    uint64_t frame_offsets[std::size(kRequiredSections)] = {};
    uint32_t sections = 0;
    uint16_t last_known = 0;
    bool seen_end = false;
    std::vector<uint8_t> unpacked;
    std::optional<SectionDecompressor> decompressor;  // created on first use
    size_t node_count = 0;
    NodeColumnsJob node_columns;
    try {
        while (!seen_end) {
            const uint64_t left = size - offset;
            if (left == 0)
                fail(ReadErrorCode::Truncated, "truncated at offset " + std::to_string(offset) +
                                                   " after " + std::to_string(sections) +
                                                   " sections: no End section");
            if (left < kSectionFrameBytes)
                fail(ReadErrorCode::Truncated, "truncated at offset " + std::to_string(size) +
                                                   ": section frame at offset " +
                                                   std::to_string(offset) + " needs " +
                                                   std::to_string(kSectionFrameBytes) + " bytes");
            const uint8_t* fp = data + offset;
            const SectionFrame f = load_frame(fp);
            const std::string where =
                section_label(f.id) + " (frame at offset " + std::to_string(offset) + ")";
            if (!frame_checksum_ok(fp))
                fail(ReadErrorCode::BadChecksum,
                     where + ": frame checksum mismatch (damaged frame)");
            if (++sections > kMaxSections)
                fail(ReadErrorCode::TooLarge,
                     where + ": more than " + std::to_string(kMaxSections) + " sections");
            if (f.stored_bytes > kMaxSectionBytes || f.raw_bytes > kMaxSectionBytes)
                fail(ReadErrorCode::TooLarge,
                     where + ": declares " + std::to_string(std::max(f.stored_bytes, f.raw_bytes)) +
                         " bytes, over the limit of " + std::to_string(kMaxSectionBytes));
            const uint64_t payload_at = offset + kSectionFrameBytes;
            if (f.stored_bytes > size - payload_at)
                fail(ReadErrorCode::Truncated,
                     where + ": declares " + std::to_string(f.stored_bytes) +
                         " payload bytes, the input ends after " +
                         std::to_string(size - payload_at));
            const uint8_t* payload = data + payload_at;
            if (crc32c(payload, static_cast<size_t>(f.stored_bytes)) != f.crc32c)
                fail(ReadErrorCode::BadChecksum, where + ": payload checksum mismatch");
            offset = payload_at + f.stored_bytes;

            const uint16_t known_flags = kSectionZstd | kSectionRequired;
            const size_t index = required_index(f.id);
            const bool decoded = index < std::size(kRequiredSections);
            if (f.id == static_cast<uint16_t>(SectionId::End)) {
                seen_end = true;  // its payload is reserved: empty in 1.0, ignored
                break;
            }
            if (!decoded) {
                // Unknown (or reserved, like NativeNodes in 1.0): skipped unless
                // the writer marked it as required to understand the snapshot.
                if (f.flags & kSectionRequired)
                    fail(newer_minor ? ReadErrorCode::NewerVersion : ReadErrorCode::Corrupt,
                         where + ": unknown section marked required" +
                             (newer_minor ? "; written by refscope format " +
                                                std::to_string(major) + "." +
                                                std::to_string(minor) + ": upgrade refscope"
                                          : std::string()));
                continue;
            }
            if (f.flags & ~known_flags)
                fail(newer_minor ? ReadErrorCode::NewerVersion : ReadErrorCode::Corrupt,
                     where + ": unknown section flags " + hex16(f.flags));
            if (f.id <= last_known)
                fail(ReadErrorCode::Corrupt,
                     where + (f.id == last_known
                                  ? ": duplicate section"
                                  : ": out of order, after the " + section_label(last_known)));
            last_known = f.id;

            const uint8_t* raw = payload;
            size_t raw_size = static_cast<size_t>(f.stored_bytes);
            if (f.flags & kSectionZstd) {
                if (!decompressor) decompressor.emplace();
                const std::string err = decompressor->run(payload, raw_size, f.raw_bytes, unpacked);
                if (!err.empty()) fail(ReadErrorCode::Decompress, where + ": " + err);
                raw = unpacked.data();
                raw_size = unpacked.size();
            } else if (f.raw_bytes != f.stored_bytes) {
                fail(ReadErrorCode::Corrupt,
                     where + ": uncompressed but raw length " + std::to_string(f.raw_bytes) +
                         " differs from stored length " + std::to_string(f.stored_bytes));
            }

            PayloadCursor c(raw, raw_size, f.id, payload_at - kSectionFrameBytes);
            switch (static_cast<SectionId>(f.id)) {
                case SectionId::Header: decode_header(c, s.header); break;
                case SectionId::Strings: decode_strings(c, s.strings); break;
                case SectionId::Types: decode_types(c, s.types); break;
                case SectionId::Nodes:
                    node_count = decode_node_count(c);
                    // `unpacked` goes with the job when it holds the payload.
                    node_columns.start(
                        c, s, node_count, newer_minor,
                        raw == payload ? std::vector<uint8_t>() : std::move(unpacked));
                    unpacked = {};
                    frame_offsets[index] = payload_at - kSectionFrameBytes;
                    continue;  // the job checks for bytes after the last column
                case SectionId::Edges:
                    // The out-degree column has one entry per node.
                    if (frame_offsets[kNodesIndex] == 0)
                        c.fail(ReadErrorCode::Corrupt, "no Nodes section before it");
                    decode_edges(c, s, node_count);
                    break;
                case SectionId::Roots: decode_roots(c, s.roots); break;
                case SectionId::Threads: decode_threads(c, s.threads); break;
                default: break;
            }
            if (c.remaining() != 0 && !newer_minor)
                c.fail(ReadErrorCode::Corrupt,
                       std::to_string(c.remaining()) + " unexpected bytes after the last column");
            frame_offsets[index] = payload_at - kSectionFrameBytes;
        }
    } catch (...) {
        // Found after the Nodes section was handed over: an error of that
        // section comes first.
        node_columns.finish();
        throw;
    }
    node_columns.finish();
    if (offset != size)
        fail(ReadErrorCode::Corrupt, std::to_string(size - offset) +
                                         " unexpected bytes after the End section at offset " +
                                         std::to_string(offset));
    for (size_t i = 0; i < std::size(kRequiredSections); ++i)
        if (frame_offsets[i] == 0)
            fail(ReadErrorCode::Corrupt,
                 "missing " + section_label(static_cast<uint16_t>(kRequiredSections[i])));

    if (auto defect = find_defect(s)) {
        const uint64_t at = frame_offsets[required_index(static_cast<uint16_t>(defect->section))];
        fail(ReadErrorCode::Corrupt, section_label(static_cast<uint16_t>(defect->section)) +
                                         " (frame at offset " + std::to_string(at) +
                                         "): " + defect->message);
    }
    return s;
}

Snapshot read_snapshot_file(const std::string& path) {
    auto io_error = [&](const std::string& what, int err) {
        std::string m = "cannot read " + path + ": " + what;
        if (err) m += ": " + std::generic_category().message(err);
        return ReadError(ReadErrorCode::Io, m);
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw io_error("open failed", errno);
    struct FdCloser {
        int fd;
        ~FdCloser() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw io_error("stat failed", errno);
    if (S_ISDIR(st.st_mode)) throw io_error("is a directory", 0);
    if (!S_ISREG(st.st_mode)) throw io_error("not a regular file", 0);
    std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw io_error("read failed", errno);
        }
        if (n == 0) break;  // the file shrank while we read it
        got += static_cast<size_t>(n);
    }
    bytes.resize(got);
    return decode_snapshot(bytes.data(), bytes.size());
}

}  // namespace refscope::format

// Snapshot reader, part one: the section stream of docs/format.md. The
// input is untrusted (a file from anywhere, a socket): every length and count
// is checked against the format limits and against the bytes actually present
// before anything is allocated, every id is checked against the table it
// indexes, and each failure becomes a ReadError whose one-line message names
// the section and the offset. This file holds the preamble, the section
// frames (checksums, order, decompression), the whole-file checks and file
// reading; the decoding of each section's payload is in section_decoders.cpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "background_job.h"
#include "format/compression.h"
#include "format/section_decoders.h"
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

std::string hex16(uint16_t v) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%04x", unsigned{v});
    return buf;
}

std::string supported_majors() {
    if (kOldestReadableMajor == kFormatMajor) return std::to_string(kFormatMajor) + ".x";
    return std::to_string(kOldestReadableMajor) + ".x to " + std::to_string(kFormatMajor) + ".x";
}

// The sections this reader decodes, in file order (End last): the ones a
// v1 file must contain, then the optional ones of later minors.
constexpr SectionId kKnownSections[] = {SectionId::Header, SectionId::Strings, SectionId::Types,
                                        SectionId::Nodes,  SectionId::Edges,   SectionId::Roots,
                                        SectionId::Threads, SectionId::Allocations};
constexpr size_t kRequiredCount = 7;  // the first seven

// Position of `id` in kKnownSections, or std::size(kKnownSections) if this
// reader does not decode that id.
constexpr size_t known_index(uint16_t id) {
    size_t i = 0;
    while (i < std::size(kKnownSections) && static_cast<uint16_t>(kKnownSections[i]) != id) ++i;
    return i;
}
constexpr size_t kNodesIndex = known_index(static_cast<uint16_t>(SectionId::Nodes));

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
            // Here rather than in find_defect(): the sort overlaps the Edges.
            if (auto defect = address_defect(s)) c.fail(ReadErrorCode::Corrupt, defect->message);
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

struct Preamble {
    uint16_t major;
    uint16_t minor;
};

// The preamble: magic, then the format version this reader must support.
Preamble read_preamble(const uint8_t* data, size_t size) {
    // The magic is compared before the length so that a short
    // non-snapshot file reports "not a snapshot", not "truncated".
    if (size == 0)
        throw ReadError(ReadErrorCode::Truncated, "empty input: no refscope snapshot");
    if (std::memcmp(data, kMagic, std::min(size, sizeof kMagic)) != 0)
        throw ReadError(ReadErrorCode::BadMagic, "not a refscope snapshot: bad magic bytes at offset 0");
    if (size < kPreambleBytes)
        throw ReadError(ReadErrorCode::Truncated, "truncated at offset " + std::to_string(size) +
                                                      ": the preamble needs " +
                                                      std::to_string(kPreambleBytes) + " bytes");
    const uint16_t major = load_le16(data + 8);
    const uint16_t minor = load_le16(data + 10);
    // A newer major is refused by decode_snapshot, which can name the
    // refscope that wrote it (newer_major_error).
    if (major < kOldestReadableMajor)
        throw ReadError(ReadErrorCode::OlderVersion, "written by refscope format " + std::to_string(major) +
                                                         ".x; this reader supports " + supported_majors() +
                                                         ": convert it with an older refscope");
    return {major, minor};
}

// The section frame at `offset`, after `seen` sections, with its own checksum,
// the limits and the payload's bounds and checksum checked; `where` names it
// for every later message.
struct CheckedFrame {
    SectionFrame frame;
    std::string where;
};

CheckedFrame read_frame(const uint8_t* data, size_t size, uint64_t offset, uint32_t seen) {
    const uint64_t left = size - offset;
    if (left == 0)
        throw ReadError(ReadErrorCode::Truncated, "truncated at offset " + std::to_string(offset) +
                                                      " after " + std::to_string(seen) +
                                                      " sections: no End section");
    if (left < kSectionFrameBytes)
        throw ReadError(ReadErrorCode::Truncated, "truncated at offset " + std::to_string(size) +
                                                      ": section frame at offset " + std::to_string(offset) +
                                                      " needs " + std::to_string(kSectionFrameBytes) +
                                                      " bytes");
    const uint8_t* fp = data + offset;
    const SectionFrame f = load_frame(fp);
    const std::string where = section_label(f.id) + " (frame at offset " + std::to_string(offset) + ")";
    if (!frame_checksum_ok(fp))
        throw ReadError(ReadErrorCode::BadChecksum, where + ": frame checksum mismatch (damaged frame)");
    if (seen + 1 > kMaxSections)
        throw ReadError(ReadErrorCode::TooLarge,
                        where + ": more than " + std::to_string(kMaxSections) + " sections");
    if (f.stored_bytes > kMaxSectionBytes || f.raw_bytes > kMaxSectionBytes)
        throw ReadError(ReadErrorCode::TooLarge,
                        where + ": declares " + std::to_string(std::max(f.stored_bytes, f.raw_bytes)) +
                            " bytes, over the limit of " + std::to_string(kMaxSectionBytes));
    if ((f.flags & kSectionZstd) && !within_compression_bound(f.stored_bytes, f.raw_bytes))
        throw ReadError(ReadErrorCode::TooLarge,
                        where + ": " + std::to_string(f.stored_bytes) + " compressed bytes declare " +
                            std::to_string(f.raw_bytes) + ", more than the " +
                            std::to_string(kMaxCompressionRatio) +
                            "-fold no real snapshot reaches (a decompression bomb?)");
    const uint64_t payload_at = offset + kSectionFrameBytes;
    if (f.stored_bytes > size - payload_at)
        throw ReadError(ReadErrorCode::Truncated, where + ": declares " + std::to_string(f.stored_bytes) +
                                                      " payload bytes, the input ends after " +
                                                      std::to_string(size - payload_at));
    const uint8_t* payload = data + payload_at;
    if (crc32c(payload, static_cast<size_t>(f.stored_bytes)) != f.crc32c)
        throw ReadError(ReadErrorCode::BadChecksum, where + ": payload checksum mismatch");
    return {f, where};
}

// The version string of the refscope that wrote a file of a newer major, or
// "" when it cannot be found. Every major keeps the preamble, the section
// frame, the Header as the first section and the Header's field encoding
// with tag 1 = the writer's version (docs/format.md, "Versioning"), so this
// reader can say which refscope reads the file. Nothing else of the newer
// format is trusted: any damage gives "".
std::string newer_writer_version(const uint8_t* data, size_t size) {
    try {
        const CheckedFrame checked = read_frame(data, size, kPreambleBytes, 0);
        const SectionFrame& f = checked.frame;
        if (f.id != static_cast<uint16_t>(SectionId::Header)) return {};
        const uint8_t* payload = data + kPreambleBytes + kSectionFrameBytes;
        std::vector<uint8_t> unpacked;
        size_t raw_size = static_cast<size_t>(f.stored_bytes);
        if (f.flags & kSectionZstd) {
            if (!SectionDecompressor().run(payload, raw_size, f.raw_bytes, unpacked).empty()) return {};
            payload = unpacked.data();
            raw_size = unpacked.size();
        }
        PayloadCursor c(payload, raw_size, f.id, kPreambleBytes);
        while (c.remaining() > 0) {
            const uint64_t tag = c.varint("header field tag");
            const uint64_t len = c.varint("header field length");
            const uint8_t* value = c.bytes(len, "header field");
            if (tag != static_cast<uint64_t>(HeaderTag::ProbeVersion)) continue;
            // A version is short printable ASCII; anything else is not shown.
            if (len == 0 || len > 40) return {};
            std::string version(reinterpret_cast<const char*>(value), static_cast<size_t>(len));
            for (char ch : version)
                if (ch <= ' ' || ch > '~') return {};
            return version;
        }
    } catch (const ReadError&) {
    }
    return {};
}

ReadError newer_major_error(const uint8_t* data, size_t size, uint16_t major, uint16_t minor) {
    const std::string version = newer_writer_version(data, size);
    if (version.empty())
        return ReadError(ReadErrorCode::NewerVersion, "written by refscope format " + std::to_string(major) +
                                                          ".x; this reader supports " + supported_majors() +
                                                          ": upgrade refscope");
    return ReadError(ReadErrorCode::NewerVersion,
                     "written by refscope " + version + " (format " + std::to_string(major) + "." +
                         std::to_string(minor) + "); this reader supports format " + supported_majors() +
                         ": open it with refscope " + version + " or later");
}

// The Edges section's count without its columns (decode_snapshot_outline):
// of a compressed payload only the first bytes are unpacked. The frame and
// its payload checksum were checked by read_frame, as for every section.
uint64_t edge_count_only(const SectionFrame& f, const uint8_t* payload, uint64_t frame_offset,
                         const std::string& where, size_t node_count, bool nodes_seen,
                         std::optional<SectionDecompressor>& decompressor) {
    std::vector<uint8_t> head;
    const uint8_t* raw = payload;
    size_t raw_size = static_cast<size_t>(f.stored_bytes);
    if (f.flags & kSectionZstd) {
        if (!decompressor) decompressor.emplace();
        const std::string err = decompressor->prefix(payload, raw_size, f.raw_bytes, kMaxVarintBytes, head);
        if (!err.empty()) throw ReadError(ReadErrorCode::Decompress, where + ": " + err);
        raw = head.data();
        raw_size = head.size();
    }
    PayloadCursor c(raw, raw_size, f.id, frame_offset);
    if (!nodes_seen) c.fail(ReadErrorCode::Corrupt, "no Nodes section before it");
    return decode_edge_count(c, node_count, f.raw_bytes);
}

// decode_snapshot, or with `edge_count_only` decode_snapshot_outline: the
// Edges section's columns are then not decoded, only its count, which goes
// there.
Snapshot decode_sections(const uint8_t* data, size_t size, uint64_t* edge_count) {
    auto fail = [](ReadErrorCode code, const std::string& what) -> void {
        throw ReadError(code, what);
    };

    const auto [major, minor] = read_preamble(data, size);
    if (major > kFormatMajor) throw newer_major_error(data, size, major, minor);
    // A newer minor of our major may add sections, header fields, trailing
    // columns and flag bits; its unknown parts are skipped instead of refused.
    const bool newer_minor = major == kFormatMajor && minor > kFormatMinor;

    Snapshot s;
    s.header.format_major = major;
    s.header.format_minor = minor;

    uint64_t offset = kPreambleBytes;
    // File offset of each known section's frame (0 = not seen yet), by
    // position in kKnownSections: for messages and the missing-section check.
    uint64_t frame_offsets[std::size(kKnownSections)] = {};
    uint32_t sections = 0;
    uint16_t last_known = 0;
    bool seen_end = false;
    std::vector<uint8_t> unpacked;
    std::optional<SectionDecompressor> decompressor;  // created on first use
    size_t node_count = 0;
    NodeColumnsJob node_columns;
    try {
        while (!seen_end) {
            const CheckedFrame checked = read_frame(data, size, offset, sections++);
            const SectionFrame& f = checked.frame;
            const std::string& where = checked.where;
            const uint64_t payload_at = offset + kSectionFrameBytes;
            const uint8_t* payload = data + payload_at;
            offset = payload_at + f.stored_bytes;

            const uint16_t known_flags = kSectionZstd | kSectionRequired;
            const size_t index = known_index(f.id);
            const bool decoded = index < std::size(kKnownSections);
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

            if (!(f.flags & kSectionZstd) && f.raw_bytes != f.stored_bytes)
                fail(ReadErrorCode::Corrupt,
                     where + ": uncompressed but raw length " + std::to_string(f.raw_bytes) +
                         " differs from stored length " + std::to_string(f.stored_bytes));
            if (edge_count && f.id == static_cast<uint16_t>(SectionId::Edges)) {
                *edge_count = edge_count_only(f, payload, payload_at - kSectionFrameBytes, where, node_count,
                                              frame_offsets[kNodesIndex] != 0, decompressor);
                frame_offsets[index] = payload_at - kSectionFrameBytes;
                continue;
            }
            const uint8_t* raw = payload;
            size_t raw_size = static_cast<size_t>(f.stored_bytes);
            if (f.flags & kSectionZstd) {
                if (!decompressor) decompressor.emplace();
                const std::string err = decompressor->run(payload, raw_size, f.raw_bytes, unpacked);
                if (!err.empty()) fail(ReadErrorCode::Decompress, where + ": " + err);
                raw = unpacked.data();
                raw_size = unpacked.size();
            }

            PayloadCursor c(raw, raw_size, f.id, payload_at - kSectionFrameBytes);
            switch (static_cast<SectionId>(f.id)) {
                case SectionId::Header: decode_header(c, s.header); break;
                case SectionId::Strings: decode_strings(c, s.strings); break;
                case SectionId::Types: decode_types(c, s.types, minor); break;
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
                case SectionId::Allocations:
                    if (frame_offsets[kNodesIndex] == 0)
                        c.fail(ReadErrorCode::Corrupt, "no Nodes section before it");
                    decode_allocations(c, s.allocations, node_count);
                    break;
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
    for (size_t i = 0; i < kRequiredCount; ++i)
        if (frame_offsets[i] == 0)
            fail(ReadErrorCode::Corrupt,
                 "missing " + section_label(static_cast<uint16_t>(kKnownSections[i])));

    if (auto defect = find_defect(s, /*check_addresses=*/false)) {
        const uint64_t at = frame_offsets[known_index(static_cast<uint16_t>(defect->section))];
        fail(ReadErrorCode::Corrupt, section_label(static_cast<uint16_t>(defect->section)) +
                                         " (frame at offset " + std::to_string(at) +
                                         "): " + defect->message);
    }
    return s;
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
    auto io_error = [&](const std::string& what, int err) {
        std::string m = "cannot read " + path + ": " + what;
        if (err) m += ": " + std::generic_category().message(err);
        return ReadError(ReadErrorCode::Io, m);
    };
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is then
    // refused below (a snapshot is a file: its size is read first).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw io_error("open failed", errno);
    struct FdCloser {
        int fd;
        ~FdCloser() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw io_error("stat failed", errno);
    if (S_ISDIR(st.st_mode)) throw io_error("is a directory", 0);
    if (!S_ISREG(st.st_mode)) throw io_error("not a regular file (a FIFO, socket or device)", 0);
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
    return bytes;
}

}  // namespace

Snapshot decode_snapshot(const uint8_t* data, size_t size) { return decode_sections(data, size, nullptr); }

SnapshotOutline decode_snapshot_outline(const uint8_t* data, size_t size) {
    SnapshotOutline outline;
    outline.snapshot = decode_sections(data, size, &outline.edge_count);
    return outline;
}

Snapshot read_snapshot_file(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file_bytes(path);
    return decode_snapshot(bytes.data(), bytes.size());
}

SnapshotOutline read_snapshot_outline(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file_bytes(path);
    return decode_snapshot_outline(bytes.data(), bytes.size());
}

}  // namespace refscope::format

// The section payload decoders of the snapshot reader (private to
// refscope_format): PayloadCursor, the bounds-checked reader of one section's
// raw payload, and the functions that decode each section into the Snapshot.
// The section framing, checksums, decompression and the cross-reference
// checks are in snapshot_reader.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "refscope/format/constants.h"
#include "refscope/format/encoding.h"
#include "refscope/format/snapshot_io.h"
#include "refscope/snapshot.h"

namespace refscope::format {

inline constexpr uint64_t kU32Max = std::numeric_limits<uint32_t>::max();

// "Nodes section", or "section 42" for an id without a name.
std::string section_label(uint16_t id);

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

// Each decoder reads one section's payload from `c` into the snapshot and
// fails through `c`; bytes left after the last column are the caller's check.
void decode_header(PayloadCursor& c, SnapshotHeader& h);
void decode_strings(PayloadCursor& c, StringTable& table);
void decode_types(PayloadCursor& c, std::vector<TypeInfo>& types, uint16_t minor);
// The Nodes section in two steps: the count (which the Edges section needs),
// then the columns.
size_t decode_node_count(PayloadCursor& c);
void decode_node_columns(PayloadCursor& c, Snapshot& s, size_t n);
// `n`: the node count of the Nodes section.
void decode_edges(PayloadCursor& c, Snapshot& s, size_t n);
// The Edges section's count alone (decode_edges reads it first), checked
// against the format limit and against `bytes`, the payload's raw length from
// the cursor's position: `c` may hold only the start of the payload.
uint64_t decode_edge_count(PayloadCursor& c, size_t n, uint64_t bytes);
void decode_roots(PayloadCursor& c, std::vector<RootRef>& roots);
void decode_threads(PayloadCursor& c, std::vector<ThreadInfo>& threads);
// `node_count`: that of the Nodes section (the node column must match it).
void decode_allocations(PayloadCursor& c, AllocationSites& a, size_t node_count);

}  // namespace refscope::format

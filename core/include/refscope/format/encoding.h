// The primitive encodings of the snapshot format (docs/format.md, "Primitive
// encodings"): LEB128 varints, zigzag, CRC-32C and the section frame. Shared by
// the snapshot writer and reader, the tests that forge files, and the live
// wire protocol (protocol/protocol.h: payload varints, frame CRCs), so that
// there is exactly one definition of each.
//
// Header-only except crc32c(); depends on nothing but the standard library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace refscope::format {

// The preamble: 8-byte magic, u16 major, u16 minor (little-endian).
inline constexpr size_t kPreambleBytes = 12;

// Every section starts with this fixed 28-byte frame (all little-endian):
//   u16 id, u16 flags, u64 stored length, u64 raw length, u32 CRC-32C of the
//   stored payload bytes, u32 CRC-32C of the 24 frame bytes before it. The
//   frame checksum exists so that a flipped bit in a length is reported as a
//   bad checksum, not as a misleading "truncated" or "too large". The drawing
//   is in core/src/format/snapshot_writer.cpp.
inline constexpr size_t kSectionFrameBytes = 28;

struct SectionFrame {
    uint16_t id = 0;
    uint16_t flags = 0;
    uint64_t stored_bytes = 0;  // bytes that follow the frame
    uint64_t raw_bytes = 0;     // payload bytes after decompression
    uint32_t crc32c = 0;        // CRC-32C (Castagnoli) of the stored bytes
};

// A varint never takes more than 10 bytes (ceil(64 / 7)).
inline constexpr size_t kMaxVarintBytes = 10;

// CRC-32C (Castagnoli polynomial 0x1EDC6F41, reflected 0x82F63B78, initial
// value and final xor 0xFFFFFFFF): the checksum iSCSI, ext4 and SSE4.2 use.
// `crc` chains calls: crc32c(b, n2, crc32c(a, n1)) == crc32c(a ++ b).
uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0);

inline uint64_t zigzag_encode(int64_t v) {
    // Maps 0, -1, 1, -2, ... to 0, 1, 2, 3, ... so that small negative numbers
    // stay small varints. Done in unsigned arithmetic: no signed overflow.
    return (static_cast<uint64_t>(v) << 1) ^ (v < 0 ? ~uint64_t{0} : uint64_t{0});
}
inline int64_t zigzag_decode(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

// Unsigned LEB128: 7 bits per byte, least significant group first, high bit
// set on every byte but the last. Writes 1..10 bytes at `out`; returns the end.
inline uint8_t* put_varint(uint8_t* out, uint64_t v) {
    while (v >= 0x80) {
        *out++ = static_cast<uint8_t>(v | 0x80);
        v >>= 7;
    }
    *out++ = static_cast<uint8_t>(v);
    return out;
}
inline void append_varint(std::vector<uint8_t>& out, uint64_t v) {
    uint8_t buf[kMaxVarintBytes];
    out.insert(out.end(), buf, put_varint(buf, v));
}

// Decodes one varint from [p, end). Returns the number of bytes used, or 0 if
// the input ends inside the varint or the varint is malformed (more than 10
// bytes, or a 10th byte carrying bits beyond bit 63).
inline size_t get_varint(const uint8_t* p, const uint8_t* end, uint64_t& value) {
    uint64_t v = 0;
    for (size_t i = 0; i < kMaxVarintBytes; ++i) {
        if (p + i >= end) return 0;
        const uint8_t b = p[i];
        if (i == kMaxVarintBytes - 1 && b > 1) return 0;
        v |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            value = v;
            return i + 1;
        }
    }
    return 0;
}

inline void store_le16(uint8_t* p, uint16_t v) {
    p[0] = static_cast<uint8_t>(v);
    p[1] = static_cast<uint8_t>(v >> 8);
}
inline void store_le32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void store_le64(uint8_t* p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint16_t load_le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t load_le32(const uint8_t* p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
    return v;
}
inline uint64_t load_le64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
    return v;
}

inline void store_frame(uint8_t* out, const SectionFrame& f) {
    store_le16(out + 0, f.id);
    store_le16(out + 2, f.flags);
    store_le64(out + 4, f.stored_bytes);
    store_le64(out + 12, f.raw_bytes);
    store_le32(out + 20, f.crc32c);
    // Bytes 24..27 are the frame's own CRC-32C over bytes 0..23 (see below).
    store_le32(out + 24, crc32c(out, 24));
}
inline SectionFrame load_frame(const uint8_t* in) {
    SectionFrame f;
    f.id = load_le16(in + 0);
    f.flags = load_le16(in + 2);
    f.stored_bytes = load_le64(in + 4);
    f.raw_bytes = load_le64(in + 12);
    f.crc32c = load_le32(in + 20);
    return f;
}
// True if the frame's own checksum (bytes 24..27) matches bytes 0..23.
inline bool frame_checksum_ok(const uint8_t* in) { return load_le32(in + 24) == crc32c(in, 24); }

// The name used in error messages and docs ("Nodes"), or nullptr if unknown.
const char* section_name(uint16_t id);

}  // namespace refscope::format

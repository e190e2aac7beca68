// The primitive encodings (varint, zigzag, CRC-32C) against known vectors,
// and the annotated example of docs/format-example.md byte for byte, so that the
// document cannot drift from the code.
#include <gtest/gtest.h>

#include <random>

#include "format/piece_buffer.h"
#include "snapshot_compare.h"
#include "test_support.h"

namespace refscope::testing {
namespace {

std::vector<uint8_t> varint_bytes(uint64_t v) {
    std::vector<uint8_t> out;
    format::append_varint(out, v);
    return out;
}

TEST(Varint, KnownEncodings) {
    EXPECT_EQ(varint_bytes(0), (std::vector<uint8_t>{0x00}));
    EXPECT_EQ(varint_bytes(127), (std::vector<uint8_t>{0x7F}));
    EXPECT_EQ(varint_bytes(128), (std::vector<uint8_t>{0x80, 0x01}));
    EXPECT_EQ(varint_bytes(300), (std::vector<uint8_t>{0xAC, 0x02}));
    // (Built at its final size: GCC 16 warns, wrongly, on a push_back past 9.)
    std::vector<uint8_t> max(10, 0xFF);
    max.back() = 0x01;
    EXPECT_EQ(varint_bytes(UINT64_MAX), max);
}

TEST(Varint, DecodeRejectsOverlongCutAndOverflowing) {
    uint64_t v = 0;
    const std::vector<uint8_t> eleven(11, 0x80);
    EXPECT_EQ(format::get_varint(eleven.data(), eleven.data() + eleven.size(), v), 0u);
    std::vector<uint8_t> overflow(10, 0xFF);
    overflow.back() = 0x02;
    EXPECT_EQ(format::get_varint(overflow.data(), overflow.data() + overflow.size(), v), 0u);
    const uint8_t cut[] = {0x80, 0x80};
    EXPECT_EQ(format::get_varint(cut, cut + 2, v), 0u);
    const uint8_t non_minimal[] = {0x80, 0x00};
    EXPECT_EQ(format::get_varint(non_minimal, non_minimal + 2, v), 2u);
    EXPECT_EQ(v, 0u);
    std::mt19937_64 rng(1);
    for (int i = 0; i < 10'000; ++i) {
        const uint64_t x = rng() >> (rng() % 64);
        const std::vector<uint8_t> b = varint_bytes(x);
        ASSERT_EQ(format::get_varint(b.data(), b.data() + b.size(), v), b.size());
        ASSERT_EQ(v, x);
    }
}

TEST(Zigzag, KnownPairs) {
    const std::pair<int64_t, uint64_t> pairs[] = {{0, 0},
                                                  {-1, 1},
                                                  {1, 2},
                                                  {-2, 3},
                                                  {2, 4},
                                                  {INT64_MAX, UINT64_MAX - 1},
                                                  {INT64_MIN, UINT64_MAX}};
    for (auto [n, z] : pairs) {
        EXPECT_EQ(format::zigzag_encode(n), z);
        EXPECT_EQ(format::zigzag_decode(z), n);
    }
}

uint32_t crc32c_bitwise(const uint8_t* p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    }
    return ~c;
}

TEST(Crc32c, CheckValueAndChaining) {
    const char* check = "123456789";
    EXPECT_EQ(format::crc32c(check, 9), 0xE3069283u);
    EXPECT_EQ(format::crc32c(nullptr, 0), 0u);
    EXPECT_EQ(format::crc32c(check + 4, 5, format::crc32c(check, 4)), 0xE3069283u);
    // Every length and alignment against the one-bit-at-a-time definition.
    std::vector<uint8_t> data(300);
    std::mt19937 rng(5);
    for (uint8_t& b : data) b = static_cast<uint8_t>(rng());
    for (size_t start = 0; start < 9; ++start)
        for (size_t len = 0; start + len <= data.size(); len += 7)
            ASSERT_EQ(format::crc32c(data.data() + start, len),
                      crc32c_bitwise(data.data() + start, len));
}

// docs/format-example.md, "Annotated example".
const uint8_t kDocExample[] = {
    0x52, 0x53, 0x43, 0x4f, 0x50, 0x45, 0x0d, 0x0a, 0x01, 0x00, 0x03, 0x00, 0x01, 0x00, 0x02, 0x00,
    0x2c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xc0, 0x75, 0x3c, 0x29, 0xfa, 0x53, 0x47, 0x36, 0x01, 0x03, 0x30, 0x2e, 0x31, 0x02, 0x00, 0x03,
    0x04, 0xf0, 0x83, 0xb0, 0x18, 0x04, 0x00, 0x0d, 0x00, 0x05, 0x01, 0x54, 0x06, 0x00, 0x07, 0x06,
    0x01, 0x04, 0x61, 0x2e, 0x70, 0x79, 0x08, 0x01, 0x00, 0x09, 0x01, 0x01, 0x0a, 0x01, 0x01, 0x0b,
    0x00, 0x0c, 0x01, 0x00, 0x02, 0x00, 0x02, 0x00, 0x16, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x16, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0xdc, 0x68, 0x70, 0x6c, 0x8a, 0x73, 0xf8,
    0x05, 0x08, 0x04, 0x04, 0x01, 0x62, 0x75, 0x69, 0x6c, 0x74, 0x69, 0x6e, 0x73, 0x6c, 0x69, 0x73,
    0x74, 0x4d, 0x61, 0x69, 0x6e, 0x78, 0x03, 0x00, 0x02, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x54, 0xa2, 0x0a, 0xe0, 0x25, 0x22,
    0xa6, 0x89, 0x01, 0x02, 0x01, 0x80, 0xa0, 0x80, 0x80, 0x80, 0xe0, 0x1f, 0x03, 0x04, 0x00, 0x02,
    0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xe9, 0x8a, 0xc6, 0xc3, 0xc1, 0x88, 0x20, 0xe1, 0x02, 0x04, 0x82, 0x80, 0xab, 0xb4, 0xa4,
    0xfc, 0x03, 0x0a, 0x00, 0x00, 0x48, 0x38, 0x02, 0x04, 0x01, 0x01, 0x00, 0x05, 0x05, 0x00, 0x02,
    0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0xc0, 0x90, 0x12, 0x8c, 0xa7, 0x57, 0x50, 0xa3, 0x01, 0x01, 0x00, 0x02, 0x05, 0x03, 0x00,
    0x06, 0x00, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x8a, 0xcd, 0xff, 0x7c, 0xa2, 0x25, 0xdf, 0x70, 0x01, 0x00, 0x01, 0x01,
    0x04, 0x01, 0x08, 0x00, 0x02, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xdc, 0x9a, 0xfa, 0x89, 0x17, 0x0b, 0x39, 0xf7, 0x01, 0xd2,
    0x09, 0x03, 0x01, 0xff, 0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0xd5, 0x19, 0x61};

Snapshot doc_example_snapshot() {
    Snapshot s;
    s.header.probe_version = "0.1";
    s.header.python_hexversion = 0x030C01F0;
    s.header.pid = 42;
    s.header.argv = {"a.py"};
    s.header.collected_first = true;
    s.header.sequence = 1;
    const uint32_t builtins = s.strings.add("builtins");
    const uint32_t list = s.strings.add("list");
    const uint32_t main_name = s.strings.add("Main");
    const uint32_t x = s.strings.add("x");
    s.types.push_back({list, builtins, 0x7f0000001000, format::kTypeFactsRecorded | format::kTypeHasGc});
    s.add_node(0x7f1234560010, 0, 72, 1, format::kNodeGcTracked, 0);
    s.add_node(0x7f1234560060, 0, 56, 2, format::kNodeGcTracked, list);
    s.add_edge(0, 1, format::EdgeKind::Index, format::kEdgeOwned | format::kEdgeGcVisible, 0);
    s.threads.push_back({1234, main_name, true});
    s.roots.push_back({0, format::RootKind::ThreadStack, 0, x, 1});
    return s;
}

TEST(DocExample, WriterProducesTheDocumentedBytes) {
    const std::vector<uint8_t> expected(std::begin(kDocExample), std::end(kDocExample));
    ASSERT_EQ(expected.size(), 351u);
    const Snapshot s = doc_example_snapshot();
    EXPECT_EQ(format::encode_snapshot(s, {false, 0}), expected);
    EXPECT_EQ(format::encode_snapshot(s, {true, 3}), expected);  // too small to compress
    EXPECT_TRUE(same_snapshot(s, format::decode_snapshot(expected.data(), expected.size())));
}

// The writer's buffer for a section's stored bytes: writes through room()
// and commit() (zstd's path) and append() (the uncompressed path) that
// cross piece boundaries keep every byte in order, and clear() empties it.
TEST(PieceBuffer, BytesAcrossPiecesStayInOrder) {
    format::PieceBuffer buffer;
    std::vector<uint8_t> expected;
    std::mt19937 random(7);
    size_t room = 0;
    // Partial writes into the room, as zstd leaves them.
    for (int round = 0; round < 40; ++round) {
        uint8_t* to = buffer.room(room);
        ASSERT_GE(room, 1u);
        ASSERT_LE(room, format::PieceBuffer::kPiece);
        const size_t n = std::min<size_t>(room, random() % 50000);
        for (size_t i = 0; i < n; ++i) to[i] = static_cast<uint8_t>(random());
        expected.insert(expected.end(), to, to + n);
        buffer.commit(n);
    }
    std::vector<uint8_t> big(format::PieceBuffer::kPiece * 2 + 17);
    for (uint8_t& b : big) b = static_cast<uint8_t>(random());
    buffer.append(big.data(), big.size());
    expected.insert(expected.end(), big.begin(), big.end());
    EXPECT_EQ(buffer.size(), expected.size());
    EXPECT_EQ(buffer.joined(), expected);
    size_t pieces = 0;
    buffer.for_each([&](const uint8_t*, size_t bytes) {
        ++pieces;
        EXPECT_LE(bytes, format::PieceBuffer::kPiece);
    });
    EXPECT_EQ(pieces, (expected.size() + format::PieceBuffer::kPiece - 1) / format::PieceBuffer::kPiece);
    buffer.clear();
    EXPECT_TRUE(buffer.empty());
    EXPECT_TRUE(buffer.joined().empty());
    buffer.append(big.data(), 3);
    EXPECT_EQ(buffer.joined(), std::vector<uint8_t>(big.begin(), big.begin() + 3));
}

}  // namespace
}  // namespace refscope::testing

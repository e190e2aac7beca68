// The bound on how far a section may unpack (constants.h,
// within_compression_bound): a decompression bomb — a few KB of zstd that
// declare hundreds of megabytes — is refused before anything is unpacked,
// and the writer keeps every file inside the bound, storing a section that
// compresses better (millions of identical objects) uncompressed.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "format/compression.h"
#include "refscope/format/constants.h"
#include "refscope/format/encoding.h"
#include "refscope/format/snapshot_io.h"
#include "test_support.h"

namespace refscope::testing {
namespace {

using format::SectionId;

// `count` objects that read alike in every column: one type, one size, one
// refcount, addresses 32 bytes apart (pymalloc hands out exactly that).
Snapshot identical_objects(uint32_t count) {
    Snapshot s;
    s.header.pid = 7;
    const uint32_t type = static_cast<uint32_t>(s.types.size());
    s.types.push_back({s.strings.add("app.Point"), s.strings.add("app"), 0x5555'0000'0000});
    for (uint32_t i = 0; i < count; ++i) s.add_node(0x7f00'0000'0000 + 32ull * i, type, 32, 1, 0, 0);
    return s;
}

TEST(CompressionBound, RegularHeapIsWrittenInsideTheBoundAndReadsBack) {
    const Snapshot s = identical_objects(400'000);
    const std::vector<uint8_t> bytes = format::encode_snapshot(s);
    RawFile file = split_sections(bytes);
    for (const RawSection& section : file.sections) {
        EXPECT_TRUE(format::within_compression_bound(section.frame.stored_bytes, section.frame.raw_bytes))
            << "section " << section.frame.id;
    }
    // Zstd would pack these columns thousands of times: stored plain.
    const RawSection& nodes = find_section(file, SectionId::Nodes);
    EXPECT_EQ(nodes.frame.flags & format::kSectionZstd, 0);
    EXPECT_EQ(nodes.frame.stored_bytes, nodes.frame.raw_bytes);
    const Snapshot back = format::decode_snapshot(bytes.data(), bytes.size());
    EXPECT_EQ(back.node_count(), 400'000u);
    EXPECT_EQ(back.node_address.back(), s.node_address.back());
}

// The writer's compressor writes into whatever room the last piece has
// left, down to one byte: a frame of 1 MiB of random bytes (as large
// compressed, four pieces and more) fed in odd sizes decompresses to them.
TEST(CompressionBound, FramesAcrossPiecesDecompress) {
    std::vector<uint8_t> raw(1u << 20);
    uint32_t x = 12345;
    for (uint8_t& b : raw) b = static_cast<uint8_t>((x = x * 1103515245u + 12345u) >> 24);
    format::PieceBuffer pieces;
    size_t room = 0;
    pieces.room(room);
    pieces.commit(format::PieceBuffer::kPiece - 1);  // one byte of room left
    format::SectionCompressor compressor(3);
    compressor.begin();
    for (size_t at = 0; at < raw.size();) {
        const size_t n = std::min<size_t>(raw.size() - at, 1 + at % 77777);
        compressor.feed(raw.data() + at, n, pieces);
        at += n;
    }
    compressor.finish(pieces);
    ASSERT_GT(pieces.size(), 4 * format::PieceBuffer::kPiece);
    const std::vector<uint8_t> joined = pieces.joined();
    const size_t skip = format::PieceBuffer::kPiece - 1;
    std::vector<uint8_t> out;
    format::SectionDecompressor decompressor;
    EXPECT_EQ(decompressor.run(joined.data() + skip, joined.size() - skip, raw.size(), out), "");
    EXPECT_EQ(out, raw);
}

TEST(CompressionBound, DecompressionBombIsRefusedBeforeUnpacking) {
    // A Header section of 64 MiB of zeros packs into a few KB.
    const std::vector<uint8_t> zeros(64u << 20, 0);
    format::PieceBuffer pieces;
    format::SectionCompressor compressor(3);
    compressor.begin();
    compressor.feed(zeros.data(), zeros.size(), pieces);
    compressor.finish(pieces);
    const std::vector<uint8_t> packed = pieces.joined();
    ASSERT_LT(packed.size(), 64u << 10);

    RawFile file = split_sections(forge_snapshot(make_small_snapshot()));
    RawSection& header = find_section(file, SectionId::Header);
    header.payload = packed;
    header.frame.flags |= format::kSectionZstd;
    header.frame.stored_bytes = packed.size();
    header.frame.raw_bytes = zeros.size();
    header.frame.crc32c = format::crc32c(packed.data(), packed.size());
    const std::vector<uint8_t> bomb = join_sections(file);
    try {
        format::decode_snapshot(bomb.data(), bomb.size());
        FAIL() << "the bomb was read";
    } catch (const format::ReadError& e) {
        EXPECT_EQ(e.code(), format::ReadErrorCode::TooLarge);
        EXPECT_NE(std::string(e.what()).find("decompression bomb"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("Header"), std::string::npos) << e.what();
    }
}

TEST(CompressionBound, TheBoundItself) {
    EXPECT_TRUE(format::within_compression_bound(1000, 1000 * format::kMaxCompressionRatio));
    EXPECT_FALSE(format::within_compression_bound(1000, 1000 * format::kMaxCompressionRatio +
                                                            format::kCompressionSlack + 1));
    // Tiny sections may unpack further: their frame overhead dominates.
    EXPECT_TRUE(format::within_compression_bound(12, format::kCompressionSlack));
}

}  // namespace
}  // namespace refscope::testing

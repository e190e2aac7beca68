// decode_snapshot_outline (what `refscope-cli info` reads): everything but
// the Edges section's columns, the same as the full reader otherwise; the
// edge count as the section declares it; damage to the section's bytes still
// caught by its checksum, and the count by the full reader's limits.
#include <gtest/gtest.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "snapshot_compare.h"
#include "test_support.h"

namespace refscope::testing {
namespace {

using format::ReadErrorCode;

format::SnapshotOutline outline_of(const std::vector<uint8_t>& bytes) {
    return format::decode_snapshot_outline(bytes.data(), bytes.size());
}

Snapshot without_edges(Snapshot s) {
    s.edge_source.clear();
    s.edge_first.clear();
    s.edge_target.clear();
    s.edge_kind.clear();
    s.edge_flags.clear();
    s.edge_label.clear();
    return s;
}

// The message and code of the outline's error ("" and a failure if none).
std::string outline_error(const std::vector<uint8_t>& bytes, ReadErrorCode code) {
    try {
        outline_of(bytes);
        ADD_FAILURE() << "read without error; expected " << format::to_string(code);
    } catch (const format::ReadError& e) {
        EXPECT_EQ(format::to_string(e.code()), std::string(format::to_string(code))) << e.what();
        return e.what();
    }
    return {};
}

// Plain and compressed: a heap big enough that its Edges section is stored
// compressed (only its first bytes are then unpacked), and the snapshot with
// every section the format has.
TEST(SnapshotOutline, IsTheFullReadWithoutTheEdges) {
    const Snapshot snapshots[] = {make_every_feature_snapshot(), make_synthetic_heap(50'000, 3)};
    for (const Snapshot& original : snapshots) {
        for (const bool compress : {false, true}) {
            const std::vector<uint8_t> bytes = format::encode_snapshot(original, {compress, 3});
            const Snapshot full = format::decode_snapshot(bytes.data(), bytes.size());
            const format::SnapshotOutline outline = outline_of(bytes);
            EXPECT_EQ(outline.edge_count, full.edge_count());
            EXPECT_EQ(outline.snapshot.edge_count(), 0u);
            EXPECT_TRUE(same_snapshot(outline.snapshot, without_edges(full)));
        }
    }
    RawFile compressed = split_sections(format::encode_snapshot(snapshots[1], {true, 3}));
    EXPECT_TRUE(find_section(compressed, format::SectionId::Edges).frame.flags & format::kSectionZstd);
}

// The point of the outline: edge columns that do not decode do not matter
// to it, and do to the full reader.
TEST(SnapshotOutline, DoesNotDecodeTheEdgeColumns) {
    const Snapshot original = make_synthetic_heap(20'000, 5);
    const std::vector<uint8_t> bytes = with_unreadable_edge_columns(format::encode_snapshot(original, {false, 0}));
    EXPECT_NE(expect_read_error(bytes, ReadErrorCode::Corrupt).find("Edges section"), std::string::npos);
    const format::SnapshotOutline outline = outline_of(bytes);
    EXPECT_EQ(outline.edge_count, original.edge_count());
    EXPECT_TRUE(same_snapshot(outline.snapshot, without_edges(original)));
}

TEST(SnapshotOutline, DamagedEdgesSectionIsStillRefused) {
    const std::vector<uint8_t> good = format::encode_snapshot(make_synthetic_heap(20'000, 5), {true, 3});
    // A flipped byte in the payload: the checksum catches it.
    {
        RawFile f = split_sections(good);
        RawSection& edges = find_section(f, format::SectionId::Edges);
        edges.payload[edges.payload.size() / 2] ^= 0x10;
        EXPECT_NE(outline_error(join_sections(f), ReadErrorCode::BadChecksum).find("Edges section"),
                  std::string::npos);
    }
    // The file cut in the middle of the Edges payload: as the full reader says.
    {
        size_t edges_middle = format::kPreambleBytes;
        for (const RawSection& s : split_sections(good).sections) {
            if (s.frame.id == static_cast<uint16_t>(format::SectionId::Edges)) {
                edges_middle += format::kSectionFrameBytes + s.payload.size() / 2;
                break;
            }
            edges_middle += format::kSectionFrameBytes + s.payload.size();
        }
        const std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<ptrdiff_t>(edges_middle));
        try {
            format::decode_snapshot(cut.data(), cut.size());
            ADD_FAILURE() << "the cut file decoded";
        } catch (const format::ReadError& e) {
            EXPECT_EQ(outline_error(cut, e.code()), e.what());
        }
    }
    // A count the payload cannot hold, and one over the format's limit.
    for (const uint64_t count : {uint64_t{1'000'000}, format::kMaxCount + 1}) {
        RawFile f = split_sections(format::encode_snapshot(make_small_snapshot(), {false, 0}));
        RawSection& edges = find_section(f, format::SectionId::Edges);
        std::vector<uint8_t> payload;
        format::append_varint(payload, count);
        uint64_t old_count = 0;
        const size_t old_bytes = format::get_varint(edges.payload.data(), edges.payload.data() + edges.payload.size(),
                                                    old_count);
        payload.insert(payload.end(), edges.payload.begin() + static_cast<ptrdiff_t>(old_bytes), edges.payload.end());
        set_payload(edges, payload);
        const std::vector<uint8_t> bytes = join_sections(f);
        const ReadErrorCode code = count > format::kMaxCount ? ReadErrorCode::TooLarge : ReadErrorCode::Corrupt;
        EXPECT_EQ(outline_error(bytes, code), expect_read_error(bytes, code));
    }
}

// An Edges section compressed by another writer whose zstd frame declares a
// window larger than the readers stream with (2^27 bytes, no content size):
// the full reader decodes a plausibly sized frame in one shot, which needs no
// window, and the outline must accept it too (a fuzzer found them apart).
TEST(SnapshotOutline, AcceptsAWideWindowFrameAsTheFullReaderDoes) {
    const Snapshot original = make_synthetic_heap(20'000, 5);
    RawFile f = split_sections(format::encode_snapshot(original, {false, 0}));
    RawSection& edges = find_section(f, format::SectionId::Edges);
    const std::vector<uint8_t> raw = edges.payload;
    std::vector<uint8_t> packed(ZSTD_compressBound(raw.size()));
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, 27);
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
    // Streamed in two calls, so zstd does not know the size and shrink the
    // window to it.
    ZSTD_outBuffer out{packed.data(), packed.size(), 0};
    ZSTD_inBuffer in{raw.data(), raw.size() / 2, 0};
    ASSERT_FALSE(ZSTD_isError(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_continue)));
    in.size = raw.size();
    ASSERT_EQ(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end), 0u);
    ZSTD_freeCCtx(cctx);
    packed.resize(out.pos);
    {   // The premise: a stream limited to an 8 MiB window refuses it.
        ZSTD_DCtx* dctx = ZSTD_createDCtx();
        ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 23);
        std::vector<uint8_t> head(16);
        ZSTD_inBuffer pin{packed.data(), packed.size(), 0};
        ZSTD_outBuffer pout{head.data(), head.size(), 0};
        const size_t rc = ZSTD_decompressStream(dctx, &pout, &pin);
        ZSTD_freeDCtx(dctx);
        ASSERT_TRUE(ZSTD_isError(rc));
        ASSERT_EQ(ZSTD_getErrorCode(rc), ZSTD_error_frameParameter_windowTooLarge);
    }
    edges.frame.flags |= format::kSectionZstd;
    edges.frame.raw_bytes = raw.size();
    set_payload(edges, packed);
    const std::vector<uint8_t> bytes = join_sections(f);
    const Snapshot full = format::decode_snapshot(bytes.data(), bytes.size());
    EXPECT_EQ(full.edge_count(), original.edge_count());
    EXPECT_EQ(outline_of(bytes).edge_count, original.edge_count());
}

// Damage anywhere else is refused exactly as by the full reader.
TEST(SnapshotOutline, OtherSectionsAreCheckedAsByTheFullReader) {
    const std::vector<uint8_t> good = format::encode_snapshot(make_every_feature_snapshot(), {false, 0});
    for (const format::SectionId id : {format::SectionId::Header, format::SectionId::Nodes,
                                       format::SectionId::Roots, format::SectionId::Allocations}) {
        RawFile f = split_sections(good);
        RawSection& section = find_section(f, id);
        std::vector<uint8_t> payload = section.payload;
        payload.push_back(0);  // a byte after the last column
        set_payload(section, payload);
        const std::vector<uint8_t> bytes = join_sections(f);
        EXPECT_EQ(outline_error(bytes, ReadErrorCode::Corrupt), expect_read_error(bytes, ReadErrorCode::Corrupt));
    }
}

}  // namespace
}  // namespace refscope::testing

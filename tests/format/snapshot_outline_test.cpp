// decode_snapshot_outline (what `refscope-cli info` reads): everything but
// the Edges section's columns, the same as the full reader otherwise; the
// edge count as the section declares it; damage to the section's bytes still
// caught by its checksum, and the count by the full reader's limits.
#include <gtest/gtest.h>

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

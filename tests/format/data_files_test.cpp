// The checked-in files in tests/data (made by make_test_files.cpp): each must
// read, or fail with its code, forever. good-v1.rscope pins format 1.0 and
// good-v1.3.rscope format 1.3 with every part 1.1-1.3 added: if one stops
// decoding to its snapshot, a later reader broke the upgrade path
// (docs/format.md, "Versioning").
#include <gtest/gtest.h>

#include "snapshot_compare.h"
#include "test_support.h"

namespace refscope::testing {
namespace {

using format::ReadErrorCode;

std::string data_file(const std::string& name) {
    return std::string(REFSCOPE_TEST_DATA_DIR) + "/" + name;
}

TEST(DataFiles, GoodV1DecodesToTheSmallSnapshot) {
    const Snapshot s = format::read_snapshot_file(data_file("good-v1.rscope"));
    EXPECT_TRUE(same_snapshot(make_small_snapshot(), s));
    EXPECT_EQ(s.header.format_major, 1);
    EXPECT_EQ(s.header.format_minor, 0);
}

TEST(DataFiles, GoodV1MixesCompressedAndRawSections) {
    std::FILE* f = std::fopen(data_file("good-v1.rscope").c_str(), "rb");
    ASSERT_NE(f, nullptr);
    std::vector<uint8_t> bytes(1 << 16);
    bytes.resize(std::fread(bytes.data(), 1, bytes.size(), f));
    std::fclose(f);
    int zstd = 0, raw = 0;
    for (const RawSection& s : split_sections(bytes).sections)
        (s.frame.flags & format::kSectionZstd ? zstd : raw)++;
    EXPECT_GT(zstd, 0);
    EXPECT_GT(raw, 0);
}

TEST(DataFiles, GoodV1_3DecodesWithEveryPartItAdded) {
    const Snapshot s = format::read_snapshot_file(data_file("good-v1.3.rscope"));
    EXPECT_TRUE(same_snapshot(make_every_feature_snapshot(), s));
    EXPECT_EQ(s.header.format_major, 1);
    EXPECT_EQ(s.header.format_minor, 3);
    // What each minor added is there, not only equal to a builder that might
    // have lost it: type flags (1.1), allocation sites (1.2), the inferred
    // edge and extension-type node flags (1.3).
    EXPECT_NE(s.types[5].flags & format::kTypeBound, 0);
    EXPECT_EQ(s.allocations.frames.size(), 3u);
    EXPECT_NE(s.node_flags[0] & format::kNodeExtensionType, 0);
    EXPECT_NE(s.edge_flags.back() & format::kEdgeInferred, 0);
}

struct BadFile {
    const char* name;
    ReadErrorCode code;
    const char* message_part;
};

class BadDataFiles : public ::testing::TestWithParam<BadFile> {};

TEST_P(BadDataFiles, FailsWithItsCode) {
    const BadFile& f = GetParam();
    try {
        format::read_snapshot_file(data_file(f.name));
        FAIL() << f.name << " decoded";
    } catch (const format::ReadError& e) {
        EXPECT_EQ(e.code(), f.code) << e.what();
        EXPECT_NE(std::string(e.what()).find(f.message_part), std::string::npos) << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(
    Format, BadDataFiles,
    ::testing::Values(
        BadFile{"truncated.rscope", ReadErrorCode::Truncated, "Edges section"},
        BadFile{"bad-magic.rscope", ReadErrorCode::BadMagic, "not a refscope snapshot"},
        BadFile{"bad-checksum.rscope", ReadErrorCode::BadChecksum, "Nodes section"},
        BadFile{"newer-version.rscope", ReadErrorCode::NewerVersion,
                "written by refscope 2.0.0 (format 2.0); this reader supports format 1.x: open it "
                "with refscope 2.0.0 or later"},
        BadFile{"absurd-size.rscope", ReadErrorCode::TooLarge, "1152921504606846976 bytes"},
        BadFile{"absurd-count.rscope", ReadErrorCode::TooLarge, "node count 1099511627776"},
        BadFile{"corrupt-ids.rscope", ReadErrorCode::Corrupt, "target 999 is out of range"}),
    [](const auto& p) {
        std::string n = p.param.name;
        for (char& c : n)
            if (c == '-' || c == '.') c = '_';
        return n;
    });

}  // namespace
}  // namespace refscope::testing

// Round trips through the writer and reader: every field, empty and large
// snapshots, unicode, compressed and not; writer-side validation; files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>

#include "snapshot_compare.h"
#include "test_support.h"

namespace refscope::testing {
namespace {

using format::ReadErrorCode;
using format::WriteOptions;

Snapshot round_trip(const Snapshot& s, const WriteOptions& options = {}) {
    const std::vector<uint8_t> bytes = format::encode_snapshot(s, options);
    return format::decode_snapshot(bytes.data(), bytes.size());
}

class RoundTrip : public ::testing::TestWithParam<bool> {
protected:
    WriteOptions options() const { return WriteOptions{GetParam(), 3}; }
};

TEST_P(RoundTrip, SmallSnapshotKeepsEveryField) {
    const Snapshot s = make_small_snapshot();
    const Snapshot back = round_trip(s, options());
    EXPECT_TRUE(same_snapshot(s, back));
    EXPECT_EQ(back.header.format_major, format::kFormatMajor);
    EXPECT_EQ(back.header.format_minor, format::kFormatMinor);
}

// Format 1.1's type flags survive the trip; a 1.0 file (no flags column)
// still reads, its types' flags 0 ("not recorded"), and a 1.0 reader's view
// of a 1.1 file (ignoring the trailing column) is checked by the newer-minor
// tests in snapshot_errors_test.cpp.
TEST_P(RoundTrip, TypeFlagsAndFilesWithout) {
    Snapshot s = make_small_snapshot();
    s.types[0].flags = format::kTypeFactsRecorded | format::kTypeHasGc;
    s.types[1].flags = format::kTypeFactsRecorded | format::kTypeDescribed;
    EXPECT_TRUE(same_snapshot(s, round_trip(s, options())));

    const std::vector<uint8_t> old = forge_snapshot(s, 1, 0);
    const Snapshot back = format::decode_snapshot(old.data(), old.size());
    EXPECT_EQ(back.header.format_minor, 0);
    ASSERT_EQ(back.types.size(), s.types.size());
    for (const TypeInfo& t : back.types) EXPECT_EQ(t.flags, 0);
    s.types[0].flags = s.types[1].flags = 0;
    EXPECT_TRUE(same_snapshot(s, back));
}

// Format 1.2's allocation sites survive the trip in an optional section (a
// 1.1 reader skips it: Versioning tests); a file without them (1.1, or a
// target that did not trace) reads with none recorded.
TEST_P(RoundTrip, AllocationSitesAndFilesWithout) {
    Snapshot s = make_small_snapshot();
    add_allocation_sites(s);
    ASSERT_TRUE(s.allocations.recorded());
    const std::vector<uint8_t> bytes = format::encode_snapshot(s, options());
    RawFile file = split_sections(bytes);
    const RawSection& section = find_section(file, format::SectionId::Allocations);
    EXPECT_EQ(section.frame.flags & format::kSectionRequired, 0);
    const Snapshot back = format::decode_snapshot(bytes.data(), bytes.size());
    EXPECT_TRUE(same_snapshot(s, back));
    ASSERT_EQ(back.allocations.traceback_count(), 2u);
    const uint32_t t = back.allocations.traceback_of(40);
    ASSERT_NE(t, AllocationSites::kNone);
    EXPECT_EQ(back.allocations.frames_end(t) - back.allocations.frames_begin(t), 3);
    const AllocationFrame& top = back.allocations.frames[*back.allocations.frames_begin(t)];
    EXPECT_EQ(back.strings.view(top.file), "app/views.py");
    EXPECT_EQ(top.line, 12u);
    EXPECT_EQ(back.strings.view(top.function), "create_order");
    EXPECT_EQ(back.allocations.traceback_of(2), AllocationSites::kNone);

    const std::vector<uint8_t> old = forge_snapshot(s, 1, 1);
    const Snapshot without = format::decode_snapshot(old.data(), old.size());
    EXPECT_FALSE(without.allocations.recorded());
    EXPECT_EQ(without.allocations.traceback_of(40), AllocationSites::kNone);
}

TEST_P(RoundTrip, EmptySnapshot) {
    const Snapshot s;
    const Snapshot back = round_trip(s, options());
    EXPECT_TRUE(same_snapshot(s, back));
    EXPECT_EQ(back.node_count(), 0u);
    EXPECT_EQ(back.strings.size(), 1u);
}

TEST_P(RoundTrip, UnicodeAndBinaryStrings) {
    Snapshot s;
    s.strings.add("ünïcødé ✓ 日本語 🧵");
    s.strings.add(std::string("nul\0inside", 10));
    s.strings.add(std::string("\xff\xfe not utf-8"));
    s.strings.add(std::string(format::kMaxStringBytes, 'x'));  // exactly at the limit
    s.header.label = "ラベル";
    s.header.argv = {"", "ä", std::string(1000, 'z')};
    const Snapshot back = round_trip(s, options());
    EXPECT_TRUE(same_snapshot(s, back));
}

TEST_P(RoundTrip, ExtremeValues) {
    Snapshot s;
    s.types.push_back({0, 0, std::numeric_limits<uint64_t>::max()});
    const uint64_t max64 = std::numeric_limits<uint64_t>::max();
    const int64_t min64 = std::numeric_limits<int64_t>::min();
    const int64_t maxi64 = std::numeric_limits<int64_t>::max();
    const uint32_t a = s.strings.add("a");
    const uint32_t b = s.strings.add("b");
    // Unaligned, minimal (0 is no address: refused) and maximal addresses
    // (the shift becomes 0), going down as well as up; previews that go
    // backwards.
    s.add_node(max64, 0, max64, min64, 0xFF, b);
    s.add_node(1, 0, 0, maxi64, 0, a);
    s.add_node(0x1001, 0, 1, -1, 0, 0);
    s.add_node(max64 - 1, 0, 2, 0, 0, b);
    s.add_edge(0, 3, format::EdgeKind::Index, 0xFF, std::numeric_limits<uint32_t>::max());
    s.add_edge(3, 0, format::EdgeKind::Reference, 0, 0);
    s.add_edge(3, 0, format::EdgeKind::Reference, 0, 0);  // label below its position
    s.header.pid = min64;
    s.header.time_unix_ns = maxi64;
    s.header.python_hexversion = max64;
    s.header.sequence = max64;
    s.header.walk_ns = max64;
    s.threads.push_back({max64, a, false});
    s.roots.push_back({3, format::RootKind::Extension, 0, b, std::numeric_limits<uint32_t>::max()});
    const Snapshot back = round_trip(s, options());
    EXPECT_TRUE(same_snapshot(s, back));
}

TEST_P(RoundTrip, LargeHeapShapedSnapshot) {
    const Snapshot s = make_synthetic_heap(60'000, 7);
    ASSERT_GT(s.edge_count(), 100'000u);
    const Snapshot back = round_trip(s, options());
    EXPECT_TRUE(same_snapshot(s, back));
}

INSTANTIATE_TEST_SUITE_P(Format, RoundTrip, ::testing::Values(true, false),
                         [](const auto& p) { return p.param ? "Zstd" : "Raw"; });

TEST(RoundTripLevels, EveryZstdLevelDecodes) {
    const Snapshot s = make_synthetic_heap(5'000, 3);
    for (int level : {-5, 1, 3, 9, 19}) {
        SCOPED_TRACE(level);
        EXPECT_TRUE(same_snapshot(s, round_trip(s, WriteOptions{true, level})));
    }
}

TEST(SpecConformance, WriterMatchesTheIndependentSpecEncoder) {
    // forge_snapshot() follows docs/format.md without sharing code with the
    // writer: uncompressed output must agree byte for byte.
    Snapshot traced = make_small_snapshot();
    add_allocation_sites(traced);
    for (const Snapshot& s : {make_small_snapshot(), traced, Snapshot{}, make_synthetic_heap(3'000, 11)}) {
        EXPECT_EQ(format::encode_snapshot(s, WriteOptions{false, 0}), forge_snapshot(s));
    }
}

TEST(SpecConformance, SmallSectionsStayUncompressedWhenZstdDoesNotPay) {
    const std::vector<uint8_t> bytes = format::encode_snapshot(make_small_snapshot());
    const RawFile file = split_sections(bytes);
    ASSERT_EQ(file.sections.size(), 8u);
    const uint16_t expected_ids[] = {1, 2, 3, 4, 5, 6, 8, 0xFFFF};
    for (size_t i = 0; i < file.sections.size(); ++i) {
        const RawSection& s = file.sections[i];
        EXPECT_EQ(s.frame.id, expected_ids[i]);
        EXPECT_TRUE(s.frame.flags & format::kSectionRequired);
        if (!(s.frame.flags & format::kSectionZstd))
            EXPECT_EQ(s.frame.stored_bytes, s.frame.raw_bytes);
        else
            EXPECT_LT(s.frame.stored_bytes, s.frame.raw_bytes);
    }
}

// ------------------------------------------------------- writer checks ----

std::string write_error(const Snapshot& s) {
    try {
        format::encode_snapshot(s);
    } catch (const format::WriteError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a WriteError";
    return {};
}

TEST(WriterValidation, RefusesEdgesNotGroupedBySource) {
    Snapshot s = make_small_snapshot();
    std::swap(s.edge_source.front(), s.edge_source.back());
    EXPECT_NE(write_error(s).find("not grouped by source"), std::string::npos);
}

TEST(WriterValidation, RefusesOutOfRangeIds) {
    {
        Snapshot s = make_small_snapshot();
        s.edge_target[3] = static_cast<uint32_t>(s.node_count());
        EXPECT_NE(write_error(s).find("edge 3: target"), std::string::npos);
    }
    {
        Snapshot s = make_small_snapshot();
        s.node_type[2] = 1000;
        EXPECT_NE(write_error(s).find("node 2: type 1000"), std::string::npos);
    }
    {
        Snapshot s = make_small_snapshot();
        s.node_preview[0] = 1'000'000;
        EXPECT_NE(write_error(s).find("preview"), std::string::npos);
    }
    {
        Snapshot s = make_small_snapshot();
        s.roots[0].thread = 9;
        EXPECT_NE(write_error(s).find("root 0: thread 9"), std::string::npos);
    }
    {
        Snapshot s = make_small_snapshot();
        s.edge_kind[0] = format::kEdgeKindCount;
        EXPECT_NE(write_error(s).find("unknown kind"), std::string::npos);
    }
}

// (String id 0 is empty by the StringTable's construction.)
TEST(WriterValidation, RefusesInconsistentColumns) {
    Snapshot s = make_small_snapshot();
    s.node_size.pop_back();
    EXPECT_NE(write_error(s).find("node columns"), std::string::npos);
}

// ---------------------------------------------------------------- files ----

class SnapshotFiles : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = std::filesystem::temp_directory_path() /
               ("refscope-format-test-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    size_t files_in_dir() const {
        return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir_), {}));
    }
    std::filesystem::path dir_;
};

TEST_F(SnapshotFiles, WriteThenReadLeavesOnlyTheFinalFile) {
    const Snapshot s = make_small_snapshot();
    const std::string path = (dir_ / "snap.rscope").string();
    format::write_snapshot_file(s, path);
    EXPECT_EQ(files_in_dir(), 1u);
    EXPECT_TRUE(same_snapshot(s, format::read_snapshot_file(path)));
    // Overwriting replaces the file atomically.
    Snapshot t;
    format::write_snapshot_file(t, path);
    EXPECT_EQ(format::read_snapshot_file(path).node_count(), 0u);
    EXPECT_EQ(files_in_dir(), 1u);
}

TEST_F(SnapshotFiles, FailedWriteKeepsTheOldFileAndNoTemporary) {
    const std::string path = (dir_ / "snap.rscope").string();
    format::write_snapshot_file(make_small_snapshot(), path);
    Snapshot bad = make_small_snapshot();
    bad.edge_target[0] = 100000;
    EXPECT_THROW(format::write_snapshot_file(bad, path), format::WriteError);
    EXPECT_EQ(files_in_dir(), 1u);
    EXPECT_TRUE(same_snapshot(make_small_snapshot(), format::read_snapshot_file(path)));
}

TEST_F(SnapshotFiles, WriteIntoMissingDirectoryReportsErrno) {
    try {
        format::write_snapshot_file(Snapshot{}, (dir_ / "no" / "such" / "x.rscope").string());
        FAIL() << "expected a WriteError";
    } catch (const format::WriteError& e) {
        EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos)
            << e.what();
    }
}

TEST_F(SnapshotFiles, ReadErrorsAreIo) {
    for (const std::string& path : {(dir_ / "missing.rscope").string(), dir_.string()}) {
        try {
            format::read_snapshot_file(path);
            ADD_FAILURE() << "expected a ReadError for " << path;
        } catch (const format::ReadError& e) {
            EXPECT_EQ(e.code(), ReadErrorCode::Io) << e.what();
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
    }
    // An empty file is a truncated snapshot, not an I/O error.
    const std::string empty = (dir_ / "empty.rscope").string();
    std::ofstream(empty).close();
    try {
        format::read_snapshot_file(empty);
        ADD_FAILURE() << "expected a ReadError";
    } catch (const format::ReadError& e) {
        EXPECT_EQ(e.code(), ReadErrorCode::Truncated) << e.what();
    }
}

}  // namespace
}  // namespace refscope::testing

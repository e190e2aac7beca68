// The reader against damaged input: a cut at every byte offset, and bounded
// random mutations (fixed seeds) both of whole files (mostly caught by the
// checksums) and of section payloads with their checksums recomputed (which
// reach the decoders). Every outcome must be a Snapshot or a ReadError.
#include <gtest/gtest.h>

#include <optional>
#include <random>

#include "snapshot_compare.h"
#include "test_support.h"

namespace refscope::testing {
namespace {

using format::ReadErrorCode;

// Whether a reader's message is about the references, which the outline
// does not decode (their section, or the whole-snapshot checks of edges).
bool about_edges(const std::string& message) {
    return message.find("Edges") != std::string::npos || message.find("edge") != std::string::npos;
}

// Decodes; on success re-encodes, because anything the reader accepts must
// satisfy the writer's validation too. Returns false on a ReadError. The
// outline (refscope-cli info) reads the same bytes: whatever the full reader
// accepts it accepts, with the same edge count, and whatever the full reader
// refuses for anything but the references it refuses with the same message.
bool decode_any(const std::vector<uint8_t>& bytes) {
    std::optional<uint64_t> outline_edges;
    std::string outline_error;
    try {
        outline_edges = format::decode_snapshot_outline(bytes.data(), bytes.size()).edge_count;
    } catch (const format::ReadError& e) {
        outline_error = e.what();
        EXPECT_NE(outline_error, "");
    }
    try {
        const Snapshot s = format::decode_snapshot(bytes.data(), bytes.size());
        EXPECT_NO_THROW(format::encode_snapshot(s, {false, 0}));
        EXPECT_EQ(outline_edges, std::optional<uint64_t>(s.edge_count()));
        return true;
    } catch (const format::ReadError& e) {
        EXPECT_NE(std::string(e.what()), "");
        if (!about_edges(e.what())) {
            EXPECT_EQ(outline_error, e.what());
        }
        return false;
    }
    // Anything else (bad_alloc, length_error, ...) escapes and fails the test.
}

class Truncation : public ::testing::TestWithParam<bool> {};

TEST_P(Truncation, EveryPrefixIsTruncated) {
    const std::vector<uint8_t> bytes =
        format::encode_snapshot(make_small_snapshot(), {GetParam(), 3});
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
        const std::vector<uint8_t> prefix(bytes.begin(),
                                          bytes.begin() + static_cast<ptrdiff_t>(cut));
        try {
            format::decode_snapshot(prefix.data(), prefix.size());
            ADD_FAILURE() << "a cut at " << cut << " decoded";
        } catch (const format::ReadError& e) {
            ASSERT_EQ(e.code(), ReadErrorCode::Truncated) << "cut at " << cut << ": " << e.what();
        }
        try {
            format::decode_snapshot_outline(prefix.data(), prefix.size());
            ADD_FAILURE() << "the outline of a cut at " << cut << " decoded";
        } catch (const format::ReadError& e) {
            ASSERT_EQ(e.code(), ReadErrorCode::Truncated) << "outline, cut at " << cut << ": " << e.what();
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Format, Truncation, ::testing::Values(true, false),
                         [](const auto& p) { return p.param ? "Zstd" : "Raw"; });

TEST(Mutation, WholeFileMutationsYieldSnapshotOrReadError) {
    const std::vector<uint8_t> good = format::encode_snapshot(make_small_snapshot());
    std::mt19937_64 rng(20251122);
    for (int i = 0; i < 6'000; ++i) {
        std::vector<uint8_t> bytes = good;
        mutate_bytes(bytes, rng);
        decode_any(bytes);
        if (HasFailure()) FAIL() << "mutation " << i;
    }
}

TEST(Mutation, PayloadMutationsWithFixedChecksumsYieldSnapshotOrReadError) {
    // Uncompressed and compressed bases: the first reaches every column
    // decoder, the second the zstd decoder.
    const std::vector<uint8_t> bases[] = {
        format::encode_snapshot(make_small_snapshot(), {false, 0}),
        format::encode_snapshot(make_synthetic_heap(400, 9), {false, 0}),
        format::encode_snapshot(make_synthetic_heap(400, 9), {true, 3}),
    };
    std::mt19937_64 rng(4242);
    int accepted = 0;
    for (int i = 0; i < 14'000; ++i) {
        RawFile f = split_sections(bases[i % 3]);
        RawSection& s = f.sections[rng() % f.sections.size()];
        std::vector<uint8_t> p = s.payload;
        mutate_bytes(p, rng);
        set_payload(s, p);
        if (rng() % 8 == 0) s.frame.raw_bytes ^= uint64_t{1} << (rng() % 12);
        accepted += decode_any(join_sections(f));
        if (HasFailure()) FAIL() << "mutation " << i;
    }
    // Some mutations (of sizes, refcounts, labels...) stay valid; most not.
    EXPECT_GT(accepted, 0);
    EXPECT_LT(accepted, 14'000);
}

}  // namespace
}  // namespace refscope::testing

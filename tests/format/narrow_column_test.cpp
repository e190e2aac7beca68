// NarrowColumn (core/include/refscope/narrow_column.h): 64-bit values in a
// narrower integer, with the values that do not fit kept aside. Every value
// must read back exactly whatever its width, through every way of writing
// it, and through the file. The class is tested at 32 bits, then at the
// snapshot's own widths (sizes 16 bits, refcounts 8).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "snapshot_compare.h"
#include "test_support.h"

namespace refscope::testing {
namespace {

using Sizes = NarrowColumn<uint64_t, uint32_t>;
using Refcounts = NarrowColumn<int64_t, int32_t>;

constexpr int64_t kImmortal312 = 0xFFFFFFFFll;       // 3.12's immortal refcount
constexpr int64_t kImmortal314 = 3ll << 30;          // 3.14's initial immortal refcount
constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();  // the signed escape
constexpr uint64_t kUint32Max = std::numeric_limits<uint32_t>::max();  // the unsigned escape

// The values at and around both types' edges, and the escapes themselves.
const std::vector<int64_t> kRefcounts = {0, 1, -1, 2147483647, kInt32Min + 1, kInt32Min, kInt32Min - 1,
                                         kImmortal312, kImmortal314, std::numeric_limits<int64_t>::max(),
                                         std::numeric_limits<int64_t>::min(), 42};
const std::vector<uint64_t> kSizes = {0, 1, 56, kUint32Max - 1, kUint32Max, kUint32Max + 1, 1ull << 40,
                                      std::numeric_limits<uint64_t>::max(), 64};

TEST(NarrowColumn, EveryValueReadsBackAndOnlyTheWideOnesAreKeptAside) {
    Refcounts refcounts;
    for (const int64_t v : kRefcounts) refcounts.push_back(v);
    ASSERT_EQ(refcounts.size(), kRefcounts.size());
    for (size_t i = 0; i < kRefcounts.size(); ++i) EXPECT_EQ(refcounts[i], kRefcounts[i]) << i;
    // INT32_MIN is the escape, so it is kept aside like the wider values.
    EXPECT_EQ(refcounts.overflow_count(), 6u);

    Sizes sizes;
    for (const uint64_t v : kSizes) sizes.push_back(v);
    for (size_t i = 0; i < kSizes.size(); ++i) EXPECT_EQ(sizes[i], kSizes[i]) << i;
    EXPECT_EQ(sizes.overflow_count(), 4u);
    // Range-for reads the same values in order.
    std::vector<uint64_t> seen;
    for (const uint64_t v : sizes) seen.push_back(v);
    EXPECT_EQ(seen, kSizes);
}

TEST(NarrowColumn, WritesThroughTheReferenceCrossTheBoundaryBothWays) {
    Refcounts c;
    c.resize(3);
    EXPECT_EQ(c[0], 0);
    c[1] = kImmortal312;
    EXPECT_EQ(c[1], kImmortal312);
    EXPECT_EQ(c.overflow_count(), 1u);
    c[1] -= kImmortal312 - 5;  // back inside 32 bits: no longer kept aside
    EXPECT_EQ(c[1], 5);
    EXPECT_EQ(c.overflow_count(), 0u);
    c[2] = 2147483647;
    c[2] += 1;  // one past INT32_MAX
    EXPECT_EQ(c[2], 2147483648ll);
    EXPECT_EQ(c.overflow_count(), 1u);
    c[0] = c[2];  // element to element copies the value
    EXPECT_EQ(c[0], 2147483648ll);
    EXPECT_EQ(c.overflow_count(), 2u);
    c[2] = -3;
    EXPECT_EQ(c[2], -3);
    EXPECT_EQ(c.overflow_count(), 1u);
}

TEST(NarrowColumn, ShrinkingDropsTheCutValuesAndGrowingAddsZeros) {
    Sizes c;
    for (const uint64_t v : kSizes) c.push_back(v);
    c.resize(5);  // keeps kUint32Max (index 4) aside, drops the rest
    EXPECT_EQ(c.overflow_count(), 1u);
    c.pop_back();
    EXPECT_EQ(c.overflow_count(), 0u);
    c.resize(6);
    ASSERT_EQ(c.size(), 6u);
    for (size_t i = 4; i < 6; ++i) EXPECT_EQ(c[i], 0u);
    EXPECT_EQ(c[3], kUint32Max - 1);
    c.clear();
    EXPECT_TRUE(c.empty());
    EXPECT_EQ(c.overflow_count(), 0u);
}

TEST(NarrowColumn, EqualityComparesValuesNotHistory) {
    Sizes a, b;
    a.push_back(1ull << 40);
    a[0] = 7;  // was kept aside, no longer
    b.push_back(7);
    EXPECT_TRUE(a == b);
    b[0] = 1ull << 40;
    EXPECT_FALSE(a == b);
}

// The values aside are a sorted deque: random writes in any order, across
// the boundary both ways, and shrinking and growing, must read back as a
// plain vector of the same writes does (a fixed seed; 8-bit narrow values so
// that about a third of the writes go aside).
TEST(NarrowColumn, RandomWritesReadBackAsFromAPlainVector) {
    NarrowColumn<int64_t, int8_t> column;
    std::vector<int64_t> model;
    uint64_t state = 0x9E3779B97F4A7C15ull;
    const auto next = [&] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    const auto value = [&]() -> int64_t {
        switch (next() % 4) {
            case 0: return static_cast<int64_t>(next() % 255) - 127;  // fits
            case 1: return -128;                                       // the escape
            case 2: return static_cast<int64_t>(next() % 1000) - 500;  // either
            default: return static_cast<int64_t>(next());              // wide
        }
    };
    for (int step = 0; step < 20000; ++step) {
        const uint64_t op = next() % 10;
        if (op < 4 || model.empty()) {
            const int64_t v = value();
            column.push_back(v);
            model.push_back(v);
        } else if (op < 8) {
            const size_t i = next() % model.size();
            const int64_t v = value();
            if (op == 7) {
                // Through the proxy, by a small step (a wide one could overflow).
                const int64_t step_by = static_cast<int64_t>(next() % 301) - 150;
                column[i] += step_by;
                model[i] += step_by;
            } else {
                column.set(i, v);
                model[i] = v;
            }
        } else if (op == 8) {
            const size_t n = next() % (model.size() + 8);
            column.resize(n);
            model.resize(n, 0);
        } else if (next() % 4 == 0) {
            column.pop_back();
            model.pop_back();
        } else {
            const size_t i = next() % model.size();
            ASSERT_EQ(column.get(i), model[i]) << "step " << step;
        }
    }
    ASSERT_EQ(column.size(), model.size());
    size_t wide = 0;
    for (size_t i = 0; i < model.size(); ++i) {
        ASSERT_EQ(column[i], model[i]) << i;
        wide += model[i] < -127 || model[i] > 127;
    }
    EXPECT_EQ(column.overflow_count(), wide);
    EXPECT_GT(wide, model.size() / 5);

    // Through the iterator, which looks for each value aside where it found
    // the last one: in order, backwards, and by strides of three.
    EXPECT_EQ(std::vector<int64_t>(column.begin(), column.end()), model);
    std::vector<int64_t> backwards;
    for (auto it = column.end(); it != column.begin();) backwards.push_back(*--it);
    EXPECT_EQ(backwards, std::vector<int64_t>(model.rbegin(), model.rend()));
    size_t strided = 0;
    for (auto it = column.begin(); it < column.end(); it += 3, strided += 3) ASSERT_EQ(*it, model[strided]) << strided;

    // An iterator that has read on goes on reading right after the column
    // changes under it (its hint then points at other pairs).
    auto it = column.begin() + static_cast<std::ptrdiff_t>(model.size() / 2);
    (void)*it;
    for (size_t i = 0; i < model.size(); i += 7) {
        const int64_t v = value();
        column.set(i, v);
        model[i] = v;
    }
    for (size_t i = model.size() / 2; i < model.size(); ++i, ++it) ASSERT_EQ(*it, model[i]) << i;

    // And compares equal to the same values pushed back in order.
    NarrowColumn<int64_t, int8_t> rebuilt;
    for (const int64_t v : model) rebuilt.push_back(v);
    EXPECT_TRUE(rebuilt == column);
}

// Immortal refcounts, negative ones (a corrupt target's, or an object the
// probe over-counted) and sizes past 4 GiB survive the file both compressed
// and not.
TEST(NarrowColumn, WideValuesSurviveTheFile) {
    for (const bool compress : {false, true}) {
        Snapshot s = make_small_snapshot();
        const size_t n = s.node_count();
        ASSERT_GE(n, 4u);
        s.node_refcount[0] = kImmortal312;
        s.node_refcount[1] = kImmortal314;
        s.node_refcount[2] = -7;
        s.node_refcount[3] = kInt32Min;
        s.node_size[0] = kUint32Max;
        s.node_size[1] = 5ull << 32;
        const std::vector<uint8_t> bytes = format::encode_snapshot(s, format::WriteOptions{compress, 3});
        const Snapshot back = format::decode_snapshot(bytes.data(), bytes.size());
        EXPECT_TRUE(same_snapshot(s, back)) << compress;
        EXPECT_EQ(back.node_refcount[0], kImmortal312);
        EXPECT_EQ(back.node_refcount[3], kInt32Min);
        EXPECT_EQ(back.node_size[1], 5ull << 32);
    }
}

// The snapshot's own columns: every value either side of the 16-bit size
// and 8-bit refcount boundaries, and the escapes themselves, reads back in
// memory and through the file; only the values that do not fit are aside.
TEST(NarrowColumn, TheSnapshotsWidthsKeepAsideOnlyWhatDoesNotFit) {
    const std::vector<int64_t> refcounts = {0, 1, 126, 127, 128, -126, -127, -128, -129, 255, 256, kImmortal312};
    const std::vector<uint64_t> sizes = {0, 16, 65533, 65534, 65535, 65536, 1ull << 20, kUint32Max + 1};
    for (const bool compress : {false, true}) {
        Snapshot s = make_small_snapshot();
        ASSERT_GE(s.node_count(), refcounts.size());
        for (size_t i = 0; i < s.node_count(); ++i) {
            s.node_refcount[i] = i < refcounts.size() ? refcounts[i] : 1;
            s.node_size[i] = i < sizes.size() ? sizes[i] : 32;
        }
        // Refcounts: 128, -128 (the escape), -129, 255, 256 and the immortal one.
        EXPECT_EQ(s.node_refcount.overflow_count(), 6u);
        // Sizes: 65535 (the escape) and everything above.
        EXPECT_EQ(s.node_size.overflow_count(), 4u);
        const std::vector<uint8_t> bytes = format::encode_snapshot(s, format::WriteOptions{compress, 3});
        const Snapshot back = format::decode_snapshot(bytes.data(), bytes.size());
        EXPECT_TRUE(same_snapshot(s, back)) << compress;
        for (size_t i = 0; i < refcounts.size(); ++i) EXPECT_EQ(back.node_refcount[i], refcounts[i]) << i;
        for (size_t i = 0; i < sizes.size(); ++i) EXPECT_EQ(back.node_size[i], sizes[i]) << i;
        EXPECT_EQ(back.node_refcount.overflow_count(), 6u);
        EXPECT_EQ(back.node_size.overflow_count(), 4u);
    }
}

}  // namespace
}  // namespace refscope::testing

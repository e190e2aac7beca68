// PackedColumn (core/include/refscope/packed_column.h): the snapshot's edge
// labels, bit-packed in blocks of 64 at each block's widest value. Every
// value must read back exactly at every width, with the last block still
// unpacked, after set() in place and after set() that widens a block; and the
// packing must actually save the memory it is there for.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "refscope/packed_column.h"

namespace refscope {
namespace {

// Values of exactly `width` bits (0 for width 0), one block's worth and a bit,
// so that every offset within a block and a straddling value are read.
std::vector<uint32_t> values_of_width(unsigned width, size_t count, uint32_t seed) {
    std::mt19937 random(seed);
    std::vector<uint32_t> out(count);
    for (uint32_t& v : out) {
        if (width == 0) continue;
        const uint32_t top = uint32_t{1} << (width - 1);
        v = top | (random() & (top - 1));
    }
    return out;
}

// Every value, read one at a time and in order over ranges that start and
// end inside blocks and in the tail.
void expect_column(const PackedColumn& column, const std::vector<uint32_t>& expected) {
    ASSERT_EQ(column.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(column[i], expected[i]) << "at " << i;
    for (const size_t step : {size_t{1}, size_t{37}, size_t{64}, expected.size() + 1}) {
        size_t next = 0;
        for (size_t begin = 0; begin < expected.size(); begin += step) {
            column.for_each(begin, std::min(expected.size(), begin + step), [&](size_t i, uint32_t v) {
                ASSERT_EQ(i, next++);
                ASSERT_EQ(v, expected[i]) << "in order, at " << i;
            });
        }
        ASSERT_EQ(next, expected.size()) << "step " << step;
    }
}

TEST(PackedColumn, EveryWidthReadsBack) {
    for (unsigned width = 0; width <= 32; ++width) {
        SCOPED_TRACE(width);
        // 3 full blocks and a partial one still in the tail.
        const std::vector<uint32_t> values = values_of_width(width, 3 * 64 + 17, width + 1);
        PackedColumn column;
        for (const uint32_t v : values) column.push_back(v);
        expect_column(column, values);
        // The full blocks take width bits a value, plus 8 bytes a block.
        EXPECT_EQ(column.packed_bytes(), 3 * (8 + width * 8));
    }
}

TEST(PackedColumn, MixedWidthsAndTheTailReadBack) {
    std::mt19937 random(7);
    std::vector<uint32_t> values;
    PackedColumn column;
    for (size_t i = 0; i < 10000; ++i) {
        // A block's width follows its widest value: mostly small values with
        // the odd wide one, so blocks come in many widths.
        const unsigned width = random() % 50 == 0 ? 32 : random() % 12;
        const uint32_t v = width == 0 ? 0 : static_cast<uint32_t>(random()) >> (32 - width);
        values.push_back(v);
        column.push_back(v);
        if (i % 997 == 0) expect_column(column, values);
    }
    expect_column(column, values);
    EXPECT_LT(column.packed_bytes(), values.size() * sizeof(uint32_t));
}

TEST(PackedColumn, SetInPlaceWidenedAndInTheTail) {
    std::vector<uint32_t> values = values_of_width(3, 5 * 64 + 10, 11);
    PackedColumn column;
    for (const uint32_t v : values) column.push_back(v);
    const size_t packed = column.packed_bytes();
    // Fits the block's 3 bits: rewritten in place, neighbours untouched.
    column.set(70, 5);
    values[70] = 5;
    EXPECT_EQ(column.packed_bytes(), packed);
    // Wider than its block (second block; one value straddles words at 3
    // bits, index 21 of a block): that block and the rest are repacked.
    column.set(64 + 21, 0xFFFFFFFFu);
    values[64 + 21] = 0xFFFFFFFFu;
    EXPECT_GT(column.packed_bytes(), packed);
    // In the unpacked tail.
    column.set(5 * 64 + 3, 123456);
    values[5 * 64 + 3] = 123456;
    expect_column(column, values);
    // Appending goes on after a repack, and the tail set above is packed.
    for (uint32_t v = 0; v < 200; ++v) {
        column.push_back(v);
        values.push_back(v);
    }
    expect_column(column, values);
}

TEST(PackedColumn, EqualityIsByValueAndClearEmpties) {
    PackedColumn a, b;
    for (uint32_t v = 0; v < 130; ++v) {
        a.push_back(v == 5 ? 1000 : v % 4);
        b.push_back(v % 4);
    }
    EXPECT_FALSE(a == b);
    // a's first block stays 10 bits wide; b's is 2: same values, unequal packing.
    a.set(5, 5 % 4);
    EXPECT_TRUE(a == b);
    b.push_back(0);
    EXPECT_FALSE(a == b);
    b.clear();
    EXPECT_TRUE(b.empty());
    EXPECT_EQ(b.packed_bytes(), 0u);
    b.push_back(9);
    EXPECT_EQ(b[0], 9u);
}

// Snapshots are moved around whole; what is left behind must be an empty
// column that still takes values.
TEST(PackedColumn, MovedFromIsEmptyAndUsable) {
    PackedColumn a;
    for (uint32_t v = 0; v < 200; ++v) a.push_back(v * 3);
    PackedColumn b = std::move(a);
    EXPECT_EQ(b.size(), 200u);
    EXPECT_EQ(b[199], 597u);
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): what this checks
    for (uint32_t v = 0; v < 130; ++v) a.push_back(v);
    for (uint32_t v = 0; v < 130; ++v) ASSERT_EQ(a[v], v);
    PackedColumn c;
    c = std::move(b);
    EXPECT_EQ(c[64], 192u);
    EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move)
    // Moving a column onto itself keeps it as it was.
    PackedColumn& same = c;
    c = std::move(same);
    ASSERT_EQ(c.size(), 200u);
    EXPECT_EQ(c[199], 597u);
}

}  // namespace
}  // namespace refscope

// The probe's AddressMap (probe/src/address_map.h, header-only, no Python):
// one value per key across growth and rehashing, in 12-byte slots of which
// some straddle two cache lines; absent keys are missing, a second insert
// keeps the first value. And the memory of the probe's large tables (the
// allocator and the map's zeroed block): large blocks on their own 2
// MiB-aligned mapping, small ones from malloc, impossible sizes refused
// with bad_alloc.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "address_map.h"
#include "large_table_allocator.h"

namespace refscope::testing {
namespace {

using probe::AddressMap;

// Addresses as the walk sees them: 16-byte aligned, from a few regions.
std::vector<uint64_t> addresses(size_t count) {
    std::vector<uint64_t> out;
    uint64_t state = 0x243F6A8885A308D3ull;
    for (size_t i = 0; i < count; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t region = 0x7f0000000000ull + ((state >> 60) << 32);
        out.push_back(region + ((state >> 8) & 0xFFFFFFF0ull) + 16 * i);
    }
    return out;
}

TEST(AddressMap, EveryKeyKeepsItsValueAcrossGrowth) {
    AddressMap map(16);  // starts at 1024 slots, grows several times
    const std::vector<uint64_t> keys = addresses(50'000);
    for (size_t i = 0; i < keys.size(); ++i) {
        bool inserted = false;
        EXPECT_EQ(map.insert(keys[i], static_cast<uint32_t>(i), inserted), i);
        EXPECT_TRUE(inserted);
        if (i % 1000 == 0) map.prefetch(keys[i]);  // a hint: changes nothing
    }
    EXPECT_EQ(map.size(), keys.size());
    EXPECT_GE(map.memory_bytes(), keys.size() * 12);
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(map.find(keys[i]), i) << i;
    for (size_t i = 0; i < keys.size(); i += 7) {
        bool inserted = true;
        EXPECT_EQ(map.insert(keys[i], 0xABCDu, inserted), i);  // the first value stays
        EXPECT_FALSE(inserted);
    }
    EXPECT_EQ(map.find(keys[0] + 8), AddressMap::kMissing);
    EXPECT_EQ(map.find(0x10), AddressMap::kMissing);
}

// Keys far apart and values near 2^32, to catch a key or value read from
// the wrong offset of a slot.
TEST(AddressMap, DistantKeysAndLargeValues) {
    AddressMap map(0);
    std::vector<uint64_t> keys;
    for (uint64_t i = 1; i <= 700; ++i) keys.push_back(i << 40);
    for (size_t i = 0; i < keys.size(); ++i) {
        bool inserted = false;
        map.insert(keys[i], 0xFFFFFF00u - static_cast<uint32_t>(i), inserted);
    }
    for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(map.find(keys[i]), 0xFFFFFF00u - i) << i;
    map.reserve(100'000);  // rehash into a larger table: the same answers
    for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(map.find(keys[i]), 0xFFFFFF00u - i) << i;
    EXPECT_EQ(map.find(uint64_t{701} << 40), AddressMap::kMissing);
}

TEST(LargeTableAllocator, LargeBlocksAreHugePageAlignedAndWritable) {
    using probe::LargeTableAllocator;
    // 5 MiB + 12 bytes: not a multiple of 2 MiB, above the 4 MiB threshold.
    std::vector<unsigned char, LargeTableAllocator<unsigned char>> large((size_t{5} << 20) + 12, 0);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(large.data()) % (size_t{2} << 20), 0u);
    large.back() = 7;  // the last byte of the block is mapped
    large.front() = 9;
    EXPECT_EQ(large.back() + large.front(), 16);
    std::vector<uint32_t, LargeTableAllocator<uint32_t>> small(1000, 5);
    EXPECT_EQ(small[999], 5u);
    LargeTableAllocator<uint64_t> allocator;
    EXPECT_THROW(allocator.allocate(std::numeric_limits<size_t>::max() / 4), std::bad_alloc);
    // Growing across the threshold moves a malloc block to a mapping.
    std::vector<uint64_t, LargeTableAllocator<uint64_t>> growing;
    for (uint64_t i = 0; i < (uint64_t{1} << 20); ++i) growing.push_back(i);
    EXPECT_EQ(growing[(size_t{1} << 20) - 1], (uint64_t{1} << 20) - 1);
    EXPECT_EQ(growing[12345], 12345u);
}

// The node map's table: zeros without a second pass, whatever the size,
// each block its own memory across moves; impossible sizes refused.
TEST(ZeroedBlock, LargeAndSmallBlocksAreZeroAndOwnTheirMemory) {
    using probe::ZeroedBlock;
    for (const size_t bytes : {size_t{0}, size_t{100}, size_t{3} << 20, (size_t{9} << 20) + 12}) {
        ZeroedBlock block(bytes);
        ASSERT_NE(block.data(), nullptr);
        EXPECT_EQ(block.size(), bytes);
        if (bytes >= (size_t{4} << 20)) {
            // Made present whole at once, before anything reads it (the map
            // reads before it writes; see ZeroedBlock).
            const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
            std::vector<unsigned char> resident((bytes + page - 1) / page);
            ASSERT_EQ(::mincore(block.data(), bytes, resident.data()), 0);
            size_t absent = 0;
            for (unsigned char r : resident) absent += (r & 1) == 0;
            EXPECT_EQ(absent, 0u) << bytes << " bytes";
        }
        size_t nonzero = 0;
        for (size_t i = 0; i < bytes; ++i) nonzero += block.data()[i] != 0;
        EXPECT_EQ(nonzero, 0u) << bytes << " bytes";
        if (bytes >= (size_t{4} << 20)) {
            EXPECT_EQ(reinterpret_cast<uintptr_t>(block.data()) % (size_t{2} << 20), 0u);
        }
        if (bytes > 0) {
            block.data()[bytes - 1] = 7;
            ZeroedBlock moved(std::move(block));
            EXPECT_EQ(block.data(), nullptr);
            EXPECT_EQ(moved.data()[bytes - 1], 7);
            ZeroedBlock other(64);
            other = std::move(moved);  // other's own block is given back
            EXPECT_EQ(other.size(), bytes);
            EXPECT_EQ(other.data()[bytes - 1], 7);
        }
    }
    EXPECT_THROW(ZeroedBlock(std::numeric_limits<size_t>::max() - 5), std::bad_alloc);
}

}  // namespace
}  // namespace refscope::testing

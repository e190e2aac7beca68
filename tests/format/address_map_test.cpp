// The probe's AddressMap (probe/src/address_map.h, header-only, no Python):
// one value per key across growth and rehashing, in 12-byte slots of which
// some straddle two cache lines; absent keys are missing, a second insert
// keeps the first value.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "address_map.h"

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

}  // namespace
}  // namespace refscope::testing

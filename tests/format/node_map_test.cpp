// The probe's NodeMap (probe/src/node_map.h, header-only, no Python): every
// address finds its id across growth, with the address column it indexes;
// ids past the slot count (native nodes take ids without a slot) and the
// one that first needs a wider id; excluded addresses; an add() that throws
// leaves the map as it was; a released map is empty; addresses that
// share a home slot and tag bits still tell apart by the column.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "node_map.h"

namespace refscope::testing {
namespace {

using probe::NodeMap;

// Addresses as the walk sees them: 16-byte aligned, from a few regions.
std::vector<uint64_t> addresses(size_t count, uint64_t seed = 0x243F6A8885A308D3ull) {
    std::vector<uint64_t> out;
    uint64_t state = seed;
    for (size_t i = 0; i < count; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t region = 0x7f0000000000ull + ((state >> 60) << 32);
        out.push_back(region + ((state >> 8) & 0xFFFFFFF0ull) + 16 * i);
    }
    return out;
}

// As the walk's node_for: a new address is appended to the column.
uint32_t node_for(NodeMap& map, std::vector<uint64_t>& column, uint64_t address, int& adds) {
    return map.find_or_add(address, [&] {
        ++adds;
        column.push_back(address);
    });
}

TEST(NodeMap, EveryAddressKeepsItsIdAcrossGrowth) {
    std::vector<uint64_t> column;
    NodeMap map(column, 16);  // starts at 1024 slots, grows several times
    const std::vector<uint64_t> keys = addresses(50'000);
    int adds = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
        ASSERT_EQ(node_for(map, column, keys[i], adds), i);
        if (i % 1000 == 0) map.prefetch(keys[i]);  // a hint: changes nothing
    }
    EXPECT_EQ(adds, 50'000);
    EXPECT_EQ(map.size(), keys.size());
    EXPECT_EQ(column, keys);
    // 4 bytes a slot, at most 70 % full.
    EXPECT_GE(map.memory_bytes(), keys.size() * 4 * 10 / 7);
    EXPECT_LE(map.memory_bytes(), keys.size() * 4 * 10 / 7 * 2 + 4);
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(map.find(keys[i]), i) << i;
    for (size_t i = 0; i < keys.size(); i += 7) ASSERT_EQ(node_for(map, column, keys[i], adds), i);
    EXPECT_EQ(adds, 50'000);  // found, not added again
    // Absent: next to a present address, and never near one.
    EXPECT_EQ(map.find(keys[0] + 16), NodeMap::kMissing);
    EXPECT_EQ(map.find(0x10), NodeMap::kMissing);
    for (const uint64_t other : addresses(2000, 7)) EXPECT_EQ(map.find(other), NodeMap::kMissing);
    map.reserve(1'000'000);  // a larger table: the same answers
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(map.find(keys[i]), i) << i;
}

// Native nodes take ids without a slot: ids run past what the slot count
// could number (1024 slots, ids past 2^15), so the id bits widen and the
// tag bits narrow.
TEST(NodeMap, IdsPastTheSlotCount) {
    std::vector<uint64_t> column(3000, 0x5000);  // nodes the map never sees
    NodeMap map(column, 0);                            // 1024 slots: 10 bits
    const std::vector<uint64_t> keys = addresses(600);
    int adds = 0;
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(node_for(map, column, keys[i], adds), 3000 + i);
    column.resize(column.size() + 40'000, 0x6000);  // past 2^15
    const std::vector<uint64_t> more = addresses(300, 11);
    for (size_t i = 0; i < more.size(); ++i) ASSERT_EQ(node_for(map, column, more[i], adds), 43'600 + i);
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(map.find(keys[i]), 3000 + i);
    for (size_t i = 0; i < more.size(); ++i) ASSERT_EQ(map.find(more[i]), 43'600 + i);
    EXPECT_EQ(map.find(0x5000), NodeMap::kMissing);  // in the column, not in the map
}

TEST(NodeMap, ExcludedAddressesAreNeverNodes) {
    std::vector<uint64_t> column;
    NodeMap map(column);
    int adds = 0;
    map.exclude(0x7f0000001230);
    EXPECT_EQ(map.find(0x7f0000001230), NodeMap::kExcluded);
    EXPECT_EQ(node_for(map, column, 0x7f0000001230, adds), NodeMap::kExcluded);
    EXPECT_EQ(adds, 0);
    EXPECT_EQ(node_for(map, column, 0x7f0000001240, adds), 0u);
    EXPECT_EQ(map.find(0x7f0000001230), NodeMap::kExcluded);
    EXPECT_EQ(map.size(), 1u);
}

// The column's push_back may throw (out of memory): the slot is written
// only after, so the map never names an id the column lacks; a growth made
// before the add threw leaves the map sound.
TEST(NodeMap, AnAddThatThrowsLeavesTheMapAsItWas) {
    std::vector<uint64_t> column;
    NodeMap map(column, 0);
    const std::vector<uint64_t> keys = addresses(2000);
    int adds = 0;
    for (size_t i = 0; i < 716; ++i) node_for(map, column, keys[i], adds);
    EXPECT_EQ(map.memory_bytes(), 1024u * 4);
    // The 717th address grows the table (70 % of 1024 slots), then its add throws.
    for (size_t i = 716; i < 730; ++i) {
        EXPECT_THROW(map.find_or_add(keys[i], [] { throw std::bad_alloc(); }), std::bad_alloc);
        EXPECT_EQ(map.find(keys[i]), NodeMap::kMissing);
        EXPECT_EQ(map.size(), 716u);
    }
    EXPECT_EQ(map.memory_bytes(), 2048u * 4);
    for (size_t i = 0; i < 716; ++i) ASSERT_EQ(map.find(keys[i]), i);
    for (size_t i = 716; i < keys.size(); ++i) ASSERT_EQ(node_for(map, column, keys[i], adds), i);
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(map.find(keys[i]), i);
}

// At 1024 slots ids have 10 bits (id + 1 up to 1023): id 1022 fits, id
// 1023 widens them.
TEST(NodeMap, TheIdThatWidensTheIdBits) {
    std::vector<uint64_t> column(1022, 0x5000);
    NodeMap map(column, 0);
    const std::vector<uint64_t> keys = addresses(10);
    int adds = 0;
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(node_for(map, column, keys[i], adds), 1022 + i);
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(map.find(keys[i]), 1022 + i) << i;
}

// Released, the map holds nothing and allocates nothing; added to, it grows.
TEST(NodeMap, AReleasedMapIsEmpty) {
    std::vector<uint64_t> column;
    NodeMap map(column);
    int adds = 0;
    const std::vector<uint64_t> keys = addresses(3000);
    for (size_t i = 0; i < 100; ++i) node_for(map, column, keys[i], adds);
    map.release();
    EXPECT_EQ(map.size(), 0u);
    EXPECT_LE(map.memory_bytes(), 4u);
    EXPECT_EQ(map.find(keys[5]), NodeMap::kMissing);
    map.prefetch(keys[5]);
    column.clear();
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(node_for(map, column, keys[i], adds), i);
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(map.find(keys[i]), i);
}

// Addresses 2^k * 16 apart hash to slots and tags that share many bits:
// long probe runs over slots whose tag matches, told apart by the column.
TEST(NodeMap, AddressesWithSharedHashBits) {
    std::vector<uint64_t> column;
    NodeMap map(column, 0);
    std::vector<uint64_t> keys;
    for (uint64_t i = 1; i <= 5000; ++i) keys.push_back(0x7f0000000000ull + (i << 24));
    for (uint64_t i = 1; i <= 5000; ++i) keys.push_back(0x7f0000000000ull + (i << 4));
    int adds = 0;
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(node_for(map, column, keys[i], adds), i);
    for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(map.find(keys[i]), i) << i;
    EXPECT_EQ(map.find(0x7f0000000000ull + (uint64_t{5001} << 24)), NodeMap::kMissing);
    EXPECT_EQ(map.find(0x7f0000000000ull), NodeMap::kMissing);
}

}  // namespace
}  // namespace refscope::testing

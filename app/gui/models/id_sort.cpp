#include "models/id_sort.h"

#include <algorithm>
#include <bit>

namespace refscope::app {

namespace {

// 11-bit digits: 2,048 buckets keep the scatter's write positions in cache
// (16-bit digits halve the passes but thrash it: measured slower on 1M and
// 10M rows).
constexpr int kDigitBits = 11;
constexpr uint32_t kBuckets = 1u << kDigitBits;

// Stable counting-sort passes over bits [from, to) of `value_of(item)`,
// kDigitBits at a time, ping-ponging between the two vectors.
template <typename Item, typename ValueOf>
void radix_passes(std::vector<Item>& items, std::vector<Item>& scratch, int from, int to, ValueOf value_of) {
    std::vector<uint32_t> start(kBuckets + 1);
    for (int shift = from; shift < to; shift += kDigitBits) {
        const auto digit = [&](const Item& item) {
            return static_cast<uint32_t>((value_of(item) >> shift) & (kBuckets - 1));
        };
        std::fill(start.begin(), start.end(), 0u);
        for (const Item& item : items) ++start[digit(item) + 1];
        for (uint32_t d = 1; d <= kBuckets; ++d) start[d] += start[d - 1];
        for (const Item& item : items) scratch[start[digit(item)]++] = item;
        items.swap(scratch);
    }
}

// Below this, comparisons beat the radix passes' fixed cost.
constexpr size_t kRadixThreshold = 50'000;

}  // namespace

void sort_keyed_ids(std::vector<KeyedId>& items) {
    if (items.size() < kRadixThreshold) {
        std::sort(items.begin(), items.end(), [](const KeyedId& a, const KeyedId& b) {
            return a.key != b.key ? a.key < b.key : a.id < b.id;
        });
        return;
    }
    std::vector<KeyedId> scratch(items.size());
    // Ties keep their order in a stable sort: start from increasing ids.
    const bool ids_increasing = std::is_sorted(items.begin(), items.end(),
                                               [](const KeyedId& a, const KeyedId& b) { return a.id < b.id; });
    if (!ids_increasing) {
        uint32_t max_id = 0;
        for (const KeyedId& item : items) max_id = std::max(max_id, item.id);
        radix_passes(items, scratch, 0, std::bit_width(max_id), [](const KeyedId& k) { return uint64_t{k.id}; });
    }
    // Only the bits in which the keys differ.
    uint64_t low = items.front().key, high = low;
    for (const KeyedId& item : items) low = std::min(low, item.key), high = std::max(high, item.key);
    radix_passes(items, scratch, 0, std::bit_width(high - low), [low](const KeyedId& k) { return k.key - low; });
}

void sort_ids_by_keys(std::vector<uint32_t>& ids, std::vector<uint64_t>& keys) {
    const size_t n = ids.size();
    uint64_t low = n ? keys.front() : 0, high = low;
    for (uint64_t key : keys) low = std::min(low, key), high = std::max(high, key);
    const int key_bits = std::bit_width(high - low);
    if (n < kRadixThreshold || key_bits > 32) {
        std::vector<KeyedId> keyed(n);
        for (size_t i = 0; i < n; ++i) keyed[i] = {keys[i], ids[i]};
        sort_keyed_ids(keyed);
        for (size_t i = 0; i < n; ++i) ids[i] = keyed[i].id;
        return;
    }
    // Keys that differ in at most 32 bits (sizes, ranks, distances,
    // refcounts, even addresses of one heap) pack with their id into one
    // 64-bit word: half the memory traffic of key + id pairs.
    const bool ids_increasing = std::is_sorted(ids.begin(), ids.end());
    uint32_t max_id = 0;
    for (size_t i = 0; i < n; ++i) {
        keys[i] = ((keys[i] - low) << 32) | ids[i];
        max_id = std::max(max_id, ids[i]);
    }
    std::vector<uint64_t> scratch(n);
    const auto word = [](uint64_t w) { return w; };
    if (!ids_increasing) radix_passes(keys, scratch, 0, std::bit_width(max_id), word);
    radix_passes(keys, scratch, 32, 32 + key_bits, word);
    for (size_t i = 0; i < n; ++i) ids[i] = static_cast<uint32_t>(keys[i]);
}

}  // namespace refscope::app

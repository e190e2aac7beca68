// Open-addressing hash map from an object address to its node id.
//
// The walk looks up every edge target here, so this is the hottest structure
// of the probe. std::unordered_map would cost a heap node (~32 bytes plus
// malloc overhead) per object; this map stores two flat arrays (8-byte keys,
// 4-byte values) with linear probing, grows at 70% load and never deletes.
// Address 0 marks an empty slot (no object lives at address 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefetch.h"

namespace refscope::probe {

class AddressMap {
public:
    static constexpr uint32_t kMissing = 0xFFFFFFFFu;

    explicit AddressMap(size_t expected = 1024) { rehash(capacity_for(expected)); }
    AddressMap(AddressMap&&) = default;
    AddressMap& operator=(AddressMap&&) = default;

    void reserve(size_t expected) {
        size_t want = capacity_for(expected);
        if (want > keys_.size()) rehash(want);
    }

    // Returns the value for `key`, or kMissing.
    uint32_t find(uint64_t key) const {
        size_t i = slot(key);
        for (;;) {
            uint64_t k = keys_[i];
            if (k == key) return values_[i];
            if (k == 0) return kMissing;
            i = (i + 1) & mask_;
        }
    }

    // Inserts key -> value if absent; returns the value now stored and sets
    // `inserted`.
    uint32_t insert(uint64_t key, uint32_t value, bool& inserted) {
        if ((size_ + 1) * 10 > keys_.size() * 7) rehash(keys_.size() * 2);
        size_t i = slot(key);
        for (;;) {
            uint64_t k = keys_[i];
            if (k == key) {
                inserted = false;
                return values_[i];
            }
            if (k == 0) {
                keys_[i] = key;
                values_[i] = value;
                ++size_;
                inserted = true;
                return value;
            }
            i = (i + 1) & mask_;
        }
    }

    // Starts loading the slot `key` hashes to.
    void prefetch(uint64_t key) const {
        size_t i = slot(key);
        prefetch_line(keys_.data() + i);
        prefetch_line(values_.data() + i);
    }

    size_t size() const { return size_; }
    size_t memory_bytes() const { return keys_.size() * (sizeof(uint64_t) + sizeof(uint32_t)); }

private:
    static size_t capacity_for(size_t expected) {
        size_t cap = 1024;
        while (cap * 7 < expected * 10) cap *= 2;
        return cap;
    }
    size_t slot(uint64_t key) const {
        // Objects are 16-byte aligned: drop the always-zero bits, then mix
        // with a Fibonacci multiplier so that neighbouring objects spread.
        return static_cast<size_t>(((key >> 4) * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
    }
    void rehash(size_t capacity) {
        std::vector<uint64_t> old_keys;
        std::vector<uint32_t> old_values;
        old_keys.swap(keys_);
        old_values.swap(values_);
        keys_.assign(capacity, 0);
        values_.assign(capacity, 0);
        mask_ = capacity - 1;
        shift_ = 64;
        for (size_t c = capacity; c > 1; c >>= 1) --shift_;
        size_ = 0;
        for (size_t i = 0; i < old_keys.size(); ++i) {
            if (old_keys[i] == 0) continue;
            size_t j = slot(old_keys[i]);
            while (keys_[j] != 0) j = (j + 1) & mask_;
            keys_[j] = old_keys[i];
            values_[j] = old_values[i];
            ++size_;
        }
    }

    std::vector<uint64_t> keys_;
    std::vector<uint32_t> values_;
    size_t mask_ = 0;
    unsigned shift_ = 64;
    size_t size_ = 0;
};

}  // namespace refscope::probe

// Open-addressing hash map from an address to a 32-bit value: the walk's
// type map (type object -> type id), looked up once per object.
//
// std::unordered_map would cost a heap node (~32 bytes plus malloc
// overhead) per entry and a pointer chase per look-up; this map is one flat
// array of 12-byte slots (an 8-byte key, then its 4-byte value) with linear
// probing, grows at 70% load and never deletes. Address 0 marks an empty
// slot (no object lives at address 0).
//
// Key and value side by side rather than in two arrays: one slot is one
// cache line (two for 2 of every 16 slots, which straddle) instead of
// always two. The node map (address -> node id, one look-up per edge) was
// this map until 2026-11-30; it keeps only ids now and compares against
// the snapshot's address column (node_map.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "large_table_allocator.h"
#include "prefetch.h"

namespace refscope::probe {

// What the probe's address tables share (AddressMap here, NodeMap in
// node_map.h): their sizing and their hash.
namespace address_table {

// Slots for `expected` entries under 70% load: a power of two, at least 1024.
inline size_t capacity_for(size_t expected) {
    size_t cap = 1024;
    while (cap * 7 < expected * 10) cap *= 2;
    return cap;
}

// Objects are 16-byte aligned: drop the always-zero bits, then mix with a
// Fibonacci multiplier so that neighbouring objects spread. A table of 2^k
// slots takes the top k bits.
inline uint64_t mix(uint64_t address) { return (address >> 4) * 0x9E3779B97F4A7C15ull; }

}  // namespace address_table

class AddressMap {
public:
    static constexpr uint32_t kMissing = 0xFFFFFFFFu;

    explicit AddressMap(size_t expected = 1024) { rehash(address_table::capacity_for(expected)); }
    AddressMap(AddressMap&&) = default;
    AddressMap& operator=(AddressMap&&) = default;

    void reserve(size_t expected) {
        size_t want = address_table::capacity_for(expected);
        if (want > capacity_) rehash(want);
    }

    // Returns the value for `key`, or kMissing.
    uint32_t find(uint64_t key) const {
        size_t i = slot(key);
        for (;;) {
            const uint64_t k = key_at(i);
            if (k == key) return value_at(i);
            if (k == 0) return kMissing;
            i = (i + 1) & mask_;
        }
    }

    // Inserts key -> value if absent; returns the value now stored and sets
    // `inserted`.
    uint32_t insert(uint64_t key, uint32_t value, bool& inserted) {
        if ((size_ + 1) * 10 > capacity_ * 7) rehash(capacity_ * 2);
        size_t i = slot(key);
        for (;;) {
            const uint64_t k = key_at(i);
            if (k == key) {
                inserted = false;
                return value_at(i);
            }
            if (k == 0) {
                set(i, key, value);
                ++size_;
                inserted = true;
                return value;
            }
            i = (i + 1) & mask_;
        }
    }

    // Starts loading the slot `key` hashes to (its last byte too, for a slot
    // that straddles two lines).
    void prefetch(uint64_t key) const {
        const unsigned char* p = bytes_.data() + slot(key) * kSlot;
        prefetch_line(p);
        prefetch_line(p + kSlot - 1);
    }

    size_t size() const { return size_; }
    size_t memory_bytes() const { return capacity_ * kSlot; }

private:
    static constexpr size_t kSlot = 12;  // key (8 bytes, unaligned), value (4)
    using Bytes = ZeroedBlock;

    size_t slot(uint64_t key) const {
        return static_cast<size_t>(address_table::mix(key) >> shift_) & mask_;
    }
    // Slot i's key and value in `table` (this map's or, while rehashing,
    // the one it replaces).
    static uint64_t key_at(const Bytes& table, size_t i) {
        uint64_t k;
        std::memcpy(&k, table.data() + i * kSlot, sizeof k);
        return k;
    }
    static uint32_t value_at(const Bytes& table, size_t i) {
        uint32_t v;
        std::memcpy(&v, table.data() + i * kSlot + 8, sizeof v);
        return v;
    }
    uint64_t key_at(size_t i) const { return key_at(bytes_, i); }
    uint32_t value_at(size_t i) const { return value_at(bytes_, i); }
    void set(size_t i, uint64_t key, uint32_t value) {
        std::memcpy(bytes_.data() + i * kSlot, &key, sizeof key);
        std::memcpy(bytes_.data() + i * kSlot + 8, &value, sizeof value);
    }
    void rehash(size_t capacity) {
        // The new table first: if it cannot be had, the map stays as it
        // was (the walk then fails with MemoryError, the map still sound).
        Bytes fresh(capacity * kSlot);  // zeros: empty slots have key 0
        Bytes old;
        old.swap(bytes_);
        bytes_.swap(fresh);
        const size_t old_capacity = capacity_;
        capacity_ = capacity;
        mask_ = capacity - 1;
        shift_ = 64;
        for (size_t c = capacity; c > 1; c >>= 1) --shift_;
        size_ = 0;
        for (size_t i = 0; i < old_capacity; ++i) {
            const uint64_t k = key_at(old, i);
            if (k == 0) continue;
            size_t j = slot(k);
            while (key_at(j) != 0) j = (j + 1) & mask_;
            set(j, k, value_at(old, i));
            ++size_;
        }
    }

    Bytes bytes_;
    size_t capacity_ = 0;
    size_t mask_ = 0;
    unsigned shift_ = 64;
    size_t size_ = 0;
};

}  // namespace refscope::probe

// The walk's map from an object's address to its node id, 4 bytes a slot.
//
// The walk looks up every edge target here. The snapshot's address column
// already holds every node's address, so a slot keeps only the node id and
// a look-up checks the address in the column. With AddressMap's 12-byte
// slots (key and value) the map was 24 MiB of the 74 MiB a snapshot of
// 1.1M objects added to its target, 16 MiB of it a second copy of the
// addresses (docs/performance.md).
//
// A slot is one 32-bit word (tagged_slot.h): the node id + 1 and tag bits
// from the address's hash (11 at 2^21 slots). Linear probing, growth at
// 70% load, no deletion.
//
// Reading the column is a second dependent load per look-up. The walk
// prefetches only the slot (prefetch()): a pipeline stage that also
// prefetched the column entry made the walk 13-15 ms slower on the
// benchmark heap, and without it the walk was 3-6 ms faster than with
// 12-byte slots (docs/performance-probe-cuts.md).
//
// The few objects that must never become nodes (the probe's own list of the
// tracked objects before 3.12) are kept apart and found as kExcluded.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "address_map.h"
#include "large_table_allocator.h"
#include "prefetch.h"
#include "tagged_slot.h"

namespace refscope::probe {

class NodeMap {
public:
    static constexpr uint32_t kMissing = 0xFFFFFFFFu;
    static constexpr uint32_t kExcluded = 0xFFFFFFFEu;

    // `addresses`: the node address column the ids index; it must outlive
    // the map and hold every inserted id's address.
    explicit NodeMap(const std::vector<uint64_t>& addresses, size_t expected = 1024) : addresses_(&addresses) {
        rehash(address_table::capacity_for(expected), 0);
    }
    NodeMap(const NodeMap&) = delete;
    NodeMap& operator=(const NodeMap&) = delete;

    // Gives the table back; the map then holds no node (it grows again if
    // added to; excluded addresses stay excluded). Allocates nothing, so it
    // cannot fail.
    void release() noexcept {
        block_ = ZeroedBlock();
        slots_ = &released_slot_;
        capacity_ = 1;
        mask_ = 0;
        size_ = 0;
    }

    void reserve(size_t expected) {
        const size_t want = address_table::capacity_for(expected);
        if (want > capacity_) rehash(want, slot_.id_bits());
    }

    // The node id of `address`, kExcluded, or kMissing.
    uint32_t find(uint64_t address) const {
        const uint64_t h = address_table::mix(address);
        size_t empty = 0;
        const uint32_t id = locate(address, h, empty);
        if (id != kMissing) return id;
        return excluded(address) ? kExcluded : kMissing;
    }

    // The node id of `address`; when it has none, add() appends `address`
    // to the column (its id is the column's size before) and the slot is
    // written after, so that an add() that throws leaves the map as it
    // was. Returns kExcluded for an excluded address (add() not called).
    template <typename Add>
    uint32_t find_or_add(uint64_t address, Add&& add) {
        if (addresses_->size() >= kExcluded) throw std::length_error("more than 2^32 - 2 nodes");
        const auto id = static_cast<uint32_t>(addresses_->size());
        // Room first: a growth that throws leaves the map sound.
        if ((size_ + 1) * 10 > capacity_ * 7)
            rehash(std::max(capacity_ * 2, address_table::capacity_for(0)), slot_.id_bits());
        if (!slot_.holds(id)) rehash(capacity_, TaggedSlot::bits_for(uint64_t{id} + 1));
        const uint64_t h = address_table::mix(address);
        size_t empty = 0;
        if (const uint32_t found = locate(address, h, empty); found != kMissing) return found;
        if (excluded(address)) return kExcluded;
        add();
        slots()[empty] = slot_.word(id, tag_of(h));
        ++size_;
        return id;
    }

    // `address` is never a node: find() and find_or_add() answer kExcluded.
    void exclude(uint64_t address) { excluded_.push_back(address); }

    // Starts loading the slot `address` hashes to.
    void prefetch(uint64_t address) const { prefetch_line(slots() + slot_of(address_table::mix(address))); }

    size_t size() const { return size_; }
    size_t memory_bytes() const { return capacity_ * sizeof(uint32_t); }

private:
    // The node id of `address` (whose hash is `h`), or kMissing with
    // `empty` the slot it would take.
    uint32_t locate(uint64_t address, uint64_t h, size_t& empty) const {
        const uint32_t tag = tag_of(h);
        const uint64_t* column = addresses_->data();
        for (size_t i = slot_of(h);; i = (i + 1) & mask_) {
            const uint32_t v = slots()[i];
            if (v == 0) {
                empty = i;
                return kMissing;
            }
            if (slot_.has_tag(v, tag) && column[slot_.id(v)] == address) return slot_.id(v);
        }
    }
    // The top log2(capacity) bits pick the slot, the bits below them the tag.
    size_t slot_of(uint64_t h) const { return static_cast<size_t>(h >> shift_) & mask_; }
    uint32_t tag_of(uint64_t h) const { return slot_.tag(h >> tag_shift_); }
    bool excluded(uint64_t address) const {
        return !excluded_.empty() && std::find(excluded_.begin(), excluded_.end(), address) != excluded_.end();
    }
    uint32_t* slots() { return slots_; }
    const uint32_t* slots() const { return slots_; }

    // Rebuilds the slots for `capacity` slots (a power of two) and ids of at
    // least `min_id_bits` bits. The new block first: if it cannot be had,
    // the map stays as it was (the walk then fails with MemoryError).
    void rehash(size_t capacity, unsigned min_id_bits) {
        ZeroedBlock fresh(capacity * sizeof(uint32_t));  // zeros: empty slots
        const ZeroedBlock old = std::exchange(block_, std::move(fresh));
        const uint32_t* from = slots_;
        slots_ = reinterpret_cast<uint32_t*>(block_.data());
        const size_t old_capacity = capacity_;
        const TaggedSlot old_slot = slot_;
        capacity_ = capacity;
        mask_ = capacity - 1;
        const unsigned log2 = TaggedSlot::bits_for(capacity - 1);  // capacity: a power of two, >= 1024
        shift_ = 64 - log2;
        slot_.set_id_bits(std::max(log2, min_id_bits));
        // Tag bits sit just below the slot bits; shift_ >= 32 >= their count.
        tag_shift_ = shift_ - (32 - slot_.id_bits());
        const uint64_t* column = addresses_->data();
        for (size_t i = 0; i < old_capacity; ++i) {
            if (from[i] == 0) continue;
            const uint32_t id = old_slot.id(from[i]);
            const uint64_t h = address_table::mix(column[id]);
            size_t j = slot_of(h);
            while (slots()[j] != 0) j = (j + 1) & mask_;
            slots()[j] = slot_.word(id, tag_of(h));
        }
    }

    const std::vector<uint64_t>* addresses_;
    ZeroedBlock block_;
    uint32_t* slots_ = nullptr;  // block_'s, or released_slot_ after release()
    uint32_t released_slot_ = 0;  // one empty slot, never written (a growth comes first)
    std::vector<uint64_t> excluded_;
    size_t capacity_ = 0;
    size_t mask_ = 0;
    unsigned shift_ = 64;
    unsigned tag_shift_ = 0;
    TaggedSlot slot_;
    size_t size_ = 0;
};

}  // namespace refscope::probe

// De-duplicates the snapshot's strings by content: field names, type names,
// previews and root labels repeat millions of times in a large heap, and the
// StringTable itself (shared with the reader) does not de-duplicate.
//
// Open addressing over 4-byte slots (tagged_slot.h): the string id and tag
// bits from the text's hash; the text lives only in the table, so a probe
// that meets a slot with its tag compares the text there. With 8-byte slots
// (id and full hash) this table was the largest block held while the
// previews are interned, the snapshot's second memory peak: 8.2 MiB for the
// benchmark heap's 645,370 texts, now 4.1 (docs/performance-probe-cuts.md).
// Rehashing reads every text again to hash it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "large_table_allocator.h"
#include "prefetch.h"
#include "refscope/snapshot.h"
#include "tagged_slot.h"

namespace refscope::probe {

class StringInterner {
public:
    explicit StringInterner(StringTable& table) : table_(table) { rehash(4096, 1); }
    StringInterner(const StringInterner&) = delete;
    StringInterner& operator=(const StringInterner&) = delete;

    uint32_t intern(std::string_view text) { return intern(text, hash(text)); }

    // The same, with `h` = hash(text) computed ahead: a caller that knows its
    // next strings hashes them early and prefetch()es their slots, so that
    // the slot reads (a cache miss each in a table of millions) overlap.
    uint32_t intern(std::string_view text, uint32_t h) {
        if (text.empty()) return 0;
        // Room first, and for the id the table would give this text: the
        // table may have grown without the interner (strings added directly).
        if ((count_ + 1) * 10 > capacity_ * 7) rehash(std::max<size_t>(capacity_ * 2, 16), slot_.id_bits());
        if (!slot_.holds(table_.size())) rehash(capacity_, TaggedSlot::bits_for(table_.size() + 1));
        const uint32_t tag = slot_.tag(h);
        for (size_t i = home(h);; i = next(i)) {
            const uint32_t v = slots_[i];
            if (v == 0) {
                const uint32_t id = table_.add(text);
                slots_[i] = slot_.word(id, tag);
                ++count_;
                return id;
            }
            if (slot_.has_tag(v, tag) && table_.view(slot_.id(v)) == text) return slot_.id(v);
        }
    }

    // Makes room for `more` new strings of about `bytes` bytes of text at
    // once: one table of the final size instead of doublings, each of which
    // rehashes every slot and holds the old and the new table together. The
    // size is what 60 % full needs, not the next power of two (which could
    // cost up to twice that). Not 70 %, where growth starts: with linear
    // probing an insert looks at ~6 slots there against ~3.6 at 60 %, and a
    // table sized for about as many strings as it gets fills that far. On
    // previews that are nearly all distinct this is ~17 % more table than
    // 70 % was (measured: docs/performance-probe-cuts.md, "Sizes in 16
    // bits, refcounts in 8").
    void reserve(size_t more, size_t bytes) {
        const size_t want = (count_ + more) * 5 / 3 + 1;
        if (want > capacity_) rehash(want, TaggedSlot::bits_for(table_.size() + more));
        table_.reserve(more, bytes);
    }

    // Frees the table (the strings stay in the StringTable); interning after
    // this starts over with a small table and no de-duplication history.
    // Allocates nothing, so it cannot fail.
    void release() noexcept {
        block_ = ZeroedBlock();
        slots_ = &released_slot_;
        capacity_ = 1;
        count_ = 0;
    }

    void prefetch(uint32_t h) const { prefetch_line(&slots_[home(h)]); }
    size_t slots() const { return capacity_; }  // the table's size, for tests

    static uint32_t hash(std::string_view text) {
        uint64_t h = 1469598103934665603ull;  // FNV-1a, 64-bit, folded
        for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
        return static_cast<uint32_t>(h ^ (h >> 32));
    }

private:
    // Any table size works: a hash's slot is its fraction of the table
    // (multiply and shift: the hash's top bits; the tag takes its low ones),
    // probing goes on linearly and wraps.
    size_t home(uint32_t h) const { return static_cast<size_t>((uint64_t{h} * capacity_) >> 32); }
    size_t next(size_t i) const { return i + 1 == capacity_ ? 0 : i + 1; }

    // Rebuilds the slots for `capacity` slots and ids of at least
    // `min_id_bits` bits. The new block first: if it cannot be had, this
    // table stays intact.
    void rehash(size_t capacity, unsigned min_id_bits) {
        ZeroedBlock fresh(capacity * sizeof(uint32_t));  // zeros: empty slots
        const ZeroedBlock old = std::exchange(block_, std::move(fresh));
        const uint32_t* from = slots_;
        const size_t old_capacity = capacity_;
        const TaggedSlot old_slot = slot_;
        slots_ = reinterpret_cast<uint32_t*>(block_.data());
        capacity_ = capacity;
        slot_.set_id_bits(std::max(TaggedSlot::bits_for(capacity_ - 1), min_id_bits));
        for (size_t i = 0; i < old_capacity; ++i) {
            if (from[i] == 0) continue;
            const uint32_t id = old_slot.id(from[i]);
            const uint32_t h = hash(table_.view(id));
            size_t j = home(h);
            while (slots_[j] != 0) j = next(j);
            slots_[j] = slot_.word(id, slot_.tag(h));
        }
    }

    StringTable& table_;
    ZeroedBlock block_;
    uint32_t* slots_ = &released_slot_;  // block_'s, or released_slot_ after release()
    uint32_t released_slot_ = 0;  // one empty slot, never written (a growth comes first)
    size_t capacity_ = 1;
    size_t count_ = 0;
    TaggedSlot slot_;
};

}  // namespace refscope::probe

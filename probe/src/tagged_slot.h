// The 32-bit slot word of the probe's id tables: the walk's node map
// (NodeMap, address -> node id) and the preview interner (StringInterner,
// text -> string id). Both keep their keys elsewhere already (the snapshot's
// address column, the string table), so a slot holds only the id, and a
// look-up compares the key the id names.
//
// A word is 0 when its slot is empty. Its low `id_bits` bits are the id + 1;
// the bits above them are a tag, more bits of the key's hash, so that a
// probe passing a slot of another key reads that key (a cache miss, and for
// a text a comparison) only once in 2^(32 - id_bits) times. The tables keep
// id_bits at least log2(slots), so the tag holds hash bits the slot position
// did not already use, and widen it when ids outgrow it (ids are given by
// the column or the string table, which may hold keys without a slot).
#pragma once

#include <cstdint>

namespace refscope::probe {

class TaggedSlot {
public:
    // The fewest bits that hold values up to `top` (at least 1, at most 32).
    static unsigned bits_for(uint64_t top) {
        unsigned bits = 1;
        while (bits < 32 && (uint64_t{1} << bits) <= top) ++bits;
        return bits;
    }

    explicit TaggedSlot(unsigned id_bits = 1) { set_id_bits(id_bits); }
    void set_id_bits(unsigned bits) {
        id_bits_ = bits < 1 ? 1 : bits > 32 ? 32 : bits;
        id_mask_ = id_bits_ == 32 ? 0xFFFFFFFFu : (uint32_t{1} << id_bits_) - 1;
    }
    unsigned id_bits() const { return id_bits_; }
    // Whether `id` fits (id + 1 within the id bits).
    bool holds(uint64_t id) const { return id + 1 <= id_mask_; }

    // The tag bits of a word whose key's hash gave `hash_bits` (its low
    // 32 - id_bits bits are used).
    uint32_t tag(uint64_t hash_bits) const { return static_cast<uint32_t>(hash_bits << id_bits_) & ~id_mask_; }
    uint32_t word(uint32_t id, uint32_t tag) const { return tag | (id + 1); }
    bool has_tag(uint32_t word, uint32_t tag) const { return (word & ~id_mask_) == tag; }
    uint32_t id(uint32_t word) const { return (word & id_mask_) - 1; }

private:
    unsigned id_bits_ = 1;
    uint32_t id_mask_ = 1;
};

}  // namespace refscope::probe

// De-duplicates the snapshot's strings by content: field names, type names,
// previews and root labels repeat millions of times in a large heap, and the
// StringTable itself (shared with the reader) does not de-duplicate.
// Open addressing over (hash, id) pairs; the text lives only in the table.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "large_table_allocator.h"
#include "prefetch.h"
#include "refscope/snapshot.h"

namespace refscope::probe {

class StringInterner {
public:
    explicit StringInterner(StringTable& table) : table_(table) { slots_.assign(4096, Slot{}); }

    uint32_t intern(std::string_view text) { return intern(text, hash(text)); }

    // The same, with `h` = hash(text) computed ahead: a caller that knows its
    // next strings hashes them early and prefetch()es their slots, so that
    // the slot reads (a cache miss each in a table of millions) overlap.
    uint32_t intern(std::string_view text, uint32_t h) {
        if (text.empty()) return 0;
        if ((count_ + 1) * 10 > slots_.size() * 7) grow();
        for (size_t i = home(h);; i = next(i)) {
            Slot& s = slots_[i];
            if (s.id == 0) {
                s.id = table_.add(text);
                s.hash = h;
                ++count_;
                return s.id;
            }
            if (s.hash == h && table_.view(s.id) == text) return s.id;
        }
    }

    // Makes room for `more` new strings of about `bytes` bytes of text at
    // once: one table of the final size instead of doublings, each of which
    // rehashes every slot and holds the old and the new table together. The
    // size is what 60 % full needs, not the next power of two (which could
    // cost up to twice that). Not 70 %, where grow() starts: with linear
    // probing an insert looks at ~6 slots there against ~3.6 at 60 %, and a
    // table sized for about as many strings as it gets fills that far. On
    // previews that are nearly all distinct this is ~17 % more table than
    // 70 % was (measured: docs/performance-probe-cuts.md, "Sizes in 16
    // bits, refcounts in 8").
    void reserve(size_t more, size_t bytes) {
        const size_t want = (count_ + more) * 5 / 3 + 1;
        if (want > slots_.size()) rehash(want);
        table_.reserve(more, bytes);
    }

    // Frees the table (the strings stay in the StringTable); interning after
    // this starts over with a small table and no de-duplication history.
    void release() {
        Slots().swap(slots_);
        slots_.assign(16, Slot{});
        count_ = 0;
    }

    void prefetch(uint32_t h) const { prefetch_line(&slots_[home(h)]); }
    size_t slots() const { return slots_.size(); }  // the table's size, for tests

    static uint32_t hash(std::string_view text) {
        uint64_t h = 1469598103934665603ull;  // FNV-1a, 64-bit, folded
        for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
        return static_cast<uint32_t>(h ^ (h >> 32));
    }

private:
    struct Slot {
        uint32_t id = 0;  // 0 = empty (string id 0 is the table's "none")
        uint32_t hash = 0;
    };
    // Any table size works: a hash's slot is its fraction of the table
    // (multiply and shift), probing goes on linearly and wraps.
    size_t home(uint32_t h) const { return static_cast<size_t>((uint64_t{h} * slots_.size()) >> 32); }
    size_t next(size_t i) const { return i + 1 == slots_.size() ? 0 : i + 1; }
    void grow() { rehash(slots_.size() * 2); }
    void rehash(size_t capacity) {
        // The new table first: if it cannot be had, this one stays intact.
        Slots old(capacity, Slot{});
        old.swap(slots_);
        for (const Slot& s : old) {
            if (s.id == 0) continue;
            size_t i = home(s.hash);
            while (slots_[i].id != 0) i = next(i);
            slots_[i] = s;
        }
    }

    StringTable& table_;
    using Slots = std::vector<Slot, LargeTableAllocator<Slot>>;
    Slots slots_;
    size_t count_ = 0;
};

}  // namespace refscope::probe

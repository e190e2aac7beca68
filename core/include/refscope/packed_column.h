// A column of 32-bit values bit-packed in blocks of 64, each block at the
// width of its widest value: the snapshot's edge labels. Most labels are
// small (an index, a position, a string id) or 0, and a 32-bit vector spent
// 4 bytes an edge on them, 12 a node at three edges a node: the largest
// column the analysis keeps that it rarely reads. Measured on a real 330K-node
// snapshot, labels take 11 bits on average this way; on the 10M benchmark
// heap, 1.
//
// Layout (in memory only; the file stores labels as varints, docs/format.md):
//   blocks_  one uint64 per full block: (first word in words_ << 6) | width,
//            width 0..32 bits; a block of width w takes exactly w words
//            (64 values of w bits), and width 0 (all zeros) none.
//   words_   the packed values, value j of a block at bits [j*w, j*w + w)
//            from the block's first word, little end first, then one zero
//            word past the last block.
//   tail_    the block being filled (size() % 64 values), packed when full.
// Reading a value is two loads (its block, then 8 unaligned bytes that hold
// all of it) and a shift: random access stays O(1), which the analysis needs
// (it reads single edges' labels).
//
// Appending is what the probe and the reader do. set() rewrites a value in
// place when it fits its block's width and otherwise repacks everything
// after it (O(n); for tests that corrupt a snapshot on purpose). Standard
// library only (it is part of snapshot.h, which the probe includes).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace refscope {

class PackedColumn {
public:
    static constexpr size_t kBlock = 64;

    PackedColumn() = default;
    PackedColumn(const PackedColumn&) = default;
    PackedColumn& operator=(const PackedColumn&) = default;
    // A moved-from column is empty (its words_ may be too, which pack_tail
    // allows for), like a moved-from vector in practice.
    PackedColumn(PackedColumn&& other) noexcept
        : blocks_(std::move(other.blocks_)), words_(std::move(other.words_)), tail_(other.tail_),
          count_(std::exchange(other.count_, 0)) {
        other.blocks_.clear();
    }
    PackedColumn& operator=(PackedColumn&& other) noexcept {
        if (this == &other) return *this;
        blocks_ = std::move(other.blocks_);
        words_ = std::move(other.words_);
        tail_ = other.tail_;
        count_ = std::exchange(other.count_, 0);
        other.blocks_.clear();
        return *this;
    }

    uint32_t get(size_t i) const {
        const size_t b = i / kBlock;
        if (b == blocks_.size()) return tail_[i % kBlock];
        const uint64_t block = blocks_[b];
        const unsigned width = static_cast<unsigned>(block & 63);
        return value_at(block >> 6, (i % kBlock) * width, mask(width));
    }
    uint32_t operator[](size_t i) const { return get(i); }

    // Calls f(i, value) for i in [begin, end), in order: what a pass over
    // every value uses (the writer, the validation), with each block's
    // width and words looked up once instead of per value.
    template <typename F>
    void for_each(size_t begin, size_t end, F&& f) const {
        size_t i = begin;
        while (i < end) {
            const size_t b = i / kBlock;
            const size_t block_end = std::min(end, (b + 1) * kBlock);
            if (b == blocks_.size()) {
                for (; i < block_end; ++i) f(i, tail_[i % kBlock]);
                return;
            }
            const uint64_t block = blocks_[b];
            const unsigned width = static_cast<unsigned>(block & 63);
            const uint64_t m = mask(width);
            for (size_t bit = (i % kBlock) * width; i < block_end; ++i, bit += width)
                f(i, value_at(block >> 6, bit, m));
        }
    }

    void push_back(uint32_t v) {
        tail_[count_ % kBlock] = v;
        if (++count_ % kBlock == 0) pack_tail();
    }

    void set(size_t i, uint32_t v) {
        const size_t b = i / kBlock;
        if (b == blocks_.size()) {
            tail_[i % kBlock] = v;
            return;
        }
        const unsigned width = static_cast<unsigned>(blocks_[b] & 63);
        if (static_cast<unsigned>(std::bit_width(v)) <= width) {
            write(blocks_[b] >> 6, width, i % kBlock, v);
            return;
        }
        // Wider than its block: repack from that block on.
        std::vector<uint32_t> rest;
        rest.reserve(count_ - b * kBlock);
        for (size_t k = b * kBlock; k < count_; ++k) rest.push_back(get(k));
        rest[i - b * kBlock] = v;
        // Block b's first word becomes the zero word past the last block.
        words_.resize((blocks_[b] >> 6) + 1);
        words_[blocks_[b] >> 6] = 0;
        blocks_.resize(b);
        count_ = b * kBlock;
        for (const uint32_t x : rest) push_back(x);
    }

    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    void clear() {
        blocks_.clear();
        words_.assign(1, 0);
        count_ = 0;
    }
    // Room for n values at any width (what the probe reserves before a walk:
    // address space; only the pages written become memory).
    void reserve(size_t n) {
        blocks_.reserve(n / kBlock + 1);
        words_.reserve(n / kBlock * 32 + 33);
    }
    static size_t reserved_bytes(size_t n) { return (n / kBlock + 1) * 8 + (n / kBlock * 32 + 33) * 8; }
    void shrink_to_fit() {
        blocks_.shrink_to_fit();
        words_.shrink_to_fit();
    }
    // The block of packed words (the probe makes its pages present just
    // ahead of the walk's writes: probe/src/column_prefault.h).
    const std::vector<uint64_t>& packed_words() const { return words_; }
    // What the packed blocks occupy (for the benchmarks' accounting).
    size_t packed_bytes() const { return blocks_.size() * 8 + (words_.empty() ? 0 : words_.size() - 1) * 8; }

    // Equal values, whatever the packing (set() can leave a block wider than
    // a fresh append would).
    friend bool operator==(const PackedColumn& a, const PackedColumn& b) {
        if (a.count_ != b.count_) return false;
        for (size_t i = 0; i < a.count_; ++i)
            if (a.get(i) != b.get(i)) return false;
        return true;
    }

private:
    // A value starts at bit `bit` of its block and has at most 32 bits, so
    // the 8 bytes from the byte it starts in hold all of it (shift < 8): one
    // unaligned load, no case for a value that straddles two words. Words
    // are read and written as little-endian bytes; words_ keeps one zero
    // word past the last block so that a block's last value can be loaded
    // this way too.
    static_assert(std::endian::native == std::endian::little);
    static uint64_t mask(unsigned width) { return (uint64_t{1} << width) - 1; }
    uint64_t load(size_t first_word, size_t bit) const {
        uint64_t x;
        std::memcpy(&x, reinterpret_cast<const unsigned char*>(words_.data() + first_word) + bit / 8, 8);
        return x;
    }
    uint32_t value_at(size_t first_word, size_t bit, uint64_t width_mask) const {
        return static_cast<uint32_t>((load(first_word, bit) >> (bit % 8)) & width_mask);
    }
    void store(size_t first_word, size_t bit, uint64_t x) {
        std::memcpy(reinterpret_cast<unsigned char*>(words_.data() + first_word) + bit / 8, &x, 8);
    }

    void write(size_t first_word, unsigned width, size_t j, uint32_t v) {
        const size_t bit = j * width;
        const unsigned shift = bit % 8;
        const uint64_t x = load(first_word, bit);
        store(first_word, bit, (x & ~(mask(width) << shift)) | (uint64_t{v} << shift));
    }

    void pack_tail() {
        uint32_t any = 0;
        for (const uint32_t v : tail_) any |= v;
        const auto width = static_cast<unsigned>(std::bit_width(any));
        // The zero word past the last block becomes this block's first.
        if (words_.empty()) words_.push_back(0);  // moved from
        const size_t first = words_.size() - 1;
        blocks_.push_back((uint64_t{first} << 6) | width);
        if (width == 0) return;
        words_.resize(first + width + 1, 0);
        // The values go into a 64-bit accumulator that is written out a
        // whole word at a time: 64 values of `width` bits fill exactly
        // `width` words. (Or-ing each value in with an unaligned 8-byte
        // load and store, the way write() updates one value, made every
        // store overlap the next load, a stalled store forward per value:
        // 5 % of the probe's walk.)
        uint64_t* out = words_.data() + first;
        uint64_t acc = 0;
        unsigned used = 0;  // bits of acc filled, < 64
        for (const uint32_t v : tail_) {
            acc |= uint64_t{v} << used;
            used += width;
            if (used >= 64) {
                *out++ = acc;
                used -= 64;
                // The bits of v that did not fit (none when used is 0).
                acc = used == 0 ? 0 : uint64_t{v} >> (width - used);
            }
        }
    }

    std::vector<uint64_t> blocks_;
    std::vector<uint64_t> words_ = std::vector<uint64_t>(1, 0);  // never empty: see load()
    std::array<uint32_t, kBlock> tail_{};
    size_t count_ = 0;
};

}  // namespace refscope

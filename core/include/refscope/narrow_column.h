// A column of 64-bit values kept in a narrower integer each, for the
// snapshot's sizes (16 bits) and refcounts (8 bits): nearly every object's
// fits, and at 10 to 100 million objects the bytes saved per value are
// memory the probe takes from someone else's process and the analysis needs
// to fit a large heap. The rare value that does not fit (an immortal
// object's refcount, 2^32 - 1 on 3.12 and 3 * 2^30 on 3.14; a shared
// object's refcount past 127; an object of 65535 bytes or more; a negative
// refcount from a corrupt file) is stored aside, keyed by index, and its
// narrow slot holds an escape value that says so. The values aside are
// (index, value) pairs in a deque sorted by index, 16 bytes each (a hash
// table's entry cost ~45): appends (the probe's walk, the reader) add at
// its end, a read of one is a binary search (a read in order through the
// iterator is not), and a write that moves a value between narrow and
// aside anywhere else shifts the pairs after it, which only the probe's
// rare refcount corrections do. The narrow type is chosen where a few per
// cent of values at most need one (snapshot.h says what was measured).
//
// Reads return the 64-bit value; writes go through set() or the reference
// proxy that `column[i] = v`, `+=` and `-=` use. On a non-const column
// `column[i]` is that proxy: `auto x = column[i]` keeps the proxy, and in
// `c ? column[i] : 0` the result is an int; write get(i) there. Standard library only (it
// is part of snapshot.h, which the probe includes).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace refscope {

template <typename Wide, typename Narrow>
class NarrowColumn {
    static_assert(std::is_integral_v<Wide> && std::is_integral_v<Narrow> && sizeof(Narrow) < sizeof(Wide) &&
                  std::is_signed_v<Wide> == std::is_signed_v<Narrow>);
    // The escape: the one narrow value that is never a value itself (the
    // smallest of a signed type, the largest of an unsigned one).
    static constexpr Narrow kEscape =
        std::is_signed_v<Narrow> ? std::numeric_limits<Narrow>::min() : std::numeric_limits<Narrow>::max();

    static bool fits(Wide v) {
        return v != Wide{kEscape} && v >= Wide{std::numeric_limits<Narrow>::min()} &&
               v <= Wide{std::numeric_limits<Narrow>::max()};
    }

public:
    // What `column[i]` is on a non-const column: reads as the value, assigns
    // through set().
    class Reference {
    public:
        operator Wide() const { return column_.get(index_); }
        Reference& operator=(Wide v) {
            column_.set(index_, v);
            return *this;
        }
        Reference& operator=(const Reference& other) { return *this = static_cast<Wide>(other); }
        Reference& operator+=(Wide v) { return *this = static_cast<Wide>(*this) + v; }
        Reference& operator-=(Wide v) { return *this = static_cast<Wide>(*this) - v; }
        Reference& operator++() { return *this += 1; }
        Reference& operator--() { return *this -= 1; }
        Wide operator++(int) {
            const Wide old = *this;
            *this = old + 1;
            return old;
        }
        Wide operator--(int) {
            const Wide old = *this;
            *this = old - 1;
            return old;
        }

    private:
        friend class NarrowColumn;
        Reference(NarrowColumn& column, size_t index) : column_(column), index_(index) {}
        NarrowColumn& column_;
        size_t index_;
    };

    // Reads in order, by value (for range-for and algorithms). It keeps
    // where in the values aside it found the last one, so that reading in
    // order (the writer's columns) finds each at that place or beside it
    // instead of searching for it: 3.12's immortal refcounts are 8 % of
    // the column.
    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = Wide;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = Wide;

        const_iterator() = default;
        Wide operator*() const { return column_->get_near(index_, aside_); }
        Wide operator[](difference_type n) const { return column_->get(index_ + n); }
        const_iterator& operator++() { ++index_; return *this; }
        const_iterator operator++(int) { auto old = *this; ++index_; return old; }
        const_iterator& operator--() { --index_; return *this; }
        const_iterator operator--(int) { auto old = *this; --index_; return old; }
        const_iterator& operator+=(difference_type n) { index_ += n; return *this; }
        const_iterator& operator-=(difference_type n) { index_ -= n; return *this; }
        friend const_iterator operator+(const_iterator i, difference_type n) { return i += n; }
        friend const_iterator operator+(difference_type n, const_iterator i) { return i += n; }
        friend const_iterator operator-(const_iterator i, difference_type n) { return i -= n; }
        friend difference_type operator-(const_iterator a, const_iterator b) {
            return static_cast<difference_type>(a.index_) - static_cast<difference_type>(b.index_);
        }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.index_ <=> b.index_; }
        friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.index_ == b.index_; }

    private:
        friend class NarrowColumn;
        const_iterator(const NarrowColumn* column, size_t index) : column_(column), index_(index) {}
        const NarrowColumn* column_ = nullptr;
        size_t index_ = 0;
        mutable size_t aside_ = 0;  // a hint only: any value reads correctly
    };

    NarrowColumn() = default;
    NarrowColumn(std::initializer_list<Wide> values) {
        reserve(values.size());
        for (const Wide v : values) push_back(v);
    }

    Wide get(size_t i) const {
        const Narrow v = narrow_[i];
        if (v != kEscape) [[likely]]
            return Wide{v};
        size_t hint = 0;
        return aside_value_near(i, hint);
    }
    void set(size_t i, Wide v) {
        if (fits(v)) {
            if (narrow_[i] == kEscape) overflow_.erase(aside(i));
            narrow_[i] = static_cast<Narrow>(v);
        } else {
            put_aside(i, v);  // first: if this throws, the slot still holds its old value
            narrow_[i] = kEscape;
        }
    }
    Wide operator[](size_t i) const { return get(i); }
    Reference operator[](size_t i) { return Reference(*this, i); }

    // The common case (the value fits) is one store: the probe appends to
    // three such columns per node while it holds the GIL.
    void push_back(Wide v) {
        if (fits(v)) [[likely]] {
            narrow_.push_back(static_cast<Narrow>(v));
            return;
        }
        push_back_aside(v);
    }
    // Not resize(size() - 1): the last value aside, if the last slot holds
    // the escape, is the last pair.
    void pop_back() {
        if (narrow_.back() == kEscape) overflow_.pop_back();
        narrow_.pop_back();
    }
    // New entries are 0; entries cut off take their stored-aside values along.
    void resize(size_t n) {
        if (n < narrow_.size()) overflow_.erase(first_aside_from(n), overflow_.end());
        narrow_.resize(n, 0);
    }
    void reserve(size_t n) { narrow_.reserve(n); }
    // The block of narrow values (the probe makes its pages present just
    // ahead of the walk's writes: probe/src/column_prefault.h).
    const std::vector<Narrow>& narrow_values() const { return narrow_; }
    void shrink_to_fit() { narrow_.shrink_to_fit(); }
    void clear() {
        narrow_.clear();
        overflow_.clear();
    }
    size_t size() const { return narrow_.size(); }
    bool empty() const { return narrow_.empty(); }
    // For loops that know which entry they read a few steps ahead.
    void prefetch(size_t i) const { __builtin_prefetch(narrow_.data() + i); }
    // How many values did not fit in the narrow type.
    size_t overflow_count() const { return overflow_.size(); }

    const_iterator begin() const { return const_iterator(this, 0); }
    const_iterator end() const { return const_iterator(this, size()); }

    friend bool operator==(const NarrowColumn& a, const NarrowColumn& b) {
        return a.narrow_ == b.narrow_ && a.overflow_ == b.overflow_;
    }

private:
    // Out of line, so that push_back stays small enough to inline.
    [[gnu::noinline]] void push_back_aside(Wide v) {
        overflow_.emplace_back(narrow_.size(), v);  // first: if this throws, the column is unchanged
        try {
            narrow_.push_back(kEscape);
        } catch (...) {
            overflow_.pop_back();
            throw;
        }
    }

    // get(i), looking for a value aside first at `hint` and the pairs
    // either side of it, and leaving `hint` at the pair it found.
    Wide get_near(size_t i, size_t& hint) const {
        const Narrow v = narrow_[i];
        if (v != kEscape) [[likely]]
            return Wide{v};
        return aside_value_near(i, hint);
    }
    // The search for a value aside, out of line so that get() stays a load
    // and a compare wherever it is inlined (with the search in it,
    // PreviewArena::Reader::next in the probe's interning loop was not:
    // 1.5 % of a snapshot's samples under perf).
    [[gnu::noinline]] Wide aside_value_near(size_t i, size_t& hint) const {
        for (size_t k = hint > 0 ? hint - 1 : 0; k < hint + 2 && k < overflow_.size(); ++k) {
            if (overflow_[k].first == i) {
                hint = k;
                return overflow_[k].second;
            }
        }
        const auto at = aside(i);
        hint = static_cast<size_t>(at - overflow_.begin());
        return at->second;
    }

    // A deque, not a vector: it grows by blocks without copying what it
    // holds, so a value aside costs its 16 bytes (and a pointer per 32)
    // even while the column grows. A vector's doubling would make that up
    // to 48 bytes at a reallocation, which is what bounds the memory a
    // hostile file of wide refcounts makes the reader take
    // (docs/format.md).
    using Aside = std::deque<std::pair<size_t, Wide>>;
    typename Aside::const_iterator first_aside_from(size_t i) const {
        return std::lower_bound(overflow_.begin(), overflow_.end(), i,
                                [](const std::pair<size_t, Wide>& a, size_t index) { return a.first < index; });
    }
    // The pair of index i, whose narrow slot holds the escape.
    typename Aside::const_iterator aside(size_t i) const {
        const auto at = first_aside_from(i);
        if (at == overflow_.end() || at->first != i) throw std::logic_error("NarrowColumn: an escape without its value");
        return at;
    }
    void put_aside(size_t i, Wide v) {
        const auto at = first_aside_from(i);
        if (at != overflow_.end() && at->first == i) {
            overflow_[static_cast<size_t>(at - overflow_.begin())].second = v;
        } else {
            overflow_.emplace(at, i, v);
        }
    }

    std::vector<Narrow> narrow_;
    Aside overflow_;  // (index, value) where narrow_[index] == kEscape, sorted by index
};

}  // namespace refscope

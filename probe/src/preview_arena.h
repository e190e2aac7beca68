// The preview texts the walk copies while the GIL is held, one entry per
// processed node in node order, read back in the same order when they are
// interned after the GIL is released (HeapWalker::finish_previews).
//
// Layout (in memory only, never written to a file): the texts one after the
// other in one byte string, and each entry's length in bytes in a column of
// one byte per entry (NarrowColumn<uint32_t, uint8_t>: a length of 255 or
// more is kept aside, at a binary search per read; previews are cut at about
// 200 characters, so mostly texts outside ASCII are that long). An entry's
// text begins where the previous one's ends. A node without a preview
// costs one byte, where a 4-byte end offset per node cost four before
// 2026-11-29 (docs/probe.md, "Previews copied, interned later").
//
// The texts are read once more, to intern them, and the pages read are
// given back as the interning goes (discard_text_before): the string table
// fills with the distinct texts at about the rate the arena empties, where
// both whole were the largest part of the snapshot's second memory peak
// (docs/performance-probe-cuts.md).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

#include "large_table_allocator.h"
#include "refscope/narrow_column.h"

namespace refscope::probe {

// A container's preview is this and its length (value_previews.cpp).
inline constexpr std::string_view kLengthPreview = "len ";

// N where `text` is a container's preview "len N" and N < 4096, else -1:
// the interner's sizing counts each such text once
// (HeapWalker::finish_previews). No leading zeros: "len 07" is another text
// than "len 7" (it can only be a str's).
inline int small_length_shown(std::string_view text) {
    if (!text.starts_with(kLengthPreview)) return -1;
    const std::string_view digits = text.substr(kLengthPreview.size());
    if (digits.empty() || digits.size() > 4 || (digits[0] == '0' && digits.size() > 1)) return -1;
    unsigned n = 0;
    const char* end = digits.data() + digits.size();
    const auto [stop, error] = std::from_chars(digits.data(), end, n);
    return error == std::errc() && stop == end && n < 4096 ? static_cast<int>(n) : -1;
}

class PreviewArena {
public:
    using Lengths = NarrowColumn<uint32_t, uint8_t>;

    // Starts the next node's entry: append its text (possibly none) to the
    // string returned, then call close().
    std::string& open() {
        start_ = text_.size();
        return text_;
    }
    void close() { lengths_.push_back(static_cast<uint32_t>(text_.size() - start_)); }
    void add(std::string_view text) {
        open().append(text);
        close();
    }

    size_t count() const { return lengths_.size(); }      // entries
    size_t text_bytes() const { return text_.size(); }    // all texts together
    // The two blocks, for reserving and pre-faulting them.
    std::string& text() { return text_; }
    Lengths& lengths() { return lengths_; }
    void release() {
        std::string().swap(text_);
        lengths_ = Lengths();
        discarded_ = 0;
    }
    // Gives back the text's pages before byte `offset` (Reader::offset()),
    // which must not be read again; release() frees the rest.
    void discard_text_before(size_t offset) {
        if (offset <= discarded_ + kDiscardStep) return;
        discarded_ += large_table::discard(text_.data() + discarded_, offset - discarded_);
    }

    // Reads the entries back in order.
    class Reader {
    public:
        explicit Reader(const PreviewArena& arena) : arena_(arena) {}
        // The next entry's text; call at most count() times.
        std::string_view next() {
            const size_t length = arena_.lengths_.get(index_++);
            const std::string_view text = std::string_view(arena_.text_).substr(at_, length);
            at_ += length;
            return text;
        }
        // Where the next entry's text begins.
        size_t offset() const { return at_; }

    private:
        const PreviewArena& arena_;
        size_t index_ = 0;
        size_t at_ = 0;
    };

private:
    // Discarding in steps of at least this keeps the system calls few.
    static constexpr size_t kDiscardStep = size_t{256} << 10;
    std::string text_;
    Lengths lengths_;
    size_t start_ = 0;
    size_t discarded_ = 0;  // the text before this was discarded (page-wise)
};

}  // namespace refscope::probe

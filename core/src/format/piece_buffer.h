// A byte buffer made of fixed pieces, for one section's stored bytes while
// the writer encodes it (private to refscope_format).
//
// The writer must know a section's stored size and CRC before it writes the
// section's frame, so it holds the section's stored bytes until the section
// ends. In one vector, grown by doubling, that was up to twice the largest
// section plus the blocks its doublings freed, beside zstd's context: the
// probe's largest memory peak in its target (12.7 MiB over the rest for
// the benchmark heap of 1.1M objects, docs/performance-probe-cuts.md).
// Pieces of kPiece bytes never move and leave no holes: what is held is
// the section plus at most one piece.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace refscope::format {

class PieceBuffer {
public:
    static constexpr size_t kPiece = size_t{256} << 10;

    // Room to write at the end: at least one byte, at most the rest of the
    // last piece. Write into it, then commit() what was written.
    uint8_t* room(size_t& bytes) {
        if (pieces_.empty() || last_used_ == kPiece) {
            pieces_.push_back(std::make_unique_for_overwrite<uint8_t[]>(kPiece));
            last_used_ = 0;
        }
        bytes = kPiece - last_used_;
        return pieces_.back().get() + last_used_;
    }
    void commit(size_t bytes) {
        last_used_ += bytes;
        size_ += bytes;
    }
    void append(const uint8_t* data, size_t bytes) {
        while (bytes > 0) {
            size_t free = 0;
            uint8_t* to = room(free);
            const size_t n = bytes < free ? bytes : free;
            std::memcpy(to, data, n);
            commit(n);
            data += n;
            bytes -= n;
        }
    }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    // Calls act(data, bytes) for each piece's bytes, in order.
    template <typename Act>
    void for_each(Act&& act) const {
        for (size_t i = 0; i < pieces_.size(); ++i) {
            const size_t bytes = i + 1 == pieces_.size() ? last_used_ : kPiece;
            if (bytes > 0) act(pieces_[i].get(), bytes);
        }
    }
    // The bytes in one vector (for tests and tools).
    std::vector<uint8_t> joined() const {
        std::vector<uint8_t> out;
        out.reserve(size_);
        for_each([&](const uint8_t* data, size_t bytes) { out.insert(out.end(), data, data + bytes); });
        return out;
    }
    // Gives every piece back.
    void clear() {
        pieces_.clear();
        last_used_ = 0;
        size_ = 0;
    }

private:
    std::vector<std::unique_ptr<uint8_t[]>> pieces_;
    size_t last_used_ = 0;  // bytes used in the last piece
    size_t size_ = 0;
};

}  // namespace refscope::format

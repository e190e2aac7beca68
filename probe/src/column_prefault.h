// Makes the pages just ahead of each walk column's end present before the
// walk writes them.
//
// The walk reserves its columns generously up front (heap_walker.cpp,
// reserve_for): address space, which becomes memory page by page as the
// columns fill. On the 1.1M-object benchmark heap that is about 20,000
// page faults, each a trap into the kernel taken while the GIL is held.
// MADV_POPULATE_WRITE (Linux 5.14+) makes a whole stretch present in one
// call without the traps: the same pages, the same zeroing, 8-12 % of the
// walk less on this machine (docs/performance-probe-cuts.md, "Column pages made
// present ahead of the walk's writes").
//
// Only kAheadElements elements past a column's current end are populated,
// so the extra memory is that stretch per column (under 1 MiB in all at
// most with 4 KiB pages; where THP is "always", a stretch that reaches into
// a huge-page range of a column's block brings in that whole page, up to
// 2 MiB per column, as the walk's own write would soon after), never the
// reservation. Huge pages would cut the faults as well but
// were not taken: the last huge page of each column is memory whether
// written or not (~1 MiB per column, 9 MB on that heap), and the advice
// would stay on malloc's memory after the columns are freed, for the host's
// own later allocations.
//
// A kernel without MADV_POPULATE_WRITE refuses it (EINVAL): then nothing
// more is tried and the pages fault in as they did before. Any other
// failure (no memory) is left to the write that would have faulted anyway.
#pragma once

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "large_table_allocator.h"  // large_table::populate_write

#if defined(__linux__)
#include <unistd.h>
#endif

namespace refscope::probe {

// One column's block as the walk sees it, in bytes.
struct ColumnBlock {
    const void* data;
    size_t used;
    size_t capacity;
    size_t element;  // bytes per element
};

class ColumnPrefault {
public:
    static constexpr size_t kAheadElements = 16384;
    static constexpr size_t kMaxColumns = 16;  // the walk has 12 (HeapWalker::each_column)

    // Populates the column's next kAheadElements elements if fewer than
    // half of them are present past its end. `column` numbers the column
    // (the same one every call); a block that moved (the column grew past
    // its reservation) starts over from its end.
    void ahead(size_t column, const ColumnBlock& block) {
#if defined(__linux__)
        if (unsupported_ || column >= kMaxColumns || block.data == nullptr) return;
        Front& front = fronts_[column];
        if (front.data != block.data) front = {block.data, 0};
        const size_t ahead = kAheadElements * block.element;
        if (front.bytes > block.used && front.bytes - block.used >= ahead / 2) return;
        const auto base = reinterpret_cast<uintptr_t>(block.data);
        const size_t page = page_size();
        // Whole pages inside the block only: the first one past what is
        // present (or past the end, whose page the walk has written), up to
        // the last one that ends inside the stretch and the reservation.
        const size_t from = front.bytes > block.used ? front.bytes : block.used;
        const uintptr_t begin = (base + from + page - 1) / page * page;
        const size_t until = block.used + ahead < block.capacity ? block.used + ahead : block.capacity;
        const uintptr_t end = (base + until) / page * page;
        if (end <= begin) return;
        if (large_table::populate_write(reinterpret_cast<void*>(begin), end - begin) == EINVAL) unsupported_ = true;
        front.bytes = end - base;
#else
        (void)column;
        (void)block;
#endif
    }

private:
    struct Front {
        const void* data = nullptr;
        size_t bytes = 0;  // [data, data + bytes) was populated or written
    };
#if defined(__linux__)
    static size_t page_size() {
        static const long size = ::sysconf(_SC_PAGESIZE);
        return size > 0 ? static_cast<size_t>(size) : 4096;
    }
#endif
    std::array<Front, kMaxColumns> fronts_{};
    bool unsupported_ = false;
};

}  // namespace refscope::probe

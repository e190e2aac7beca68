// The allocator of the probe's large hash tables: the node map (address →
// id, one random look-up per edge while the GIL is held) and the preview
// interner.
//
// At a million objects these tables are tens of MB and every look-up lands
// on a random 4 KiB page: the TLB cannot cover them, so each look-up also
// waits for a page walk, which the walk's prefetches do not hide (the
// translation is gone again by the time the slot is read). Blocks of 4 MiB
// and more are therefore mapped on their own, 2 MiB aligned, and advised to
// be backed by transparent huge pages (MADV_HUGEPAGE: honoured where THP is
// "always" or "madvise", Debian's default; elsewhere a no-op). They are
// mapped and unmapped directly rather than through malloc so that the
// advice ends with the table: a freed malloc block keeps it and would hand
// huge pages to the host process's own later allocations. The tables are
// written whole when allocated (empty slots are zeros); what huge pages can
// cost beyond 4 KiB pages is the unused tail of the last one (< 2 MiB).
// Measured in docs/performance.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace refscope::probe {

namespace large_table {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kMappedFrom = 2 * kHugePage;  // smaller blocks come from malloc

inline size_t rounded(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

#if defined(__linux__)
// A mapping of rounded(bytes) at a 2 MiB boundary: map one huge page more,
// then unmap the misaligned head and the tail beyond the block.
inline void* map(size_t bytes) {
    const size_t size = rounded(bytes);
    void* p = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start) ::munmap(p, aligned - start);
    const size_t tail = start + size + kHugePage - (aligned + size);
    if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + size), tail);
#if defined(MADV_HUGEPAGE)
    ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
#endif
    return reinterpret_cast<void*>(aligned);
}
inline void unmap(void* p, size_t bytes) { ::munmap(p, rounded(bytes)); }
inline bool mapped(size_t bytes) { return bytes >= kMappedFrom; }
#else
inline void* map(size_t) { return nullptr; }
inline void unmap(void*, size_t) {}
inline bool mapped(size_t) { return false; }
#endif

}  // namespace large_table

template <typename T>
struct LargeTableAllocator {
    using value_type = T;

    LargeTableAllocator() = default;
    template <typename U>
    LargeTableAllocator(const LargeTableAllocator<U>&) noexcept {}

    T* allocate(size_t n) {
        if (n > (std::numeric_limits<size_t>::max() - 4 * large_table::kHugePage) / sizeof(T)) throw std::bad_alloc();
        const size_t bytes = n * sizeof(T);
        void* p = large_table::mapped(bytes) ? large_table::map(bytes) : std::malloc(bytes == 0 ? 1 : bytes);
        if (p == nullptr) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t n) noexcept {
        if (large_table::mapped(n * sizeof(T)))
            large_table::unmap(p, n * sizeof(T));
        else
            std::free(p);
    }

    friend bool operator==(const LargeTableAllocator&, const LargeTableAllocator&) { return true; }
};

}  // namespace refscope::probe

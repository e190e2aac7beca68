// The allocator of the probe's large hash tables: the node map (address →
// id, one random look-up per edge while the GIL is held) and the preview
// interner.
//
// At a million objects these tables are tens of MB and every look-up lands
// on a random 4 KiB page: the TLB cannot cover them, so each look-up also
// waits for a page walk, which the walk's prefetches do not hide (the
// translation is gone again by the time the slot is read). Blocks of 4 MiB
// and more are therefore 2 MiB aligned and advised to be backed by
// transparent huge pages (MADV_HUGEPAGE: honoured where THP is "always" or
// "madvise", Debian's default; elsewhere a no-op). The tables are written
// whole when allocated (empty slots are zeros), so huge pages cost no
// memory that 4 KiB pages would not. Measured in docs/performance.md.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <limits>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace refscope::probe {

template <typename T>
struct LargeTableAllocator {
    using value_type = T;

    LargeTableAllocator() = default;
    template <typename U>
    LargeTableAllocator(const LargeTableAllocator<U>&) noexcept {}

    T* allocate(size_t n) {
        constexpr size_t kHuge = size_t{2} << 20;
        if (n > std::numeric_limits<size_t>::max() / sizeof(T) - kHuge) throw std::bad_alloc();
        const size_t bytes = n * sizeof(T);
        void* p = nullptr;
        if (bytes < 2 * kHuge) {
            p = std::malloc(bytes == 0 ? 1 : bytes);
        } else {
            const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
            p = std::aligned_alloc(kHuge, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
            if (p != nullptr) ::madvise(p, rounded, MADV_HUGEPAGE);
#endif
        }
        if (p == nullptr) throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, size_t) noexcept { std::free(p); }

    friend bool operator==(const LargeTableAllocator&, const LargeTableAllocator&) { return true; }
};

}  // namespace refscope::probe

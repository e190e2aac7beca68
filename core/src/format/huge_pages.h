// Big arrays on transparent huge pages (private to refscope_format and
// refscope_core).
//
// Reading and analysing a 10M-object snapshot allocates about 3 GB of
// columns and scratch arrays over its life (40-120 MB each), and with 4 KiB
// pages every first touch of a page is a page fault: some 800,000 of them,
// a quarter of the pipeline's CPU time on the machine the targets were set
// on (docs/performance.md). With 2 MiB pages that is 512 times fewer faults,
// and freeing the arrays is cheaper too.
//
// Linux hands out huge pages either to every anonymous mapping or only to
// ranges marked with madvise(MADV_HUGEPAGE) (/sys/kernel/mm/transparent_
// hugepage/enabled = "madvise", Debian's default). The advice must come
// before the pages are touched, so a vector's storage is reserved (mapped,
// untouched), advised, and only then filled. Elsewhere (other systems, THP
// off, small arrays) these are plain reserve/assign/resize. Nothing here
// changes what a vector holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace refscope::memory {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Asks for huge pages on the whole 2 MiB pages inside [data, data + bytes):
// the allocator's block does not start on a 2 MiB boundary, so up to one
// huge page's worth at each end stays on small pages. Below 4 MiB it is not
// worth the system call. Failure (no THP, an old kernel) changes nothing.
inline void advise_huge_pages(const void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes < 2 * kHugePageBytes) return;
    const uintptr_t first = (reinterpret_cast<uintptr_t>(data) + kHugePageBytes - 1) &
                            ~uintptr_t{kHugePageBytes - 1};
    const uintptr_t last = (reinterpret_cast<uintptr_t>(data) + bytes) & ~uintptr_t{kHugePageBytes - 1};
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

// v.reserve(n), with the new storage advised before anything is written to
// it (only when it grows: storage already there has been touched).
template <typename T>
void reserve_huge(std::vector<T>& v, size_t n) {
    if (n <= v.capacity()) return;
    v.reserve(n);
    advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

template <typename T>
void assign_huge(std::vector<T>& v, size_t n, const T& value) {
    reserve_huge(v, n);
    v.assign(n, value);
}

template <typename T>
void resize_huge(std::vector<T>& v, size_t n) {
    reserve_huge(v, n);
    v.resize(n);
}

// std::vector<T>(n, value) on huge pages.
template <typename T>
std::vector<T> huge_vector(size_t n, const T& value = T{}) {
    std::vector<T> v;
    assign_huge(v, n, value);
    return v;
}

}  // namespace refscope::memory

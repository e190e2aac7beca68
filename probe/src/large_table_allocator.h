// The memory of the probe's large hash tables: the node map (address → id,
// one random look-up per edge while the GIL is held) and the preview
// interner, each a ZeroedBlock.
//
// At a million objects these tables are ~8 MiB each and every look-up lands
// on a random 4 KiB page: the TLB cannot cover them, so each look-up also
// waits for a page walk, which the walk's prefetches do not hide (the
// translation is gone again by the time the slot is read). Blocks of 4 MiB
// and more are therefore mapped on their own, 2 MiB aligned, and advised to
// be backed by transparent huge pages (MADV_HUGEPAGE: honoured where THP is
// "always" or "madvise", Debian's default; elsewhere a no-op). They are
// mapped and unmapped directly rather than through malloc so that the
// advice ends with the table: a freed malloc block keeps it and would hand
// huge pages to the host process's own later allocations. The tables are
// made present whole when allocated (empty slots are zeros); what huge
// pages can cost beyond 4 KiB pages is the unused tail of the last one
// (< 2 MiB). Measured in docs/performance-probe-cuts.md.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14+; headers older than the kernel lack it
#endif
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
// Makes [p, p + bytes) present and writable in one call, without a trap per
// page (MADV_POPULATE_WRITE). Returns 0, or why the kernel refused (EINVAL:
// a kernel without it); the host's errno is left as it was.
inline int populate_write(void* p, size_t bytes) {
    const int saved = errno;
    const int refused = ::madvise(p, bytes, MADV_POPULATE_WRITE) == 0 ? 0 : errno;
    errno = saved;
    return refused;
}
// Gives back the whole pages inside [p, p + bytes) of a block the caller
// owns and will not read there again (it may free the block later: the
// pages read as zeros if anyone touches them, and the bytes at the block's
// edges, where malloc keeps its own records, stay). Returns how far from
// p the last page given back ends (0: none), where the next call can start.
// The host's errno is left as it was.
inline size_t discard(void* p, size_t bytes) {
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const auto start = reinterpret_cast<uintptr_t>(p);
    const uintptr_t begin = (start + page - 1) / page * page;
    const uintptr_t end = (start + bytes) / page * page;
    if (end <= begin) return 0;
    const int saved = errno;
    ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
    errno = saved;
    return end - start;
}
#else
inline void* map(size_t) { return nullptr; }
inline size_t discard(void*, size_t) { return 0; }
inline void unmap(void*, size_t) {}
inline bool mapped(size_t) { return false; }
inline int populate_write(void*, size_t) { return EINVAL; }
#endif

// The one way the tables get and give back memory: blocks of 4 MiB and
// more mapped (zero as the kernel hands them out), smaller ones from malloc
// (calloc when `zeroed`). Throws std::bad_alloc when the memory cannot be
// had or `bytes` is beyond any block.
inline void* allocate(size_t bytes, bool zeroed) {
    if (bytes > std::numeric_limits<size_t>::max() - 4 * kHugePage) throw std::bad_alloc();
    void* p = mapped(bytes) ? map(bytes)
              : zeroed      ? std::calloc(bytes == 0 ? 1 : bytes, 1)
                            : std::malloc(bytes == 0 ? 1 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
}
inline void release(void* p, size_t bytes) noexcept {
    if (mapped(bytes))
        unmap(p, bytes);
    else
        std::free(p);
}

}  // namespace large_table

// A block of zero bytes that owns its memory, for tables whose empty slots
// are zeros (the node map, the interner): mapped blocks are zero as the kernel hands them
// out and small ones come from calloc, so nothing writes the zeros again
// (a vector(n, 0) would: 8 MiB more written on the benchmark heap's map,
// 24 when its slots were 12 bytes, the kernel having just cleared the same
// pages). A mapped block is still
// made present whole at once: the map reads a slot before it writes one,
// and a read is the first touch of most of its pages; a read fault on a
// huge-page range maps the shared huge zero page, which the first write
// then splits into 4 KiB pages on kernels that do not allocate a huge page
// there (this machine's 6.18 does; older ones fall back). Where the kernel
// refuses to populate, the block is written with zeros as before.
class ZeroedBlock {
public:
    ZeroedBlock() = default;
    // Throws std::bad_alloc when the memory cannot be had.
    explicit ZeroedBlock(size_t bytes)
        : data_(static_cast<unsigned char*>(large_table::allocate(bytes, /*zeroed=*/true))), bytes_(bytes) {
        if (large_table::mapped(bytes) && large_table::populate_write(data_, bytes) != 0)
            std::memset(data_, 0, bytes);
    }
    ~ZeroedBlock() { release(); }
    ZeroedBlock(ZeroedBlock&& other) noexcept { swap(other); }
    ZeroedBlock& operator=(ZeroedBlock&& other) noexcept {
        ZeroedBlock(std::move(other)).swap(*this);
        return *this;
    }
    ZeroedBlock(const ZeroedBlock&) = delete;
    ZeroedBlock& operator=(const ZeroedBlock&) = delete;

    void swap(ZeroedBlock& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(bytes_, other.bytes_);
    }
    unsigned char* data() { return data_; }
    const unsigned char* data() const { return data_; }
    size_t size() const { return bytes_; }

private:
    void release() {
        if (data_ != nullptr) large_table::release(data_, bytes_);
        data_ = nullptr;
    }
    unsigned char* data_ = nullptr;
    size_t bytes_ = 0;
};

template <typename T>
struct LargeTableAllocator {
    using value_type = T;

    LargeTableAllocator() = default;
    template <typename U>
    LargeTableAllocator(const LargeTableAllocator<U>&) noexcept {}

    T* allocate(size_t n) {
        if (n > std::numeric_limits<size_t>::max() / sizeof(T)) throw std::bad_alloc();
        return static_cast<T*>(large_table::allocate(n * sizeof(T), /*zeroed=*/false));
    }
    void deallocate(T* p, size_t n) noexcept { large_table::release(p, n * sizeof(T)); }

    friend bool operator==(const LargeTableAllocator&, const LargeTableAllocator&) { return true; }
};

}  // namespace refscope::probe

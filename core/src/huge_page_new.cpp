// The global operator new and delete of refscope's own executables (the CLI,
// the app, the speed checks): malloc and free, plus one hint. A block of
// 256 MiB or more — a column or an analysis array of a snapshot with tens of
// millions of objects — is marked for transparent huge pages
// (madvise(MADV_HUGEPAGE)) on the part of it that covers whole 2 MiB pages.
// Debian's kernels give huge pages only where asked ("madvise" mode); with
// them, the kernel faults in a 2 MiB page where it would fault 512 small
// ones, and the random reads of the BFS and the dominator tree miss the TLB
// far less. At 100M objects this cut the analysis's system time by a third
// to two thirds (docs/performance-analysis-cuts.md, "Huge pages at 100M").
// Smaller blocks are left alone: at 10M objects advising every mapped block
// was measured slower, and a block under 256 MiB is a small share of a big
// heap's pages.
//
// Linked only into executables refscope builds and owns: never into the
// probe, which runs inside someone else's process, and not into sanitizer
// builds, whose runtime replaces operator new itself (core/CMakeLists.txt).
// The hint changes no result: the kernel may ignore it, and a failed
// madvise is not an error. Where the kernel's defrag setting is "madvise"
// (Debian's default) a fault in an advised range may compact memory first;
// on a long-running, fragmented desktop that can cost a pause the
// measurements, made in fresh processes, do not show.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kHugeFrom = std::size_t{256} << 20;
constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

void advise_huge_pages(void* block, std::size_t size) {
    const auto at = reinterpret_cast<std::uintptr_t>(block);
    const std::uintptr_t first = (at + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t end = (at + size) & ~(kHugePage - 1);
#ifdef MADV_HUGEPAGE  // absent from kernels' headers built without huge pages
    if (end > first) ::madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
#else
    static_cast<void>(first);
    static_cast<void>(end);
#endif
}

// What the standard asks of operator new: retry through the new-handler
// until it gives up, then std::bad_alloc.
void* allocate(std::size_t size) {
    if (size == 0) size = 1;
    for (;;) {
        if (void* block = std::malloc(size)) {
            if (size >= kHugeFrom) advise_huge_pages(block, size);
            return block;
        }
        const std::new_handler handler = std::get_new_handler();
        if (handler == nullptr) throw std::bad_alloc();
        handler();
    }
}

}  // namespace

// The nothrow and aligned forms are libstdc++'s: the nothrow ones call these
// (libstdc++ since GCC 9), and the aligned ones allocate with aligned_alloc
// and free with free, so any pairing of forms still ends in free().
void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* block) noexcept { std::free(block); }
void operator delete[](void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }
void operator delete[](void* block, std::size_t) noexcept { std::free(block); }

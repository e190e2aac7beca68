// refscope's own operator new (core/src/huge_page_new.cpp), linked into this
// test as into the CLI and the app: a block of 256 MiB or more is marked
// for transparent huge pages, a smaller one is not. The mark is read back
// from the kernel: the "hg" flag of the block's mapping in /proc/self/smaps.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <sstream>
#include <string>

namespace {

// The VmFlags of the mapping that holds `address` ("rd wr mr mw me ac hg"),
// or "" if none does.
std::string vm_flags_of(const void* address) {
    const auto at = reinterpret_cast<std::uintptr_t>(address);
    std::ifstream smaps("/proc/self/smaps");
    std::string line;
    bool inside = false;
    while (std::getline(smaps, line)) {
        unsigned long low = 0, high = 0;
        // A mapping's first line is "low-high perms ..."; its fields follow
        // as "Name:   value".
        if (line.find(':') > line.find(' ') && std::sscanf(line.c_str(), "%lx-%lx", &low, &high) == 2) {
            inside = at >= low && at < high;
        } else if (inside && line.rfind("VmFlags:", 0) == 0) {
            return line.substr(8) + " ";
        }
    }
    return {};
}

bool kernel_has_huge_pages() {
    return std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled");
}

TEST(HugePageNew, LargeBlocksAreAdvisedSmallOnesAreNot) {
    if (!kernel_has_huge_pages()) GTEST_SKIP() << "this kernel has no transparent huge pages";
    constexpr std::size_t kMiB = std::size_t{1} << 20;
    // Not zero-filled: the flag is set at allocation, before any page is
    // touched.
    const auto large = std::make_unique_for_overwrite<char[]>(300 * kMiB);
    const auto small = std::make_unique_for_overwrite<char[]>(16 * kMiB);
    // Inside the 2 MiB-aligned interior: the block's first and last bytes
    // may share a page with malloc's header and be left out.
    const std::string large_flags = vm_flags_of(large.get() + 8 * kMiB);
    const std::string small_flags = vm_flags_of(small.get() + 8 * kMiB);
    ASSERT_FALSE(large_flags.empty());
    ASSERT_FALSE(small_flags.empty());
    EXPECT_NE(large_flags.find(" hg "), std::string::npos) << large_flags;
    EXPECT_EQ(small_flags.find(" hg "), std::string::npos) << small_flags;
    // The block is usable end to end, the unadvised head and tail included.
    large[0] = 1;
    large[300 * kMiB - 1] = 2;
    EXPECT_EQ(large[0] + large[300 * kMiB - 1], 3);
}

// What the standard asks of a replaced operator new, which a malloc wrapper
// can get wrong: a zero-byte request gives a distinct pointer, a request
// nothing can satisfy throws std::bad_alloc after the new-handler gives up,
// and the nothrow form returns null instead.
TEST(HugePageNew, KeepsOperatorNewsContract) {
    void* a = ::operator new(0);
    void* b = ::operator new(0);
    EXPECT_NE(a, nullptr);
    EXPECT_NE(a, b);
    ::operator delete(a);
    ::operator delete(b);

    static int handler_calls = 0;
    handler_calls = 0;
    std::set_new_handler([] {
        ++handler_calls;
        std::set_new_handler(nullptr);  // give up: the next failure throws
    });
    const std::size_t impossible = SIZE_MAX / 2;
    EXPECT_THROW(static_cast<void>(::operator new(impossible)), std::bad_alloc);
    EXPECT_EQ(handler_calls, 1);
    EXPECT_EQ(::operator new(impossible, std::nothrow), nullptr);
}

}  // namespace

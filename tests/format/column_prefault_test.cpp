// The probe's ColumnPrefault (probe/src/column_prefault.h, header-only, no
// Python): the pages just past a column's end become present, whole pages
// inside the stretch and the reservation only; nothing more until the
// column has used half of the stretch; a block that moved starts over.
// Residency is read back with mincore() on a fresh anonymous mapping, whose
// pages are absent until something writes or populates them.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "column_prefault.h"

namespace refscope::testing {
namespace {

using probe::ColumnBlock;
using probe::ColumnPrefault;

class Mapping {
public:
    // Never on huge pages (which THP "always" or a merge with a neighbouring
    // mapping could bring): one page present would then mean 512.
    explicit Mapping(size_t bytes) : bytes_(bytes) {
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        data_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
        if (data_ != nullptr) ::madvise(data_, bytes, MADV_NOHUGEPAGE);
    }
    ~Mapping() {
        if (data_ != nullptr) ::munmap(data_, bytes_);
    }
    char* data() const { return data_; }
    // Which pages are present, one entry per page.
    std::vector<bool> present() const {
        std::vector<unsigned char> v(bytes_ / page());
        EXPECT_EQ(::mincore(data_, bytes_, v.data()), 0);
        std::vector<bool> out;
        for (unsigned char c : v) out.push_back((c & 1) != 0);
        return out;
    }
    static size_t page() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

private:
    char* data_;
    size_t bytes_;
};

// The kernel populates, and a stretch of `element`-byte elements covers at
// least four pages (with 16 or 64 KiB pages the smaller ones do not).
bool testable(size_t element) {
    Mapping m(Mapping::page());
    return m.data() != nullptr && ::madvise(m.data(), Mapping::page(), MADV_POPULATE_WRITE) == 0 &&
           ColumnPrefault::kAheadElements * element >= 4 * Mapping::page();
}
#define SKIP_UNLESS_TESTABLE(element) \
    if (!testable(element)) GTEST_SKIP() << "no MADV_POPULATE_WRITE, or pages too large for the stretch"


// Pages [first, last) present, every other page absent.
void expect_present_exactly(const Mapping& m, size_t first, size_t last) {
    const std::vector<bool> present = m.present();
    for (size_t i = 0; i < present.size(); ++i)
        EXPECT_EQ(present[i], i >= first && i < last) << "page " << i;
}

TEST(ColumnPrefault, PopulatesTheWholePagesOfTheStretchPastTheEnd) {
    SKIP_UNLESS_TESTABLE(4);
    const size_t page = Mapping::page();
    Mapping m(256 * page);
    ASSERT_NE(m.data(), nullptr);
    ColumnPrefault prefault;
    // 4-byte elements, the end 100 bytes into page 3: the stretch runs to
    // 3 * page + 100 + 16384 * 4; page 3 is the walk's to write.
    const size_t used = 3 * page + 100;
    prefault.ahead(0, ColumnBlock{m.data(), used, 256 * page, 4});
    const size_t until = (used + ColumnPrefault::kAheadElements * 4) / page;
    expect_present_exactly(m, 4, until);
}

TEST(ColumnPrefault, WaitsUntilHalfTheStretchIsUsedThenContinuesWhereItStopped) {
    SKIP_UNLESS_TESTABLE(8);
    const size_t page = Mapping::page();
    const size_t ahead = ColumnPrefault::kAheadElements * 8;  // 8-byte elements
    Mapping m(4 * ahead);
    ASSERT_NE(m.data(), nullptr);
    ColumnPrefault prefault;
    prefault.ahead(2, ColumnBlock{m.data(), 0, 4 * ahead, 8});
    expect_present_exactly(m, 0, ahead / page);
    // Less than half used: nothing new.
    prefault.ahead(2, ColumnBlock{m.data(), ahead / 2 - 8, 4 * ahead, 8});
    expect_present_exactly(m, 0, ahead / page);
    // Exactly half used still leaves half present: nothing new.
    prefault.ahead(2, ColumnBlock{m.data(), ahead / 2, 4 * ahead, 8});
    expect_present_exactly(m, 0, ahead / page);
    // More than half used: from the old front to a stretch past the new end.
    prefault.ahead(2, ColumnBlock{m.data(), ahead / 2 + 8, 4 * ahead, 8});
    expect_present_exactly(m, 0, (ahead / 2 + 8 + ahead) / page);
}

TEST(ColumnPrefault, NeverPastTheReservation) {
    SKIP_UNLESS_TESTABLE(8);
    const size_t page = Mapping::page();
    const size_t stretch_pages = ColumnPrefault::kAheadElements * 8 / page;
    Mapping m(2 * stretch_pages * page);
    ASSERT_NE(m.data(), nullptr);
    ColumnPrefault prefault;
    // A reservation of half the stretch and half a page: its last page is
    // only half the column's.
    const size_t whole = stretch_pages / 2;
    prefault.ahead(1, ColumnBlock{m.data(), 0, whole * page + page / 2, 8});
    expect_present_exactly(m, 0, whole);
}

TEST(ColumnPrefault, AMovedBlockStartsOverFromItsEnd) {
    SKIP_UNLESS_TESTABLE(4);
    const size_t page = Mapping::page();
    const size_t ahead = ColumnPrefault::kAheadElements * 4;  // 4-byte elements
    Mapping old_block(8 * ahead), new_block(8 * ahead);
    ASSERT_NE(old_block.data(), nullptr);
    ASSERT_NE(new_block.data(), nullptr);
    ColumnPrefault prefault;
    prefault.ahead(0, ColumnBlock{old_block.data(), 3 * ahead, 8 * ahead, 4});
    expect_present_exactly(old_block, 3 * ahead / page, 4 * ahead / page);
    // The column grew into a new block with the same end: the new block's
    // stretch is populated although the old front lies beyond it.
    prefault.ahead(0, ColumnBlock{new_block.data(), ahead, 8 * ahead, 4});
    expect_present_exactly(new_block, ahead / page, 2 * ahead / page);
}

}  // namespace
}  // namespace refscope::testing

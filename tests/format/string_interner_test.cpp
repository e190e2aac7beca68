// The probe's StringInterner (probe/src/string_interner.h): one id per
// distinct text whatever size its table has (a power of two or the exact
// size reserve() asks for), before and after it grows, after release() and
// with hashes computed ahead (the walker's prefetching),
// and the StringTable it fills, once moved from.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "string_interner.h"

namespace refscope::testing {
namespace {

using probe::StringInterner;

// Interns `distinct` texts three times each, interleaved, and checks that
// every text has one id, that the ids are new strings of the table in
// first-seen order, and that the table holds each text once.
void expect_one_id_per_text(StringInterner& interner, StringTable& table, size_t distinct) {
    const size_t before = table.size();
    std::vector<uint32_t> first(distinct);
    for (int round = 0; round < 3; ++round) {
        for (size_t i = 0; i < distinct; ++i) {
            const std::string text = "text " + std::to_string(i * 7919 % 100003);
            const uint32_t id = interner.intern(text);
            if (round == 0) {
                first[i] = id;
                EXPECT_EQ(id, before + i);
            } else {
                ASSERT_EQ(id, first[i]) << text;
            }
            ASSERT_EQ(table.view(id), text);
        }
    }
    EXPECT_EQ(table.size(), before + distinct);
}

TEST(StringInterner, GrowsByDoublingWithOneIdPerText) {
    StringTable table;
    StringInterner interner(table);
    EXPECT_EQ(interner.intern(""), 0u);  // the table's "none"
    expect_one_id_per_text(interner, table, 20000);  // from 4096 slots, several doublings
}

TEST(StringInterner, ReservedTablesOfAnySizeKeepOneIdPerText) {
    // Sizes around the 70 % limit and ones that are not powers of two.
    for (const size_t distinct : {1u, 6u, 2867u, 2868u, 5000u, 30001u}) {
        StringTable table;
        StringInterner interner(table);
        interner.intern("before");
        interner.reserve(distinct, distinct * 10);
        expect_one_id_per_text(interner, table, distinct);
        // Past what was reserved, the table grows from its odd size.
        const size_t size = table.size();
        for (size_t i = 0; i < distinct + 100; ++i) interner.intern("more " + std::to_string(i));
        EXPECT_EQ(table.size(), size + distinct + 100);
        EXPECT_EQ(interner.intern("before"), 1u);
    }
}

// reserve(n) sizes the table 60 % full for n more strings (the walk's
// previews: a fuller table with linear probing slows every insert), and n
// strings then fit without the table growing; it grows only past 70 %.
TEST(StringInterner, AReservedTableIsSixtyPerCentFullAndDoesNotGrow) {
    StringTable table;
    StringInterner interner(table);
    interner.intern("before");
    interner.reserve(60000, 600000);
    const size_t reserved = interner.slots();
    EXPECT_EQ(reserved, 60001u * 5 / 3 + 1);
    for (size_t i = 0; i < 60000; ++i) interner.intern("reserved " + std::to_string(i));
    EXPECT_EQ(interner.slots(), reserved);
    // Up to 70 % of the same table still fits; one more string past that grows it.
    const size_t room = reserved * 7 / 10 - 60001;
    for (size_t i = 0; i < room; ++i) interner.intern("room " + std::to_string(i));
    EXPECT_EQ(interner.slots(), reserved);
    interner.intern("one more");
    EXPECT_EQ(interner.slots(), reserved * 2);
}

TEST(StringInterner, AfterReleaseTextsAreAddedAgain) {
    StringTable table;
    StringInterner interner(table);
    const uint32_t id = interner.intern("again");
    interner.release();
    const uint32_t after = interner.intern("again");
    EXPECT_NE(after, id);  // no history: a second copy in the table
    EXPECT_EQ(table.view(after), "again");
    EXPECT_EQ(interner.intern("again"), after);
}

// The walker's path: each text hashed and its slot prefetched some places
// ahead, interned later with that hash, while the table grows in between.
// A hash that did not match the text's own would give a second id to a text
// interned the ordinary way.
TEST(StringInterner, HashesGivenAheadFindTheSameIds) {
    StringTable table;
    StringInterner interner(table);
    std::vector<std::string> texts;
    for (size_t i = 0; i < 12000; ++i) texts.push_back("t" + std::to_string(i % 9000));
    constexpr size_t kAhead = 16;
    std::vector<uint32_t> hashes(texts.size());
    std::vector<uint32_t> ids(texts.size());
    for (size_t i = 0; i < texts.size() + kAhead; ++i) {
        if (i < texts.size()) {
            hashes[i] = StringInterner::hash(texts[i]);
            interner.prefetch(hashes[i]);
        }
        if (i >= kAhead) ids[i - kAhead] = interner.intern(texts[i - kAhead], hashes[i - kAhead]);
    }
    EXPECT_EQ(table.size(), 1u + 9000u);  // id 0, then each distinct text once
    for (size_t i = 0; i < texts.size(); ++i) {
        ASSERT_EQ(interner.intern(texts[i]), ids[i]) << texts[i];
        ASSERT_EQ(table.view(ids[i]), texts[i]);
    }
}

// A table moved from is an empty one (only id 0), and strings added to it
// get ids from 1 again (the writer and reader rely on id 0 being there).
TEST(StringTable, AMovedFromTableIsEmptyAndUsable) {
    StringTable a;
    a.add("moved");
    const StringTable b = std::move(a);
    EXPECT_EQ(b.view(1), "moved");
    EXPECT_EQ(a.size(), 1u);  // NOLINT(bugprone-use-after-move): what is tested
    EXPECT_EQ(a.view(0), "");
    EXPECT_EQ(a.add("again"), 1u);
    EXPECT_EQ(a.view(1), "again");
    EXPECT_EQ(a.size(), 2u);
}

}  // namespace
}  // namespace refscope::testing

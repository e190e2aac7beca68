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

// Strings added to the table without the interner take ids the slots have
// no room for at first (4096 slots: 12 id bits); the slots widen for them,
// and the texts interned before and after keep one id each.
TEST(StringInterner, IdsPastTheSlotCountWidenTheSlots) {
    StringTable table;
    StringInterner interner(table);
    const uint32_t early = interner.intern("early");
    for (size_t i = 0; i < 9000; ++i) table.add("direct " + std::to_string(i));
    expect_one_id_per_text(interner, table, 3000);  // ids 9002 and up: 14 bits
    EXPECT_EQ(interner.intern("early"), early);
    const uint32_t direct = interner.intern("direct 7");  // not interned before: a new id
    EXPECT_EQ(direct, table.size() - 1);
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

// Past 2^32 bytes of text a string's end keeps its low 32 bits and the
// table counts the boundaries crossed (wraps_); with 8-bit ends the same
// happens every 256 bytes: strings that end past one, on one, or cross
// several at once, and an empty string on a boundary.
TEST(StringTable, EndsPastTheirWidthKeepEveryString) {
    BasicStringTable<uint8_t> table;
    std::vector<std::string> texts;
    std::vector<uint32_t> ids;
    const auto add = [&](std::string text) {
        ids.push_back(table.add(text));
        texts.push_back(std::move(text));
    };
    for (size_t i = 0; i < 300; ++i) add(std::string(i % 37, static_cast<char>('a' + i % 26)));
    add(std::string(256 * 3 + 5, 'x'));  // three boundaries at once
    add("");
    add(std::string(256 - table.byte_size() % 256, 'y'));  // ends on a boundary
    ASSERT_EQ(table.byte_size() % 256, 0u);
    add("");
    add("after");
    ASSERT_GT(table.byte_size(), 256u * 20);
    for (size_t i = 0; i < texts.size(); ++i) {
        EXPECT_EQ(ids[i], i + 1);
        ASSERT_EQ(table.view(ids[i]), texts[i]) << i;
    }
    EXPECT_EQ(table.view(0), "");
    EXPECT_EQ(table.view(static_cast<uint32_t>(texts.size() + 1)), "");
    BasicStringTable<uint8_t> copy = table;
    EXPECT_EQ(copy, table);
    copy.clear();
    EXPECT_EQ(copy.add("first"), 1u);
    EXPECT_EQ(copy.view(1), "first");
}

}  // namespace
}  // namespace refscope::testing

// The probe's PreviewArena (probe/src/preview_arena.h, header-only, no
// Python): entries come back in order and unchanged whatever their length
// (lengths of 255 bytes and more are kept aside), empty ones included, and
// an entry costs its text plus one byte.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "preview_arena.h"

namespace refscope::testing {
namespace {

using probe::PreviewArena;

std::string text_of_length(size_t n, char seed) {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + i % 23);
    return s;
}

TEST(PreviewArena, EntriesComeBackInOrderWhateverTheirLength) {
    // Either side of the one-byte length's limit, and far past it.
    const std::vector<size_t> lengths = {0, 1, 5, 254, 255, 256, 0, 300, 70000, 0, 2};
    PreviewArena arena;
    std::vector<std::string> texts;
    size_t text_bytes = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
        texts.push_back(text_of_length(lengths[i], static_cast<char>('a' + i)));
        // Alternate the two ways of adding: open/append/close and add.
        if (i % 2 == 0) {
            arena.open().append(texts.back());
            arena.close();
        } else {
            arena.add(texts.back());
        }
        text_bytes += lengths[i];
    }
    EXPECT_EQ(arena.count(), lengths.size());
    EXPECT_EQ(arena.text_bytes(), text_bytes);
    EXPECT_EQ(arena.lengths().overflow_count(), 4u);  // 255, 256, 300, 70000
    PreviewArena::Reader reader(arena);
    for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(reader.next(), texts[i]) << "entry " << i;
}

TEST(PreviewArena, AnEntryWithoutTextCostsOneByte) {
    PreviewArena arena;
    for (int i = 0; i < 1000; ++i) arena.add({});
    EXPECT_EQ(arena.text_bytes(), 0u);
    EXPECT_EQ(arena.lengths().narrow_values().size() * sizeof(arena.lengths().narrow_values()[0]), 1000u);
    PreviewArena::Reader reader(arena);
    for (int i = 0; i < 1000; ++i) EXPECT_TRUE(reader.next().empty());
}

TEST(PreviewArena, TwoReadersWalkTheSameEntriesIndependently) {
    PreviewArena arena;
    for (int i = 0; i < 50; ++i) arena.add(text_of_length(static_cast<size_t>(i * 7), 'k'));
    PreviewArena::Reader ahead(arena), behind(arena);
    for (int i = 0; i < 10; ++i) ahead.next();
    for (int i = 0; i < 40; ++i) EXPECT_EQ(behind.next().size(), static_cast<size_t>(i * 7));
    EXPECT_EQ(ahead.next().size(), 70u);
}

TEST(PreviewArena, ReleaseEmptiesIt) {
    PreviewArena arena;
    arena.add(text_of_length(400, 'x'));
    arena.release();
    EXPECT_EQ(arena.count(), 0u);
    EXPECT_EQ(arena.text_bytes(), 0u);
    EXPECT_EQ(arena.lengths().overflow_count(), 0u);
    arena.add("again");
    PreviewArena::Reader reader(arena);
    EXPECT_EQ(reader.next(), "again");
}

// The interner's sizing counts each "len N" under 4096 once: only texts
// that are exactly a container's preview may be taken for one, or the
// table could be sized for fewer strings than it gets.
TEST(PreviewArena, OnlyAContainersLengthTextIsTakenForOne) {
    EXPECT_EQ(probe::small_length_shown("len 0"), 0);
    EXPECT_EQ(probe::small_length_shown("len 2"), 2);
    EXPECT_EQ(probe::small_length_shown("len 4095"), 4095);
    for (const char* text : {"len 4096", "len 10000", "len 07", "len 00", "len ", "len", "len 3x", "len -1",
                             "len  3", "Len 3", "len 3 ", "", "x len 3"})
        EXPECT_EQ(probe::small_length_shown(text), -1) << '"' << text << '"';
}

}  // namespace
}  // namespace refscope::testing

// The small pieces of text every view prints (display_text.h): quoting and
// escaping, addresses, UTF-8 boundaries, counts, sizes and times.
#include "refscope/analysis/display_text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace refscope::analysis {
namespace {

TEST(DisplayText, QuotingEscapesAndTruncates) {
    EXPECT_EQ(quote_text("it's"), "'it\\'s'");
    EXPECT_EQ(quote_text("a\\b"), "'a\\\\b'");
    EXPECT_EQ(quote_text("line\nnext\t\x01"), "'line\\nnext\\t\\x01'");
    EXPECT_EQ(quote_text("caf\xc3\xa9"), "'caf\xc3\xa9'");
    EXPECT_EQ(quote_text("bad\xff\xc3"), "'bad\\xff\\xc3'");
    EXPECT_EQ(quote_text("abcdef", 3), "'abc\u2026'");
    // Never cuts inside a character: the é (2 bytes) starts before the limit.
    EXPECT_EQ(quote_text("ab\xc3\xa9z", 3), "'ab\xc3\xa9\u2026'");
    EXPECT_EQ(format_address(0x7f3a5c001230ull), "0x7f3a5c001230");
    EXPECT_EQ(format_address(0), "0x0");
}

TEST(DisplayText, Utf8SequenceLength) {
    EXPECT_EQ(utf8_sequence_length("a", 0), 1u);
    EXPECT_EQ(utf8_sequence_length("\xc3\xa9", 0), 2u);
    EXPECT_EQ(utf8_sequence_length("\xe2\x80\xa6", 0), 3u);
    EXPECT_EQ(utf8_sequence_length("\xf0\x9f\x98\x80", 0), 4u);
    EXPECT_EQ(utf8_sequence_length("\xc0\x80", 0), 0u);      // overlong
    EXPECT_EQ(utf8_sequence_length("\xed\xa0\x80", 0), 0u);  // surrogate
    EXPECT_EQ(utf8_sequence_length("\xe2\x80", 0), 0u);      // truncated
    EXPECT_EQ(utf8_sequence_length("\x80", 0), 0u);
}

TEST(DisplayText, EscapeWithoutQuotes) {
    EXPECT_EQ(escape_text("it's"), "it's");
    EXPECT_EQ(escape_text("tab\there"), "tab\\there");
    EXPECT_EQ(escape_text("a\nb"), "a\\nb");
    EXPECT_EQ(escape_text("abcdef", 2), "ab\u2026");
}

TEST(DisplayText, ElideMiddleKeepsBothEnds) {
    EXPECT_EQ(elide_middle("short", 5), "short");
    EXPECT_EQ(elide_middle("abcdefghij", 7), "abc\u2026hij");
    EXPECT_EQ(elide_middle("abcdefghij", 6), "ab\u2026hij");  // the end keeps the odd one
    EXPECT_EQ(elide_middle("abcdefghij", 1), "\u2026");
    EXPECT_EQ(elide_middle("abcdefghij", 0), "");
    // Characters, not bytes: "é" is one, and no cut splits it.
    EXPECT_EQ(elide_middle("\xc3\xa9\xc3\xa9\xc3\xa9x\xc3\xa9\xc3\xa9\xc3\xa9", 5), "\xc3\xa9\xc3\xa9\u2026\xc3\xa9\xc3\xa9");
    EXPECT_EQ(elide_middle("\xc3\xa9\xc3\xa9\xc3\xa9", 3), "\xc3\xa9\xc3\xa9\xc3\xa9");
    // An invalid byte is one character and is kept as it is.
    EXPECT_EQ(elide_middle("\xff" "bcdefg\xff", 4), "\xff\u2026g\xff");
}

TEST(DisplayText, Numbers) {
    EXPECT_EQ(with_thousands(0), "0");
    EXPECT_EQ(with_thousands(999), "999");
    EXPECT_EQ(with_thousands(1000), "1,000");
    EXPECT_EQ(with_thousands(12345678), "12,345,678");
    EXPECT_EQ(with_thousands(std::numeric_limits<uint64_t>::max()), "18,446,744,073,709,551,615");
    EXPECT_EQ(with_thousands_signed(-1234), "-1,234");
    EXPECT_EQ(with_thousands_signed(1234), "1,234");
    EXPECT_EQ(with_thousands_signed(std::numeric_limits<int64_t>::min()), "-9,223,372,036,854,775,808");
}

TEST(DisplayText, Sizes) {
    EXPECT_EQ(human_bytes(0), "0 B");
    EXPECT_EQ(human_bytes(48), "48 B");
    EXPECT_EQ(human_bytes(1023), "1023 B");
    EXPECT_EQ(human_bytes(57344), "56.0 KiB");
    EXPECT_EQ(human_bytes(3u << 20), "3.0 MiB");
    EXPECT_EQ(human_bytes(uint64_t{5} << 40), "5.0 TiB");
    EXPECT_EQ(human_bytes(uint64_t{1} << 60), "1048576.0 TiB");
}

TEST(DisplayText, UtcTimes) {
    EXPECT_EQ(format_utc(0), "");
    EXPECT_EQ(format_utc(int64_t{1795352550} * 1'000'000'000), "2026-11-22T13:02:30Z");
}

}  // namespace
}  // namespace refscope::analysis

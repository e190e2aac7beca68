// The small pieces of text every view prints: addresses, quoted previews,
// counts with thousands separators, human sizes, UTC times. The CLI, the
// app's models and the graph exports all format through these, so "1.2 MiB"
// and "12,345" read the same in a table, a tooltip and a JSON-less report.
// (How an object, an edge or a root reads is descriptions.h.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace refscope::analysis {

// "0x7f3a5c001230".
std::string format_address(uint64_t address);

// A preview as a Python-like literal: 'it\'s', control characters and invalid
// UTF-8 escaped, cut after `max_chars` bytes at a character boundary with "…".
std::string quote_text(std::string_view text, size_t max_chars = 60);
// The same escaping without the quotes (labels, attribute names).
std::string escape_text(std::string_view text, size_t max_chars = 80);
// `text` itself if it has at most `max_chars` characters (UTF-8 sequences;
// an invalid byte counts as one); otherwise its start and its end with "…"
// between, `max_chars` characters in all: a file path keeps its root and its
// file name and line. The cuts fall on character boundaries.
std::string elide_middle(std::string_view text, size_t max_chars);

// Length of the well-formed UTF-8 sequence starting at text[pos] (1 to 4), or
// 0 if the bytes there are not valid UTF-8 (overlong, surrogate, truncated).
// Previews are byte prefixes cut in C, so every renderer must expect this.
size_t utf8_sequence_length(std::string_view text, size_t pos);

// "1,000", "12,345,678".
std::string with_thousands(uint64_t value);
// "-1,234" for negatives (refcounts, deltas); "1,234" otherwise.
std::string with_thousands_signed(int64_t value);
// "48 B", "56.0 KiB", "1.2 MiB" (binary units, one decimal).
std::string human_bytes(uint64_t bytes);
// "2026-11-22T13:02:30Z"; "" for 0 (unknown) or an unrepresentable time.
std::string format_utc(int64_t unix_ns);

}  // namespace refscope::analysis

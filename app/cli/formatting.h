// Number and time formats shared by the text and JSON renderers.
#pragma once

#include <cstdint>
#include <string>

namespace refscope::cli {

// "2026-11-22T13:02:30Z"; "" for 0 (unknown).
std::string format_utc(int64_t unix_ns);
// "12,345,678"
std::string with_commas(int64_t number);
// "1.2 MiB", "512 B"
std::string human_bytes(uint64_t bytes);

}  // namespace refscope::cli

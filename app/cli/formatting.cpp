#include "formatting.h"

#include <cstdio>
#include <ctime>

namespace refscope::cli {

std::string format_utc(int64_t unix_ns) {
    if (unix_ns == 0) return {};
    const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1'000'000'000);
    std::tm utc{};
    if (!gmtime_r(&seconds, &utc)) return {};
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string with_commas(int64_t number) {
    const bool negative = number < 0;
    // Through unsigned so that INT64_MIN has a magnitude too.
    uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(number) : static_cast<uint64_t>(number);
    std::string digits = std::to_string(magnitude);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return negative ? "-" + out : out;
}

std::string human_bytes(uint64_t bytes) {
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    if (unit == 0) {
        std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
    } else {
        std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    }
    return text;
}

}  // namespace refscope::cli

#include "refscope/analysis/display_text.h"

#include <cstdio>
#include <ctime>
#include <algorithm>
#include <iterator>
#include <vector>

namespace refscope::analysis {
namespace {

// Copies `text` escaping what would garble a terminal line: control
// characters, invalid UTF-8 and (inside quotes) the quote and backslash.
// Stops after `max_bytes` of input, at a character boundary, adding "…".
void append_escaped(std::string& out, std::string_view text, size_t max_bytes, bool quoted) {
    size_t pos = 0;
    while (pos < text.size()) {
        if (pos >= max_bytes) {
            out += "\u2026";
            return;
        }
        const unsigned char c = static_cast<unsigned char>(text[pos]);
        const size_t length = utf8_sequence_length(text, pos);
        if (length > 1) {
            out.append(text.substr(pos, length));
            pos += length;
            continue;
        }
        ++pos;
        if (length == 1 && c >= 0x20 && c != 0x7f) {
            if (quoted && (c == '\'' || c == '\\')) out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
            out += escaped;
        }
    }
}

}  // namespace

size_t utf8_sequence_length(std::string_view text, size_t pos) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(pos);
    if (lead < 0x80) return 1;
    size_t length = 0;
    uint32_t min_value = 0;
    uint32_t value = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, min_value = 0x80, value = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, min_value = 0x800, value = lead & 0x0F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, min_value = 0x10000, value = lead & 0x07;
    } else {
        return 0;
    }
    if (pos + length > text.size()) return 0;
    for (size_t i = 1; i < length; ++i) {
        if ((byte(pos + i) & 0xC0) != 0x80) return 0;
        value = (value << 6) | (byte(pos + i) & 0x3F);
    }
    if (value < min_value || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0;
    return length;
}

std::string format_address(uint64_t address) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
    return text;
}

std::string quote_text(std::string_view text, size_t max_chars) {
    std::string out = "'";
    append_escaped(out, text, max_chars, true);
    out += '\'';
    return out;
}

std::string escape_text(std::string_view text, size_t max_chars) {
    std::string out;
    append_escaped(out, text, max_chars, false);
    return out;
}

std::string elide_middle(std::string_view text, size_t max_chars) {
    // Where each character starts (an invalid byte is one character).
    std::vector<size_t> starts;
    for (size_t pos = 0; pos < text.size(); pos += std::max<size_t>(1, utf8_sequence_length(text, pos))) {
        starts.push_back(pos);
    }
    if (starts.size() <= max_chars) return std::string(text);
    if (max_chars == 0) return {};
    const size_t kept = max_chars - 1;  // one is the "…"
    const size_t head = kept / 2;
    const size_t tail = kept - head;
    std::string out(text.substr(0, starts[head]));
    out += "\u2026";
    if (tail > 0) out.append(text.substr(starts[starts.size() - tail]));
    return out;
}

std::string with_thousands(uint64_t value) {
    std::string digits = std::to_string(value);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string human_bytes(uint64_t bytes) {
    if (bytes < 1024) return std::to_string(bytes) + " B";
    static const char* const units[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes) / 1024.0;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(units)) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

std::string with_thousands_signed(int64_t value) {
    // Through unsigned so that INT64_MIN has a magnitude too.
    if (value >= 0) return with_thousands(static_cast<uint64_t>(value));
    return "-" + with_thousands(0 - static_cast<uint64_t>(value));
}

std::string format_utc(int64_t unix_ns) {
    if (unix_ns == 0) return {};
    const auto seconds = static_cast<std::time_t>(unix_ns / 1'000'000'000);
    std::tm utc{};
    if (!gmtime_r(&seconds, &utc)) return {};
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace refscope::analysis

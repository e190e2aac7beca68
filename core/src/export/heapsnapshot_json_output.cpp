// The output side of the .heapsnapshot writer: JsonOutput's string escaping, which keeps every string
// pure ASCII so that memlab's chunked decoding cannot cut a UTF-8 sequence.

#include <cerrno>
#include <cstring>

#include "export/heapsnapshot_parts.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/export/heapsnapshot.h"

namespace refscope::exporting::detail {

// A JSON string literal, quotes included, in pure ASCII: control
// characters, quote and backslash escaped; other characters as \uXXXX
// (surrogate pairs beyond the BMP); each byte that does not start a
// well-formed UTF-8 sequence becomes U+FFFD.
void JsonOutput::string(std::string_view text) {
    put('"');
    size_t pos = 0;
    while (pos < text.size()) {
        // Fast path: the run of bytes that need no escaping.
        size_t end = pos;
        while (end < text.size()) {
            const auto c = static_cast<unsigned char>(text[end]);
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') break;
            ++end;
        }
        raw(text.substr(pos, end - pos));
        pos = end;
        if (pos == text.size()) break;
        const auto c = static_cast<unsigned char>(text[pos]);
        if (c < 0x80) {
            escape_ascii(c);
            ++pos;
            continue;
        }
        const size_t length = analysis::utf8_sequence_length(text, pos);
        if (length == 0) {
            unicode_escape(0xFFFD);
            ++pos;
            continue;
        }
        uint32_t code = c & (0x7F >> length);
        for (size_t i = 1; i < length; ++i) {
            code = (code << 6) | (static_cast<unsigned char>(text[pos + i]) & 0x3F);
        }
        if (code >= 0x10000) {
            code -= 0x10000;
            unicode_escape(0xD800 + (code >> 10));
            unicode_escape(0xDC00 + (code & 0x3FF));
        } else {
            unicode_escape(code);
        }
        pos += length;
    }
    put('"');
}

void JsonOutput::escape_ascii(unsigned char c) {
    switch (c) {
        case '"': raw("\\\""); return;
        case '\\': raw("\\\\"); return;
        case '\b': raw("\\b"); return;
        case '\f': raw("\\f"); return;
        case '\n': raw("\\n"); return;
        case '\r': raw("\\r"); return;
        case '\t': raw("\\t"); return;
        default: unicode_escape(c); return;
    }
}

void JsonOutput::unicode_escape(uint32_t unit) {
    static constexpr char kHex[] = "0123456789abcdef";
    const char text[6] = {'\\', 'u', kHex[(unit >> 12) & 0xF], kHex[(unit >> 8) & 0xF],
                          kHex[(unit >> 4) & 0xF], kHex[unit & 0xF]};
    raw(std::string_view(text, 6));
}

}  // namespace refscope::exporting::detail

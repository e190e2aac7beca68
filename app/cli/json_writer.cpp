#include "json_writer.h"

#include <cmath>
#include <cstdio>

#include "refscope/analysis/descriptions.h"

namespace refscope::cli {

std::string json_quote(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    size_t pos = 0;
    while (pos < text.size()) {
        const unsigned char c = static_cast<unsigned char>(text[pos]);
        const size_t length = analysis::utf8_sequence_length(text, pos);
        if (length == 0) {
            out += "\\ufffd";  // one replacement per invalid byte
            ++pos;
            continue;
        }
        if (length > 1) {
            out.append(text.substr(pos, length));
            pos += length;
            continue;
        }
        ++pos;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                    out += escaped;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += '"';
    return out;
}

JsonWriter::~JsonWriter() {
    if (wrote_anything_) out_ << '\n';
}

void JsonWriter::newline() {
    if (style_ == JsonStyle::Compact) return;
    out_ << '\n';
    for (size_t i = 0; i < levels_.size(); ++i) out_ << "  ";
}

// Separators and indentation before any value, or before a key.
void JsonWriter::before_value() {
    wrote_anything_ = true;
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (levels_.empty()) return;
    if (levels_.back().items++ > 0) out_ << ',';
    newline();
}

void JsonWriter::begin_object() {
    before_value();
    out_ << '{';
    levels_.push_back({true, 0});
}

void JsonWriter::close(char bracket) {
    const bool had_items = levels_.back().items > 0;
    levels_.pop_back();
    if (had_items) newline();
    out_ << bracket;
}

void JsonWriter::end_object() { close('}'); }

void JsonWriter::begin_array() {
    before_value();
    out_ << '[';
    levels_.push_back({false, 0});
}

void JsonWriter::end_array() { close(']'); }

JsonWriter& JsonWriter::key(std::string_view name) {
    before_value();
    out_ << json_quote(name) << (style_ == JsonStyle::Compact ? ":" : ": ");
    after_key_ = true;
    return *this;
}

void JsonWriter::value(std::string_view text) {
    before_value();
    out_ << json_quote(text);
}

void JsonWriter::value(bool flag) {
    before_value();
    out_ << (flag ? "true" : "false");
}

void JsonWriter::value(double number) {
    if (!std::isfinite(number)) return null();  // JSON has no NaN or infinity
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", number);
    before_value();
    out_ << text;
}

void JsonWriter::value_fixed(double number, int decimals) {
    if (!std::isfinite(number)) return null();
    char text[352];  // %f of the largest double: 309 digits, the point and the decimals
    std::snprintf(text, sizeof text, "%.*f", decimals, number);
    before_value();
    out_ << text;
}

void JsonWriter::value(const std::vector<std::string>& texts) {
    begin_array();
    for (const std::string& text : texts) value(text);
    end_array();
}

void JsonWriter::null() {
    before_value();
    out_ << "null";
}

}  // namespace refscope::cli

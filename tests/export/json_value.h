// A small strict JSON reader for the tests: enough to take an exported
// .heapsnapshot (or memlab_dump.js output) apart and check it. It refuses what
// JSON refuses (trailing commas, bare control characters, bad escapes, lone
// surrogates, trailing text) so that "it parsed" means "it is JSON". Nesting
// is shallow in everything it reads, so plain recursion is fine here.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace refscope::testing {

struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<JsonValue> items;
    std::map<std::string, JsonValue> members;

    const JsonValue& operator[](const std::string& key) const {
        const auto found = members.find(key);
        if (kind != Kind::Object || found == members.end()) {
            throw std::out_of_range("no member " + key);
        }
        return found->second;
    }
    const JsonValue& operator[](size_t i) const { return items.at(i); }
    bool has(const std::string& key) const { return members.count(key) != 0; }
    size_t size() const { return kind == Kind::Object ? members.size() : items.size(); }
    uint64_t u64() const { return static_cast<uint64_t>(number); }
};

class JsonParser {
public:
    explicit JsonParser(std::string_view text) : text_(text) {}

    JsonValue parse() {
        JsonValue value = parse_value();
        skip_space();
        if (pos_ != text_.size()) fail("text after the value");
        return value;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("JSON: " + what + " at byte " + std::to_string(pos_));
    }
    void skip_space() {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' ||
                text_[pos_] == '\t')) {
            ++pos_;
        }
    }
    char peek() {
        skip_space();
        if (pos_ >= text_.size()) fail("unexpected end");
        return text_[pos_];
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++pos_;
    }
    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

    JsonValue parse_value() {
        JsonValue v;
        const char c = peek();
        if (c == '{') {
            v.kind = JsonValue::Kind::Object;
            ++pos_;
            if (peek() == '}') { ++pos_; return v; }
            for (;;) {
                if (peek() != '"') fail("expected a key");
                std::string key = parse_string();
                expect(':');
                if (!v.members.emplace(key, parse_value()).second) fail("duplicate key " + key);
                if (peek() == ',') { ++pos_; continue; }
                expect('}');
                return v;
            }
        }
        if (c == '[') {
            v.kind = JsonValue::Kind::Array;
            ++pos_;
            if (peek() == ']') { ++pos_; return v; }
            for (;;) {
                v.items.push_back(parse_value());
                if (peek() == ',') { ++pos_; continue; }
                expect(']');
                return v;
            }
        }
        if (c == '"') {
            v.kind = JsonValue::Kind::String;
            v.text = parse_string();
            return v;
        }
        if (literal("true")) { v.kind = JsonValue::Kind::Bool; v.boolean = true; return v; }
        if (literal("false")) { v.kind = JsonValue::Kind::Bool; return v; }
        if (literal("null")) return v;
        v.kind = JsonValue::Kind::Number;
        v.number = parse_number();
        return v;
    }

    double parse_number() {
        const size_t start = pos_;
        if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
        const auto digits = [&] {
            const size_t from = pos_;
            while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
            return pos_ - from;
        };
        const size_t first = pos_;
        const size_t integer_digits = digits();
        if (integer_digits == 0) fail("bad value");
        if (integer_digits > 1 && text_[first] == '0') fail("leading zero");
        if (pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            if (digits() == 0) fail("bad fraction");
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
            if (digits() == 0) fail("bad exponent");
        }
        return std::stod(std::string(text_.substr(start, pos_ - start)));
    }

    uint32_t hex4() {
        if (pos_ + 4 > text_.size()) fail("short \\u escape");
        uint32_t value = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = text_[pos_++];
            value <<= 4;
            if (h >= '0' && h <= '9') value |= static_cast<uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f') value |= static_cast<uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') value |= static_cast<uint32_t>(h - 'A' + 10);
            else fail("bad hex digit");
        }
        return value;
    }

    static void append_utf8(std::string& out, uint32_t code) {
        if (code < 0x80) {
            out += static_cast<char>(code);
        } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (code >> 18));
            out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
        }
    }

    std::string parse_string() {
        ++pos_;  // opening quote
        std::string out;
        for (;;) {
            if (pos_ >= text_.size()) fail("unterminated string");
            const auto c = static_cast<unsigned char>(text_[pos_++]);
            if (c == '"') return out;
            if (c < 0x20) fail("bare control character in a string");
            if (c != '\\') { out += static_cast<char>(c); continue; }
            if (pos_ >= text_.size()) fail("unterminated escape");
            switch (text_[pos_++]) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    uint32_t code = hex4();
                    if (code >= 0xDC00 && code <= 0xDFFF) fail("lone low surrogate");
                    if (code >= 0xD800 && code <= 0xDBFF) {
                        if (!literal("\\u")) fail("lone high surrogate");
                        const uint32_t low = hex4();
                        if (low < 0xDC00 || low > 0xDFFF) fail("bad low surrogate");
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                    }
                    append_utf8(out, code);
                    break;
                }
                default: fail("bad escape");
            }
        }
    }

    std::string_view text_;
    size_t pos_ = 0;
};

inline JsonValue parse_json(std::string_view text) { return JsonParser(text).parse(); }

}  // namespace refscope::testing

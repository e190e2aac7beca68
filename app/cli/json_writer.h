// A small streaming JSON writer for the CLI's --json output: pretty-printed
// with two-space indentation, strings always valid UTF-8 (previews are byte
// prefixes cut in C, so invalid sequences become U+FFFD rather than breaking
// a script's parser).
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace refscope::cli {

// `text` as a JSON string literal, quotes included.
std::string json_quote(std::string_view text);

class JsonWriter {
public:
    explicit JsonWriter(std::ostream& out) : out_(out) {}
    ~JsonWriter();  // ends the document with a newline

    void begin_object();
    void end_object();
    void begin_array();
    void end_array();
    // Inside an object: the next value's key.
    JsonWriter& key(std::string_view name);

    void value(std::string_view text);
    void value(const char* text) { value(std::string_view(text)); }
    void value(const std::string& text) { value(std::string_view(text)); }
    void value(bool flag);
    void value(double number);  // %.10g; null for NaN and infinities
    void null();
    template <std::integral T>
        requires(!std::same_as<T, bool>)
    void value(T number) {
        before_value();
        out_ << +number;
    }
    template <typename T>
    void value(const std::optional<T>& maybe) {
        if (maybe) {
            value(*maybe);
        } else {
            null();
        }
    }

    // key(name) then value(v): the common case.
    template <typename T>
    void field(std::string_view name, const T& v) {
        key(name);
        value(v);
    }

private:
    void before_value();
    void newline();
    void close(char bracket);

    struct Level {
        bool is_object;
        size_t items;
    };
    std::ostream& out_;
    std::vector<Level> levels_;
    bool after_key_ = false;
    bool wrote_anything_ = false;
};

}  // namespace refscope::cli

// A small streaming JSON writer for all of the CLI's --json output:
// pretty-printed with two-space indentation for the reports, or compact (no
// spaces, no newlines) for `listen --json`, where each event must stay one
// line of JSON Lines whatever its strings hold. Strings are always valid
// UTF-8 (previews are byte prefixes cut in C, so invalid sequences become
// U+FFFD rather than breaking a script's parser).
#pragma once

#include <charconv>
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

enum class JsonStyle {
    Pretty,   // two-space indentation, "key": value
    Compact,  // {"key":value,...} on one line
};

class JsonWriter {
public:
    explicit JsonWriter(std::ostream& out, JsonStyle style = JsonStyle::Pretty) : out_(out), style_(style) {}
    ~JsonWriter();  // ends the document with a newline (in Compact style: the line's end)

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
    void value(const std::vector<std::string>& texts);  // an array of strings
    void value(double number);  // %.10g; null for NaN and infinities
    // %.*f, for numbers scripts already read with a fixed number of decimals
    // (listen's seconds: six, as std::to_string printed them before this
    // writer); null for NaN and infinities.
    void value_fixed(double number, int decimals);
    void null();
    // std::to_chars rather than operator<<: the digits never depend on a
    // locale imbued in the stream (no thousands separators).
    template <std::integral T>
        requires(!std::same_as<T, bool>)
    void value(T number) {
        char text[24];  // any 64-bit integer with its sign
        const char* end = std::to_chars(text, text + sizeof text, number).ptr;
        before_value();
        out_.write(text, end - text);
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
    JsonStyle style_;
    std::vector<Level> levels_;
    bool after_key_ = false;
    bool wrote_anything_ = false;
};

}  // namespace refscope::cli

// The filter language's parser: query text to a postfix program (parse_filter,
// filter_query.h, docs/filter-language.md).
//
// Recursive descent over the raw text, emitting a postfix program as it goes
// (a leaf when a term is read, an operator once both operands are). Nesting is
// bounded (kMaxNesting) so a hostile query cannot exhaust the stack. Every
// error carries the byte offset of what was wrong; messages say "column N"
// with N = offset + 1.
#include <array>
#include <cctype>
#include <string>

#include "filter_names.h"
#include "refscope/analysis/display_text.h"

namespace refscope::analysis {

using namespace detail;

namespace {

constexpr int kMaxNesting = 64;

struct Unit {
    std::string_view name;  // matched case-insensitively
    double factor;
    bool bytes;  // only for byte fields
};

constexpr std::array<Unit, 13> kUnits{{
    {"b", 1, true},
    {"kb", 1e3, true},
    {"mb", 1e6, true},
    {"gb", 1e9, true},
    {"tb", 1e12, true},
    {"kib", 1024.0, true},
    {"mib", 1024.0 * 1024, true},
    {"gib", 1024.0 * 1024 * 1024, true},
    {"tib", 1024.0 * 1024 * 1024 * 1024, true},
    {"k", 1e3, false},
    {"m", 1e6, false},
    {"g", 1e9, false},
    {"t", 1e12, false},
}};

bool is_name_char(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }


std::string at_column(size_t offset) { return " at column " + std::to_string(offset + 1); }

class Parser {
public:
    explicit Parser(std::string_view text) : text_(text) {}

    std::vector<FilterTerm> parse() {
        skip_spaces();
        if (at_end()) return {};
        parse_or(0);
        skip_spaces();
        if (!at_end()) {
            // parse_or stops only at ')' or the end.
            fail("unexpected ')'", pos_);
        }
        return std::move(program_);
    }

private:
    // The message quotes the user's text: control characters and invalid
    // UTF-8 in it are escaped (a query may come from a script or a file).
    [[noreturn]] void fail(const std::string& what, size_t offset, const std::string& tail = {}) {
        throw FilterSyntaxError(escape_text(what + at_column(offset) + tail, std::string::npos), offset);
    }
    // The whole character at byte `p` ("日", not its first byte).
    std::string char_at(size_t p) const {
        if (p >= text_.size()) return {};
        const size_t length = utf8_sequence_length(text_, p);
        return std::string(text_.substr(p, length == 0 ? 1 : length));
    }

    bool at_end() const { return pos_ >= text_.size(); }
    char peek(size_t ahead = 0) const {
        return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
    }
    void skip_spaces() {
        while (!at_end() && is_space(text_[pos_])) ++pos_;
    }
    // The word at the cursor (up to a space or parenthesis), not consumed.
    std::string_view word_here() const {
        size_t end = pos_;
        while (end < text_.size() && !ends_word(text_[end])) ++end;
        return text_.substr(pos_, end - pos_);
    }
    bool keyword_here(std::string_view keyword) const { return iequals(word_here(), keyword); }

    void emit(FilterTerm::Kind kind, size_t offset) {
        FilterTerm t;
        t.kind = kind;
        t.offset = static_cast<uint32_t>(offset);
        program_.push_back(std::move(t));
    }

    // A term must follow the operator `what`, which ends just before the cursor.
    void expect_term_after(std::string_view what) {
        skip_spaces();
        if (at_end() || peek() == ')' || keyword_here("or") || keyword_here("and")) {
            fail("expected a term after '" + std::string(what) + "'", pos_);
        }
    }

    void parse_or(int depth) {
        parse_and(depth);
        for (;;) {
            skip_spaces();
            if (!keyword_here("or")) return;
            const size_t offset = pos_;
            pos_ += 2;
            expect_term_after("OR");
            parse_and(depth);
            emit(FilterTerm::Kind::Or, offset);
        }
    }

    void parse_and(int depth) {
        parse_unary(depth);
        for (;;) {
            skip_spaces();
            if (at_end() || peek() == ')' || keyword_here("or")) return;
            const size_t offset = pos_;
            if (keyword_here("and")) {
                pos_ += 3;
                expect_term_after("AND");
            }
            parse_unary(depth);
            emit(FilterTerm::Kind::And, offset);
        }
    }

    void parse_unary(int depth) {
        if (depth > kMaxNesting) fail("query nested too deeply", pos_);
        skip_spaces();
        const size_t offset = pos_;
        if (keyword_here("or") || keyword_here("and")) {
            fail(
                std::string("expected a term before '") + (keyword_here("or") ? "OR" : "AND") + "'",
                pos_);
        }
        if (peek() == '-') {
            ++pos_;
            if (at_end() || is_space(peek()) || peek() == ')') {
                fail("expected a term after '-'", pos_);
            }
            parse_unary(depth + 1);
            emit(FilterTerm::Kind::Not, offset);
            return;
        }
        if (keyword_here("not")) {
            pos_ += 3;
            expect_term_after("not");
            parse_unary(depth + 1);
            emit(FilterTerm::Kind::Not, offset);
            return;
        }
        parse_primary(depth);
    }

    void parse_primary(int depth) {
        skip_spaces();
        const size_t offset = pos_;
        if (at_end()) fail("expected a term", pos_);
        if (peek() == ')') fail("unexpected ')'", pos_);
        if (peek() == '(') {
            ++pos_;
            skip_spaces();
            if (at_end()) fail("unclosed '('", offset);
            if (peek() == ')') fail("empty parentheses", offset);
            parse_or(depth + 1);
            skip_spaces();
            if (peek() != ')') fail("unclosed '('", offset);
            ++pos_;
            return;
        }
        parse_term();
    }

    void parse_term() {
        const size_t start = pos_;
        if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
            FilterTerm t;
            t.kind = FilterTerm::Kind::Address;
            t.field = FilterField::Address;
            t.offset = static_cast<uint32_t>(start);
            t.address = parse_hex(start, pos_ + 2);
            program_.push_back(std::move(t));
            return;
        }
        size_t end = pos_;
        while (end < text_.size() && is_name_char(text_[end])) ++end;
        const std::string_view name = text_.substr(pos_, end - pos_);
        const char next = end < text_.size() ? text_[end] : '\0';
        const bool comparison = next == '<' || next == '>' || next == '=' || next == '!';
        if (name.empty() || (next != ':' && !comparison && next != '\0' && !ends_word(next))) {
            const std::string word(word_here());
            if (!name.empty() || is_name_char(word.empty() ? '\0' : word[0]) ||
                std::isdigit(static_cast<unsigned char>(word.empty() ? '\0' : word[0])) ||
                word.find_first_of("*?.") != std::string::npos) {
                fail("unknown term '" + word + "'", start,
                     ": to match a type name, write type:" + word);
            }
            fail("unexpected '" + char_at(pos_) + "'", start);
        }
        pos_ = end;
        if (next == ':' || comparison) {
            const FieldName* field = find_field(name);
            if (!field) {
                const std::string_view close = closest_name(name);
                const FieldName* close_field = close.empty() ? nullptr : find_field(close);
                fail("unknown field '" + std::string(name) + "'", start,
                     close_field ? ": did you mean '" + std::string(close) + "'?" : std::string());
            }
            parse_field_value(*field, start);
            return;
        }
        // A bare word: a flag.
        const FlagName* flag = find_flag(name);
        if (!flag) {
            if (const FieldName* field = find_field(name)) {
                if (field->kind == ValueKind::Text || field->kind == ValueKind::Address) {
                    fail("expected ':' after '" + std::string(name) + "'", end,
                         " (" + std::string(field->name) + ":VALUE)");
                }
                fail("expected a comparison after '" + std::string(name) + "'", end,
                     " (e.g. " + std::string(field->name) + ">100)");
            }
            const std::string_view close = closest_name(name);
            fail("unknown flag '" + std::string(name) + "'", start,
                 close.empty() ? ": to match a type name, write type:" + std::string(name)
                               : ": did you mean '" + std::string(close) + "'?");
        }
        FilterTerm t;
        t.kind = FilterTerm::Kind::Flag;
        t.flag = flag->flag;
        t.offset = static_cast<uint32_t>(start);
        program_.push_back(std::move(t));
    }

    // Hex digits from `p` (just past any "0x") to the end of the word.
    uint64_t parse_hex(size_t start, size_t p) {
        uint64_t value = 0;
        size_t digits = 0;
        while (p < text_.size() && std::isxdigit(static_cast<unsigned char>(text_[p]))) {
            if (digits == 16) fail("address too long", start);
            const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text_[p])));
            value = value * 16 + static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
            ++digits;
            ++p;
        }
        if (digits == 0) fail("expected hexadecimal digits after '0x'", p);
        if (p < text_.size() && !ends_word(text_[p])) {
            fail("unexpected '" + char_at(p) + "' in address", p);
        }
        pos_ = p;
        return value;
    }

    void parse_field_value(const FieldName& field, size_t start) {
        FilterTerm t;
        t.field = field.field;
        t.offset = static_cast<uint32_t>(start);
        const bool colon = peek() == ':';
        if (field.kind == ValueKind::Text || field.kind == ValueKind::Address) {
            if (!colon) {
                fail("'" + std::string(field.name) + "' takes ':', not a comparison", pos_,
                     " (" + std::string(field.name) + ":VALUE)");
            }
            ++pos_;
            if (field.kind == ValueKind::Address) {
                // "0x7f3a5c001230" or bare "7f3a5c001230".
                const bool prefixed = peek() == '0' && (peek(1) == 'x' || peek(1) == 'X');
                if (!prefixed && !std::isxdigit(static_cast<unsigned char>(peek()))) {
                    fail("expected a hexadecimal address after '" +
                             std::string(text_.substr(start, pos_ - start)) + "'",
                         pos_);
                }
                t.kind = FilterTerm::Kind::Address;
                t.address = parse_hex(start, prefixed ? pos_ + 2 : pos_);
                program_.push_back(std::move(t));
                return;
            }
            t.kind = FilterTerm::Kind::Text;
            t.text = parse_text(start);
            program_.push_back(std::move(t));
            return;
        }
        // Numbers: size>1KB, size>=10, size=0, size!=0, size:5 (same as =).
        t.kind = FilterTerm::Kind::Number;
        const size_t op_offset = pos_;
        if (colon) {
            ++pos_;
        }
        if (peek() == '>' && peek(1) == '=') {
            t.op = CompareOp::GreaterEqual;
            pos_ += 2;
        } else if (peek() == '<' && peek(1) == '=') {
            t.op = CompareOp::LessEqual;
            pos_ += 2;
        } else if (peek() == '!' && peek(1) == '=') {
            t.op = CompareOp::NotEqual;
            pos_ += 2;
        } else if (peek() == '=' && peek(1) == '=') {
            t.op = CompareOp::Equal;
            pos_ += 2;
        } else if (peek() == '>') {
            t.op = CompareOp::Greater;
            ++pos_;
        } else if (peek() == '<') {
            t.op = CompareOp::Less;
            ++pos_;
        } else if (peek() == '=') {
            t.op = CompareOp::Equal;
            ++pos_;
        } else if (!colon)
            fail("unknown comparison '" + char_at(pos_) + "'", op_offset,
                 " (use > >= < <= = !=)");
        t.number = parse_number(field, start);
        program_.push_back(std::move(t));
    }

    double parse_number(const FieldName& field, size_t start) {
        const size_t number_start = pos_;
        const std::string after(text_.substr(start, pos_ - start));
        size_t p = pos_;
        bool negative = false;
        if (p < text_.size() && text_[p] == '-') {
            negative = true;
            ++p;
        }
        double value = 0;
        size_t digits = 0;
        while (p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p]))) {
            value = value * 10 + (text_[p] - '0');
            ++digits;
            ++p;
        }
        if (p < text_.size() && text_[p] == '.') {
            ++p;
            double scale = 0.1;
            while (p < text_.size() && std::isdigit(static_cast<unsigned char>(text_[p]))) {
                value += (text_[p] - '0') * scale;
                scale /= 10;
                ++digits;
                ++p;
            }
        }
        if (digits == 0) fail("expected a number after '" + after + "'", number_start);
        const size_t unit_start = p;
        while (p < text_.size() && std::isalpha(static_cast<unsigned char>(text_[p]))) ++p;
        const std::string_view unit_text = text_.substr(unit_start, p - unit_start);
        if (!unit_text.empty()) {
            const Unit* unit = nullptr;
            for (const Unit& u : kUnits) {
                if (iequals(u.name, unit_text)) unit = &u;
            }
            if (!unit) {
                fail("unknown unit '" + std::string(unit_text) + "'", unit_start,
                     " (bytes: B KB MB GB TB KiB MiB GiB TiB; counts: k M G)");
            }
            if (unit->bytes && field.kind != ValueKind::ByteNumber) {
                fail("'" + std::string(field.name) + "' is not a size: unit '" +
                         std::string(unit_text) + "' does not apply",
                     unit_start);
            }
            value *= unit->factor;
        }
        if (p < text_.size() && !ends_word(text_[p])) {
            fail("unexpected '" + char_at(p) + "' after the number", p);
        }
        pos_ = p;
        return negative ? -value : value;
    }

    std::string parse_text(size_t start) {
        std::string value;
        if (peek() == '"') {
            const size_t quote = pos_;
            ++pos_;
            for (;;) {
                if (at_end()) fail("unterminated quote", quote);
                const char c = text_[pos_++];
                if (c == '"') break;
                if (c == '\\' && !at_end()) {
                    value += text_[pos_++];
                    continue;
                }
                value += c;
            }
            if (!at_end() && !ends_word(peek())) {
                fail("unexpected '" + char_at(pos_) + "' after the closing quote", pos_);
            }
        } else {
            while (!at_end() && !ends_word(peek())) value += text_[pos_++];
        }
        if (value.empty()) {
            fail("expected a value after '" + std::string(text_.substr(start, pos_ - start)) + "'",
                 pos_);
        }
        return value;
    }

    std::string_view text_;
    size_t pos_ = 0;
    std::vector<FilterTerm> program_;
};

}  // namespace

FilterQuery parse_filter(std::string_view text) {
    FilterQuery query;
    query.text = std::string(text);
    query.program = Parser(text).parse();
    return query;
}

}  // namespace refscope::analysis

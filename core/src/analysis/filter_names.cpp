// The filter language's name lookups: case-insensitive matching of field and
// flag names, "did you mean" suggestions by edit distance, and the public
// filter_field_name / filter_flag_name (filter_names.h, filter_query.h).
#include <algorithm>
#include <cctype>
#include <vector>

#include "filter_names.h"

namespace refscope::analysis {

namespace detail {

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i]))) {
            return false;
        }
    }
    return true;
}

bool istarts_with(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

namespace {


size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t above = row[j];
            const size_t cost = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                                        std::tolower(static_cast<unsigned char>(b[j - 1]))
                                    ? 0
                                    : 1;
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

std::string_view closest_name(std::string_view word) {
    std::string_view best;
    size_t best_distance = 3;
    const auto consider = [&](std::string_view name) {
        const size_t d = edit_distance(word, name);
        if (d < best_distance && d < name.size()) {
            best = name;
            best_distance = d;
        }
    };
    for (const FieldName& f : kFields) consider(f.name);
    for (const FlagName& f : kFlags) consider(f.name);
    return best;
}

const FieldName* find_field(std::string_view name) {
    for (const FieldName& f : kFields) {
        if (iequals(f.name, name)) return &f;
    }
    return nullptr;
}

const FlagName* find_flag(std::string_view name) {
    for (const FlagName& f : kFlags) {
        if (iequals(f.name, name)) return &f;
    }
    return nullptr;
}

}  // namespace detail

using namespace detail;

std::string_view filter_field_name(FilterField field) {
    for (const FieldName& f : kFields) {
        if (f.field == field) return f.name;
    }
    return "?";
}

std::string_view filter_flag_name(FilterFlag flag) {
    for (const FlagName& f : kFlags) {
        if (f.flag == flag) return f.name;
    }
    return "?";
}

}  // namespace refscope::analysis

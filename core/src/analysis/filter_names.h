// The filter language's vocabulary (docs/filter-language.md): the field and
// flag names with what kind of value each takes, their case-insensitive
// lookup with "did you mean" suggestions, and the character classes that end
// a word. Shared by filter_parser.cpp, filter_names.cpp and filter_query.cpp.
#pragma once

#include <array>
#include <string_view>

#include "refscope/analysis/filter_query.h"

namespace refscope::analysis::detail {

enum class ValueKind { Text, Address, Number, ByteNumber };

struct FieldName {
    std::string_view name;
    FilterField field;
    ValueKind kind;
};

// `depth` is an alias of `distance`; `addr` of `address`.
inline constexpr std::array<FieldName, 15> kFields{{
    {"type", FilterField::Type, ValueKind::Text},
    {"module", FilterField::Module, ValueKind::Text},
    {"preview", FilterField::Preview, ValueKind::Text},
    {"address", FilterField::Address, ValueKind::Address},
    {"addr", FilterField::Address, ValueKind::Address},
    {"size", FilterField::Size, ValueKind::ByteNumber},
    {"retained", FilterField::Retained, ValueKind::ByteNumber},
    {"refcount", FilterField::Refcount, ValueKind::Number},
    {"surplus", FilterField::Surplus, ValueKind::Number},
    {"unexplained", FilterField::Unexplained, ValueKind::Number},
    {"distance", FilterField::Distance, ValueKind::Number},
    {"depth", FilterField::Distance, ValueKind::Number},
    {"referrers", FilterField::Referrers, ValueKind::Number},
    {"referents", FilterField::Referents, ValueKind::Number},
    {"refs", FilterField::Referrers, ValueKind::Number},
}};

struct FlagName {
    std::string_view name;
    FilterFlag flag;
};

inline constexpr std::array<FlagName, 10> kFlags{{
    {"new", FilterFlag::New},
    {"unreachable", FilterFlag::Unreachable},
    {"reachable", FilterFlag::Reachable},
    {"cycle", FilterFlag::Cycle},
    {"root", FilterFlag::Root},
    {"immortal", FilterFlag::Immortal},
    {"tracked", FilterFlag::Tracked},
    {"native", FilterFlag::Native},
    {"typeobject", FilterFlag::TypeObject},
    {"suspect", FilterFlag::Suspect},
}};

bool iequals(std::string_view a, std::string_view b);
bool istarts_with(std::string_view text, std::string_view prefix);

// The closest field or flag name within 2 edits, "" if none.
std::string_view closest_name(std::string_view word);

const FieldName* find_field(std::string_view name);
const FlagName* find_flag(std::string_view name);

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline bool ends_word(char c) { return is_space(c) || c == '(' || c == ')'; }

}  // namespace refscope::analysis::detail

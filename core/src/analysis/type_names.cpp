#include "refscope/analysis/type_names.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

namespace refscope::analysis {
namespace {

std::string_view name_of(const Snapshot& s, size_t type) { return s.strings.view(s.types[type].name); }

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// Levenshtein distance, stopping early: anything above `cap` reads as cap + 1.
// Names are short, so two rows of the table suffice.
size_t edit_distance(std::string_view a, std::string_view b, size_t cap) {
    if (a.size() > b.size() + cap || b.size() > a.size() + cap) return cap + 1;
    std::vector<size_t> previous(b.size() + 1), current(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        size_t row_min = current[0];
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
            row_min = std::min(row_min, current[j]);
        }
        if (row_min > cap) return cap + 1;
        std::swap(previous, current);
    }
    return std::min(previous[b.size()], cap + 1);
}

}  // namespace

std::string_view bare_type_name(std::string_view qualified) {
    const size_t dot = qualified.rfind('.');
    return dot == std::string_view::npos ? qualified : qualified.substr(dot + 1);
}

bool has_type_named(const Snapshot& s, std::string_view name) {
    for (size_t t = 0; t < s.types.size(); ++t) {
        if (name_of(s, t) == name) return true;
    }
    return false;
}

std::vector<uint32_t> types_named(const Snapshot& s, std::string_view name) {
    std::vector<uint32_t> exact, bare;
    const bool dotted = name.find('.') != std::string_view::npos;
    for (size_t t = 0; t < s.types.size(); ++t) {
        const std::string_view qualified = name_of(s, t);
        if (qualified == name) exact.push_back(static_cast<uint32_t>(t));
        if (!dotted && bare_type_name(qualified) == name) bare.push_back(static_cast<uint32_t>(t));
    }
    return exact.empty() ? bare : exact;
}

std::vector<std::string> similar_type_names(const Snapshot& s, std::string_view name, size_t limit) {
    constexpr size_t kMaxEdits = 2;
    std::set<std::pair<size_t, std::string>> ranked;  // (distance, name): nearest, then alphabetical
    const std::string_view wanted_bare = bare_type_name(name);
    for (size_t t = 0; t < s.types.size(); ++t) {
        const std::string_view qualified = name_of(s, t);
        if (qualified.empty()) continue;
        const std::string_view bare = bare_type_name(qualified);
        size_t distance = equal_ignoring_case(bare, wanted_bare) ? 0 : kMaxEdits + 1;
        distance = std::min({distance, edit_distance(name, qualified, kMaxEdits),
                             edit_distance(wanted_bare, bare, kMaxEdits)});
        if (distance <= kMaxEdits) ranked.emplace(distance, std::string(qualified));
    }
    std::vector<std::string> names;
    for (const auto& [distance, qualified] : ranked) {
        if (names.size() == limit) break;
        if (qualified != name) names.push_back(qualified);
    }
    return names;
}

std::string resolve_type_name(const Snapshot& s, std::string_view name) {
    std::set<std::string_view> qualified;
    for (uint32_t t : types_named(s, name)) qualified.insert(name_of(s, t));
    if (qualified.size() == 1) return std::string(*qualified.begin());
    if (qualified.empty()) return std::string(name);
    std::string message = "'" + std::string(name) + "' names " + std::to_string(qualified.size()) + " types: ";
    size_t listed = 0;
    for (std::string_view q : qualified) {
        if (listed == 8) {
            message += ", …";
            break;
        }
        message += (listed++ ? ", " : "") + std::string(q);
    }
    throw TypeNameError(message + "; give the qualified name");
}

std::string no_type_message(const Snapshot& s, std::string_view name) {
    std::string message = "no objects of type '" + std::string(name) + "'";
    const std::vector<std::string> near = similar_type_names(s, name, 3);
    for (size_t i = 0; i < near.size(); ++i) message += (i == 0 ? "; did you mean " : " or ") + near[i];
    return near.empty() ? message : message + "?";
}

}  // namespace refscope::analysis

// The filter language's uses of a parsed query (filter_query.h): its
// S-expression text (FilterQuery::to_string), which analyses it needs
// (filter_needs), and completions of a half-typed query (filter_completions).
#include <cmath>
#include <cstdio>
#include <set>

#include "filter_names.h"

namespace refscope::analysis {

using namespace detail;

namespace {

std::string_view op_text(CompareOp op) {
    switch (op) {
        case CompareOp::Less: return "<";
        case CompareOp::LessEqual: return "<=";
        case CompareOp::Greater: return ">";
        case CompareOp::GreaterEqual: return ">=";
        case CompareOp::Equal: return "=";
        case CompareOp::NotEqual: return "!=";
    }
    return "?";
}

std::string number_text(double value) {
    if (value == std::floor(value) && std::fabs(value) < 9e15) {
        return std::to_string(static_cast<int64_t>(value));
    }
    std::string s = std::to_string(value);
    while (!s.empty() && s.back() == '0') s.pop_back();
    return s;
}

}  // namespace

std::string FilterQuery::to_string() const {
    if (program.empty()) return "(all)";
    std::vector<std::string> stack;
    for (const FilterTerm& t : program) {
        switch (t.kind) {
            case FilterTerm::Kind::Text:
                stack.push_back("(" + std::string(filter_field_name(t.field)) + " " + t.text + ")");
                break;
            case FilterTerm::Kind::Address: {
                char buffer[32];
                std::snprintf(buffer, sizeof buffer, "(address 0x%llx)",
                              static_cast<unsigned long long>(t.address));
                stack.push_back(buffer);
                break;
            }
            case FilterTerm::Kind::Number:
                stack.push_back("(" + std::string(filter_field_name(t.field)) + " " +
                                std::string(op_text(t.op)) + " " + number_text(t.number) + ")");
                break;
            case FilterTerm::Kind::Flag:
                stack.push_back(std::string(filter_flag_name(t.flag)));
                break;
            case FilterTerm::Kind::Not: {
                std::string operand = std::move(stack.back());
                stack.back() = "(not " + operand + ")";
                break;
            }
            case FilterTerm::Kind::And:
            case FilterTerm::Kind::Or: {
                std::string right = std::move(stack.back());
                stack.pop_back();
                stack.back() = std::string(t.kind == FilterTerm::Kind::And ? "(and " : "(or ") +
                               stack.back() + " " + right + ")";
                break;
            }
        }
    }
    return stack.empty() ? "(all)" : stack.back();
}

FilterNeeds filter_needs(const FilterQuery& query) {
    FilterNeeds needs;
    for (const FilterTerm& t : query.program) {
        if (t.kind == FilterTerm::Kind::Number) {
            switch (t.field) {
                case FilterField::Retained: needs.retained = true; break;
                case FilterField::Surplus:
                case FilterField::Unexplained: needs.roots = true; break;
                case FilterField::Distance: needs.paths = true; break;
                case FilterField::Referrers:
                case FilterField::Referents: needs.index = true; break;
                default: break;
            }
        } else if (t.kind == FilterTerm::Kind::Flag) {
            switch (t.flag) {
                case FilterFlag::New: needs.diff = true; break;
                case FilterFlag::Unreachable:
                case FilterFlag::Reachable: needs.paths = true; break;
                case FilterFlag::Cycle: needs.cycles = true; break;
                case FilterFlag::Suspect: needs.suspects = true; break;
                default: break;
            }
        }
    }
    return needs;
}

std::vector<std::string> filter_completions(std::string_view prefix_text, const Snapshot& snapshot,
                                            size_t limit) {
    size_t start = prefix_text.size();
    while (start > 0 && !ends_word(prefix_text[start - 1])) --start;
    std::string_view word = prefix_text.substr(start);
    std::string negation;
    if (!word.empty() && word[0] == '-') {
        negation = "-";
        word.remove_prefix(1);
    }
    std::set<std::string> found;
    const size_t colon = word.find(':');
    if (colon != std::string_view::npos) {
        const FieldName* field = find_field(word.substr(0, colon));
        if (field && (field->field == FilterField::Type || field->field == FilterField::Module)) {
            const std::string_view value = word.substr(colon + 1);
            const std::string lead = negation + std::string(word.substr(0, colon + 1));
            for (const TypeInfo& t : snapshot.types) {
                const std::string_view name =
                    snapshot.strings.view(field->field == FilterField::Type ? t.name : t.module);
                if (!name.empty() && name.starts_with(value))
                    found.insert(lead + std::string(name));
            }
        }
    } else {
        for (const FieldName& f : kFields) {
            if (!istarts_with(f.name, word)) continue;
            const bool text = f.kind == ValueKind::Text || f.kind == ValueKind::Address;
            found.insert(negation + std::string(f.name) + (text ? ":" : ">"));
        }
        for (const FlagName& f : kFlags) {
            if (istarts_with(f.name, word)) found.insert(negation + std::string(f.name));
        }
    }
    std::vector<std::string> out(found.begin(), found.end());
    if (limit != 0 && out.size() > limit) out.resize(limit);
    return out;
}

}  // namespace refscope::analysis

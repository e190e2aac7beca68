#include "arguments.h"

#include <charconv>

namespace refscope::cli {
namespace {

Verb verb_from_name(std::string_view name) {
    for (Verb verb : {Verb::Info, Verb::Summary, Verb::Roots, Verb::Path, Verb::Referrers}) {
        if (verb_name(verb) == name) return verb;
    }
    return Verb::None;
}

std::optional<size_t> parse_count(std::string_view text) {
    size_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return value;
}

// Walks the words after the verb. Options take their value either as the
// next word or after '=' (--top 5, --top=5); anything else is positional.
class VerbArguments {
public:
    VerbArguments(Verb verb, const std::vector<std::string_view>& args, size_t first)
        : verb_(verb), args_(args), next_(first) {}

    bool done() const { return next_ >= args_.size(); }
    std::string_view take() { return args_[next_++]; }

    std::string_view value_of(std::string_view& word) {
        const size_t equals = word.find('=');
        if (equals != std::string_view::npos) {
            const std::string_view value = word.substr(equals + 1);
            word = word.substr(0, equals);
            return value;
        }
        if (done()) fail("option " + std::string(word) + " needs a value");
        return take();
    }

    [[noreturn]] void fail(const std::string& message) const { throw UsageError(verb_, message); }

private:
    Verb verb_;
    const std::vector<std::string_view>& args_;
    size_t next_;
};

bool takes_value(std::string_view option) {
    return option == "--by" || option == "--top" || option == "--to" || option == "--type";
}

bool allowed(Verb verb, std::string_view option) {
    if (option == "--json") return true;
    switch (verb) {
        case Verb::Summary: return option == "--by" || option == "--top";
        case Verb::Roots: return option == "--top";
        case Verb::Path: return option == "--to" || option == "--type";
        case Verb::Referrers: return option == "--top";
        default: return false;
    }
}

}  // namespace

std::string_view verb_name(Verb verb) {
    switch (verb) {
        case Verb::None: return "";
        case Verb::Info: return "info";
        case Verb::Summary: return "summary";
        case Verb::Roots: return "roots";
        case Verb::Path: return "path";
        case Verb::Referrers: return "referrers";
    }
    return "";
}

std::optional<uint64_t> parse_address(std::string_view text) {
    if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
    if (text.empty() || text.size() > 16) return std::nullopt;
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

CliOptions parse_arguments(const std::vector<std::string_view>& args) {
    CliOptions options;
    size_t at = 0;
    // Options before the verb: only the global ones.
    for (; at < args.size() && args[at].starts_with("-"); ++at) {
        const std::string_view word = args[at];
        if (word == "--json") {
            options.json = true;
        } else if (word == "-h" || word == "--help") {
            options.help = true;
            return options;
        } else if (word == "--version") {
            options.version = true;
            return options;
        } else {
            throw UsageError(Verb::None, "unknown option " + std::string(word));
        }
    }
    if (at == args.size()) throw UsageError(Verb::None, "no verb given");

    const std::string_view verb_word = args[at++];
    if (verb_word == "help") {
        options.help = true;
        if (at < args.size()) {
            options.verb = verb_from_name(args[at]);
            if (options.verb == Verb::None) {
                throw UsageError(Verb::None, "unknown verb '" + std::string(args[at]) + "'");
            }
        }
        return options;
    }
    options.verb = verb_from_name(verb_word);
    if (options.verb == Verb::None) {
        throw UsageError(Verb::None, "unknown verb '" + std::string(verb_word) + "'");
    }

    VerbArguments words(options.verb, args, at);
    std::vector<std::string_view> positional;
    bool only_positional = false;
    while (!words.done()) {
        std::string_view word = words.take();
        if (only_positional || !word.starts_with("-") || word == "-") {
            positional.push_back(word);
            continue;
        }
        if (word == "--") {
            only_positional = true;
            continue;
        }
        if (word == "--help" || word == "-h") {
            options.help = true;
            return options;
        }
        const std::string_view name = word.substr(0, word.find('='));
        if (!allowed(options.verb, name)) {
            words.fail("unknown option " + std::string(name) + " for '" +
                       std::string(verb_name(options.verb)) + "'");
        }
        if (!takes_value(name)) {
            if (name != word) words.fail("option " + std::string(name) + " takes no value");
            options.json = true;  // --json is the only flag
            continue;
        }
        const std::string_view value = words.value_of(word);
        if (word == "--by") {
            if (value == "type") {
                options.group_by = analysis::GroupBy::Type;
            } else if (value == "module") {
                options.group_by = analysis::GroupBy::Module;
            } else {
                words.fail("--by takes 'type' or 'module', not '" + std::string(value) + "'");
            }
        } else if (word == "--top") {
            options.top = parse_count(value);
            if (!options.top) words.fail("--top takes a count (0 = all), not '" + std::string(value) + "'");
        } else if (word == "--to") {
            options.address = parse_address(value);
            if (!options.address) words.fail("'" + std::string(value) + "' is not a hexadecimal address");
        } else if (word == "--type") {
            if (value.empty()) words.fail("--type needs a type name");
            options.type_name = std::string(value);
        }
    }

    const size_t wanted = options.verb == Verb::Referrers ? 2 : 1;
    if (positional.empty()) words.fail("no snapshot file given");
    if (positional.size() > wanted) {
        words.fail("unexpected argument '" + std::string(positional[wanted]) + "'");
    }
    options.file = std::string(positional[0]);
    if (options.verb == Verb::Referrers) {
        if (positional.size() < 2) words.fail("no address given");
        options.address = parse_address(positional[1]);
        if (!options.address) {
            words.fail("'" + std::string(positional[1]) + "' is not a hexadecimal address");
        }
    }
    if (options.verb == Verb::Path) {
        if (options.address && !options.type_name.empty()) {
            words.fail("give either --to ADDRESS or --type NAME, not both");
        }
        if (!options.address && options.type_name.empty()) {
            words.fail("path needs --to ADDRESS or --type NAME");
        }
    }
    return options;
}

}  // namespace refscope::cli

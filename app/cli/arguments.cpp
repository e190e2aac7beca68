#include "arguments.h"

#include "refscope/analysis/display_text.h"

#include <charconv>
#include <initializer_list>

namespace refscope::cli {
namespace {

Verb verb_from_name(std::string_view name) {
    for (Verb verb : {Verb::Info, Verb::Summary, Verb::Roots, Verb::Path, Verb::Referrers,
                      Verb::Retained, Verb::Cycles, Verb::Diff, Verb::Query, Verb::ExportPath,
                      Verb::ExportHeapsnapshot, Verb::Suspects, Verb::Listen, Verb::Processes}) {
        if (verb_name(verb) == name) return verb;
    }
    if (name == "dominators") return Verb::Retained;  // the analysis' own name
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
    for (std::string_view o : {"--by", "--top", "--to", "--type", "--filter", "--third", "-o",
                               "--output", "--format", "--paths", "--hops", "--max-nodes",
                               "--cluster", "--baseline"}) {
        if (option == o) return true;
    }
    return false;
}

bool is_one_of(std::string_view option, std::initializer_list<std::string_view> names) {
    for (std::string_view name : names) {
        if (option == name) return true;
    }
    return false;
}

bool allowed(Verb verb, std::string_view option) {
    if (option == "--json") return true;
    switch (verb) {
        case Verb::Summary: return is_one_of(option, {"--by", "--top", "--filter"});
        case Verb::Roots: return option == "--top";
        case Verb::Path: return option == "--to" || option == "--type";
        case Verb::Referrers: return option == "--top";
        case Verb::Retained: return option == "--top";
        case Verb::Cycles: return option == "--top";
        case Verb::Diff: return is_one_of(option, {"--third", "--top", "--filter", "--force"});
        case Verb::Query: return option == "--top";
        case Verb::ExportPath:
            return is_one_of(option, {"--to", "--type", "--format", "-o", "--output", "--paths",
                                      "--hops", "--max-nodes", "--cluster"});
        case Verb::ExportHeapsnapshot: return is_one_of(option, {"-o", "--output", "--python-types"});
        case Verb::Suspects: return is_one_of(option, {"--baseline", "--third", "--top"});
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
        case Verb::Retained: return "retained";
        case Verb::Cycles: return "cycles";
        case Verb::Diff: return "diff";
        case Verb::Query: return "query";
        case Verb::ExportPath: return "export-path";
        case Verb::ExportHeapsnapshot: return "export-heapsnapshot";
        case Verb::Suspects: return "suspects";
        case Verb::Listen: return "listen";
        case Verb::Processes: return "processes";
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

namespace {

// An option that takes a value (--by type, --top=5, -o OUT): checked and
// stored; words.fail() names the bad value.
void apply_value_option(CliOptions& options, VerbArguments& words, std::string_view word, std::string_view value) {
    if (word == "--by") {
        if (value == "type") {
            options.group_by = analysis::GroupBy::Type;
        } else if (value == "module") {
            options.group_by = analysis::GroupBy::Module;
        } else if (value == "cycle") {
            options.group_by = analysis::GroupBy::Cycle;
        } else if (value == "dominator") {
            options.group_by = analysis::GroupBy::Dominator;
        } else {
            words.fail("--by takes 'type', 'module', 'cycle' or 'dominator', not '" + std::string(value) +
                       "'");
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
    } else if (word == "--filter") {
        options.filter = std::string(value);
    } else if (word == "--baseline") {
        if (value.empty()) words.fail("--baseline needs a snapshot file");
        options.baseline_file = std::string(value);
    } else if (word == "--third") {
        if (value.empty()) words.fail("--third needs a snapshot file");
        options.third_file = std::string(value);
    } else if (word == "-o" || word == "--output") {
        if (value.empty()) words.fail("-o needs a file name");
        options.output = std::string(value);
    } else if (word == "--format") {
        if (!is_one_of(value, {"png", "svg", "pdf", "dot"})) {
            words.fail("--format takes png, svg, pdf or dot, not '" + std::string(value) + "'");
        }
        options.format = std::string(value);
    } else if (word == "--cluster") {
        if (!is_one_of(value, {"module", "type", "cycle", "none"})) {
            words.fail("--cluster takes module, type, cycle or none, not '" + std::string(value) + "'");
        }
        options.cluster = std::string(value);
    } else {  // --paths, --hops, --max-nodes
        const std::optional<size_t> count = parse_count(value);
        const bool at_least_one = word != "--hops";
        // Upper bounds keep Graphviz's layout to seconds (docs/cli-json.md,
        // "export-path"): a drawing of thousands of boxes is unreadable anyway.
        const size_t most = word == "--max-nodes" ? 5'000 : word == "--paths" ? 100 : 50;
        if (!count || *count > most || (at_least_one && *count == 0)) {
            words.fail(std::string(word) + " takes a count from " + (at_least_one ? "1" : "0") + " to " +
                       analysis::with_thousands(most) + ", not '" + std::string(value) + "'");
        }
        const auto n = static_cast<uint32_t>(*count);
        if (word == "--paths") options.paths = n;
        if (word == "--hops") options.hops = n;
        if (word == "--max-nodes") options.max_nodes = n;
    }
}

// FILE, and per verb the second positional word (diff's B, query's EXPR,
// referrers' ADDRESS), then the checks that span several options.
void take_positional(CliOptions& options, VerbArguments& words, const std::vector<std::string_view>& positional) {
    const bool two = options.verb == Verb::Referrers || options.verb == Verb::Diff ||
                     options.verb == Verb::Query;
    const size_t wanted = two ? 2 : 1;
    if (positional.empty()) words.fail("no snapshot file given");
    if (positional.size() > wanted) {
        words.fail("unexpected argument '" + std::string(positional[wanted]) + "'");
    }
    options.file = std::string(positional[0]);
    if (options.verb == Verb::Diff) {
        if (positional.size() < 2) words.fail("diff needs two snapshot files, older first");
        options.second_file = std::string(positional[1]);
    }
    if (options.verb == Verb::Query) {
        if (positional.size() < 2) words.fail("no filter expression given");
        options.filter = std::string(positional[1]);
    }
    if (options.verb == Verb::Suspects && !options.third_file.empty() && options.baseline_file.empty()) {
        words.fail("--third needs --baseline (snapshots: baseline, FILE, third)");
    }
    if (options.verb == Verb::ExportHeapsnapshot && options.output.empty()) {
        words.fail("export-heapsnapshot needs -o OUT");
    }
    if (options.verb == Verb::Referrers) {
        if (positional.size() < 2) words.fail("no address given");
        options.address = parse_address(positional[1]);
        if (!options.address) {
            words.fail("'" + std::string(positional[1]) + "' is not a hexadecimal address");
        }
    }
    if (options.verb == Verb::Path || options.verb == Verb::ExportPath) {
        if (options.address && !options.type_name.empty()) {
            words.fail("give either --to ADDRESS or --type NAME, not both");
        }
        if (!options.address && options.type_name.empty()) {
            words.fail(std::string(verb_name(options.verb)) + " needs --to ADDRESS or --type NAME");
        }
    }
}

}  // namespace

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

    // The live verbs parse their own options (commands_live.cpp).
    if (options.verb == Verb::Listen || options.verb == Verb::Processes) {
        for (; at < args.size(); ++at) {
            if (args[at] == "--help" || args[at] == "-h") {
                options.help = true;
                return options;
            }
            options.live_args.emplace_back(args[at]);
        }
        return options;
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
        // query's expression may start with '-' (a negated term: -tracked).
        if (options.verb == Verb::Query && positional.size() == 1 && !allowed(options.verb, name)) {
            positional.push_back(word);
            continue;
        }
        if (!allowed(options.verb, name)) {
            words.fail("unknown option " + std::string(name) + " for '" +
                       std::string(verb_name(options.verb)) + "'");
        }
        if (!takes_value(name)) {
            if (name != word) words.fail("option " + std::string(name) + " takes no value");
            if (name == "--json") options.json = true;
            if (name == "--force") options.force = true;
            if (name == "--python-types") options.python_types = true;
            continue;
        }
        apply_value_option(options, words, word, words.value_of(word));
    }

    take_positional(options, words, positional);
    return options;
}

}  // namespace refscope::cli

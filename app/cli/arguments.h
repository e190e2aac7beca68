// The command line of refscope-cli: verbs, their options, and the usage
// errors that make it exit with status 2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/analysis/grouping.h"

namespace refscope::cli {

enum class Verb {
    None, Info, Summary, Roots, Path, Referrers,
    Retained, Cycles, Diff, Query, ExportPath, ExportHeapsnapshot, Suspects,
    Listen, Processes,  // the live verbs (commands_live.cpp): no snapshot file; Processes stays last (help.cpp)
};

std::string_view verb_name(Verb verb);

// What the user asked for. Parsing fills it or throws UsageError; it never
// prints, so that main() alone decides where text goes.
struct CliOptions {
    Verb verb = Verb::None;
    bool help = false;      // --help / help VERB: print help for `verb` (None = overall)
    bool version = false;
    bool json = false;
    std::string file;
    analysis::GroupBy group_by = analysis::GroupBy::Type;
    std::optional<size_t> top;           // --top N (0 = all); verbs have their own default
    std::optional<uint64_t> address;     // path --to, referrers ADDRESS
    std::string type_name;               // path, export-path --type
    std::optional<std::string> filter;   // summary, diff --filter EXPR; query's EXPR
    std::string second_file;             // diff B
    std::string third_file;              // diff, suspects --third C
    std::string baseline_file;           // suspects --baseline A
    bool force = false;                  // diff --force: skip the same-process check
    std::string output;                  // export-* -o OUT ("" = stdout for export-path)
    std::string format;                  // export-path --format ("" = from -o, else dot)
    std::optional<uint32_t> paths;       // export-path --paths K
    std::optional<uint32_t> hops;        // export-path --hops N
    std::optional<uint32_t> max_nodes;   // export-path --max-nodes N
    std::string cluster = "none";        // export-path --cluster module|type|cycle|none
    bool python_types = false;           // export-heapsnapshot --python-types
    std::vector<std::string> live_args;  // listen, processes: the words after the verb
};

class UsageError : public std::runtime_error {
public:
    UsageError(Verb verb, const std::string& message)
        : std::runtime_error(message), verb_(verb) {}
    Verb verb() const { return verb_; }  // whose help to point at
private:
    Verb verb_;
};

CliOptions parse_arguments(const std::vector<std::string_view>& args);

// "0x7f00…" or "7f00…": hexadecimal, at most 16 digits. Empty if malformed.
std::optional<uint64_t> parse_address(std::string_view text);

}  // namespace refscope::cli

// refscope-cli: reads a snapshot and answers one question per run.
//
// Errors are one line on stderr, "refscope-cli: error: …", with exit status
// 2 for bad usage and 1 for everything else (unreadable file, no such
// object), so that scripts can tell "you called me wrong" from "no answer".
#include <iostream>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "arguments.h"
#include "commands.h"
#include "filter_argument.h"
#include "help.h"
#include "refscope/analysis/snapshot_diff.h"
#include "refscope/export/heapsnapshot.h"
#include "refscope/format/snapshot_io.h"
#include "refscope/graphviz/graph_render.h"
#include "refscope/live/listener.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int fail(int status, std::string message) {
    // One line, whatever the message carries.
    for (char& c : message) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    std::cout.flush();
    std::cerr << "refscope-cli: error: " << message << '\n';
    return status;
}

// The reader's message, naming the file unless it already names one of the
// files given (diff and suspects read several; the verb names the others).
std::string with_file(const refscope::cli::CliOptions& options, const std::string& message) {
    for (const std::string* file : {&options.file, &options.second_file, &options.third_file,
                                    &options.baseline_file}) {
        if (!file->empty() && message.find(*file) != std::string::npos) return message;
    }
    return options.file + ": " + message;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace refscope::cli;
    std::ios::sync_with_stdio(false);
    const std::vector<std::string_view> args(argv + (argc > 0 ? 1 : 0), argv + argc);

    CliOptions options;
    try {
        options = parse_arguments(args);
    } catch (const UsageError& e) {
        const std::string verb(verb_name(e.verb()));
        return fail(kExitUsage, std::string(e.what()) + " (see 'refscope-cli " +
                                    (verb.empty() ? "" : verb + " ") + "--help')");
    }
    if (options.version) {
        std::cout << "refscope-cli " << REFSCOPE_VERSION << '\n';
        return 0;
    }
    if (options.help) {
        std::cout << help_text(options.verb);
        return 0;
    }

    try {
        run_verb(options, std::cout);
        std::cout.flush();
        if (!std::cout) return fail(kExitFailure, "cannot write the output");
        return 0;
    } catch (const UsageError& e) {  // found out late: e.g. PNG to a terminal
        return fail(kExitUsage, std::string(e.what()) + " (see 'refscope-cli " +
                                    std::string(verb_name(e.verb())) + " --help')");
    } catch (const FilterUsageError& e) {
        return fail(kExitUsage, e.what());
    } catch (const refscope::analysis::SnapshotMismatchError& e) {
        return fail(kExitFailure, std::string(e.what()) + " (--force diffs them anyway)");
    } catch (const refscope::graphviz::GraphvizError& e) {
        return fail(kExitFailure, e.what());
    } catch (const refscope::exporting::HeapsnapshotError& e) {
        return fail(kExitFailure, e.what());
    } catch (const refscope::live::ListenError& e) {
        return fail(kExitFailure, e.what());
    } catch (const refscope::format::ReadError& e) {
        return fail(kExitFailure, with_file(options, e.what()));
    } catch (const LookupError& e) {
        return fail(kExitFailure, options.file + ": " + e.what());
    } catch (const std::invalid_argument& e) {
        return fail(kExitFailure, options.file + ": inconsistent snapshot: " + e.what());
    } catch (const std::bad_alloc&) {
        return fail(kExitFailure, options.file + ": out of memory");
    } catch (const std::exception& e) {
        return fail(kExitFailure, options.file + ": " + e.what());
    }
}

// export-path (a drawing of why an object is alive, through Graphviz) and
// export-heapsnapshot (the heap for Chrome DevTools). Both write their file
// only after the analysis succeeded, and atomically (the core writers write a
// temporary file and rename it): on any error nothing is left at OUT.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "command_support.h"
#include "commands.h"
#include "json_output.h"
#include "json_writer.h"
#include "refscope/analysis/cycles.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/type_names.h"
#include "refscope/analysis/subgraph.h"
#include "refscope/export/heapsnapshot.h"
#include "refscope/graphviz/graph_render.h"
#include "verbs.h"

namespace refscope::cli {
namespace {

using namespace refscope::analysis;
namespace gv = refscope::graphviz;

// `-o -`: the output goes to standard output.
constexpr std::string_view kStandardOutput = "-";

// --type NAME draws this many instances, the most telling first.
constexpr size_t kTypeTargets = 3;

gv::OutputFormat choose_format(const CliOptions& options) {
    if (!options.format.empty()) return gv::parse_output_format(options.format);
    if (options.output.empty() || options.output == kStandardOutput) return gv::OutputFormat::Dot;
    const auto from_name = gv::output_format_for_path(options.output);
    if (!from_name) {
        throw UsageError(options.verb, "cannot tell the format from '" + options.output +
                                           "': name it .png, .svg, .pdf or .dot, or give --format");
    }
    return *from_name;
}

ClusterBy cluster_by(const std::string& name) {
    if (name == "module") return ClusterBy::Module;
    if (name == "type") return ClusterBy::Type;
    if (name == "cycle") return ClusterBy::Cycle;
    return ClusterBy::None;
}

uint64_t file_size_or_zero(const std::string& path) {
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    return error ? 0 : static_cast<uint64_t>(size);
}

}  // namespace

void run_export_path(const CliOptions& options, const SnapshotAnalysis& a, std::ostream& out) {
    const Snapshot& s = a.snapshot();
    const gv::OutputFormat format = choose_format(options);
    const bool to_stdout = options.output.empty() || options.output == kStandardOutput;
    if (to_stdout && options.json) {
        throw UsageError(options.verb, "--json reports on a written file: give -o OUT");
    }
    if (to_stdout && (format == gv::OutputFormat::Png || format == gv::OutputFormat::Pdf) &&
        isatty(STDOUT_FILENO)) {
        throw UsageError(options.verb, "not writing " + std::string(gv::output_format_name(format)) +
                                           " to a terminal: give -o OUT or redirect the output");
    }

    std::vector<uint32_t> targets;
    if (options.address) {
        targets.push_back(node_at(s, *options.address));
    } else {
        targets = pick_targets_of_type(a.index(), a.roots(), a.paths(), resolve_type_name(s, options.type_name),
                                       kTypeTargets);
        if (targets.empty()) throw LookupError(no_type_message(s, options.type_name));
    }

    SubgraphOptions sub;
    sub.max_paths = options.paths.value_or(sub.max_paths);
    sub.hops = options.hops.value_or(sub.hops);
    sub.max_nodes = options.max_nodes.value_or(sub.max_nodes);
    sub.cluster_by = cluster_by(options.cluster);
    // Cycles' "no cycle" id is the extractor's "no cluster" id.
    static_assert(kNoCycle == kNoCluster);
    if (sub.cluster_by == ClusterBy::Cycle) sub.component = a.cycles()->cycle_ids();
    const Subgraph graph = extract_subgraph(a.index(), a.roots(), a.paths(), targets, sub);

    gv::RenderOptions render_options;
    const std::string first = describe_node_at(s, targets[0]);
    render_options.title = targets.size() == 1
                               ? "why is " + first + " alive?"
                               : "why are " + std::to_string(targets.size()) + " \u00d7 " +
                                     options.type_name + " alive?";
    if (to_stdout) {
        const std::string drawing = gv::render(graph, format, render_options);
        out.write(drawing.data(), static_cast<std::streamsize>(drawing.size()));
        return;
    }
    gv::render_to_file(graph, format, options.output, render_options);
    const uint64_t bytes = file_size_or_zero(options.output);

    uint64_t groups = 0;
    for (const SubgraphNode& n : graph.nodes) groups += n.is_group();
    if (options.json) {
        JsonWriter json(out);
        json.begin_object();
        json.field("verb", "export-path");
        json.field("file", options.file);
        json.field("output", options.output);
        json.field("format", gv::output_format_name(format));
        json.field("bytes", bytes);
        json.key("targets");
        json.begin_array();
        for (uint32_t t : targets) write_node(json, node_report(s, a.roots(), t));
        json.end_array();
        json.field("nodes", graph.nodes.size());
        json.field("groups", groups);
        json.field("edges", graph.edges.size());
        json.field("clusters", graph.clusters.size());
        json.field("paths", graph.path_count);
        json.field("truncated", graph.truncated);
        json.field("omitted", graph.omitted_nodes);
        json.field("elided", graph.elided_objects);
        json.field("notes", graph.notes);
        json.end_object();
        return;
    }
    out << "wrote " << options.output << ": " << with_thousands(graph.nodes.size()) << " nodes ("
        << with_thousands(groups) << " groups), " << with_thousands(graph.edges.size()) << " edges, "
        << with_thousands(graph.path_count) << " retention path(s)";
    if (!graph.clusters.empty()) out << ", " << with_thousands(graph.clusters.size()) << " clusters";
    out << '\n';
    if (graph.truncated) {
        out << "  capped at --max-nodes " << sub.max_nodes << ": " << with_thousands(graph.omitted_nodes)
            << " neighbours not drawn\n";
    }
    if (graph.elided_objects > 0)
        out << "  long paths: " << with_thousands(graph.elided_objects) << " objects along them drawn as elided boxes\n";
    for (const std::string& note : graph.notes) out << "  " << note << '\n';
}

void run_export_heapsnapshot(const CliOptions& options, const SnapshotAnalysis& a, std::ostream& out) {
    exporting::HeapsnapshotOptions export_options;
    export_options.python_types_only = options.python_types;
    if (options.output == kStandardOutput) {
        // The export is the output: no report after it.
        if (options.json) throw UsageError(options.verb, "--json reports on a written file: give -o OUT");
        exporting::write_heapsnapshot(a.index(), a.roots(), out, export_options);
        out.flush();
        if (!out) throw std::runtime_error("cannot write the export to standard output");
        return;
    }
    const exporting::HeapsnapshotStats stats =
        exporting::write_heapsnapshot_file(a.index(), a.roots(), options.output, export_options);
    if (options.json) {
        JsonWriter json(out);
        json.begin_object();
        json.field("verb", "export-heapsnapshot");
        json.field("file", options.file);
        json.field("output", options.output);
        json.field("nodes", stats.nodes);
        json.field("edges", stats.edges);
        json.field("strings", stats.strings);
        json.field("bytes", stats.bytes);
        json.field("synthetic_nodes", stats.synthetic_nodes);
        json.field("python_types_only", options.python_types);
        json.end_object();
        return;
    }
    out << "wrote " << options.output << ": " << with_thousands(stats.nodes) << " nodes, "
        << with_thousands(stats.edges) << " edges, " << human_bytes(stats.bytes)
        << "; open it in Chrome DevTools: Memory \u25b8 Load profile\n";
}

}  // namespace refscope::cli

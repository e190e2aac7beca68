// diff A B [--third C]: what changed between two snapshots of one process,
// and with a third, which objects allocated between 1 and 2 survive in 3.
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "command_support.h"
#include "filter_argument.h"
#include "json_output.h"
#include "json_writer.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/snapshot_diff.h"
#include "text_table.h"
#include "verbs.h"

namespace refscope::cli {
namespace {

using namespace refscope::analysis;

std::string signed_text(int64_t n) { return (n > 0 ? "+" : "") + with_thousands_signed(n); }

// The objects of `s` flagged in `column` (new, or survivor) that also match
// the filter, if any: the largest first, then by id; `limit` of them.
struct Selection {
    uint64_t objects = 0;
    uint64_t bytes = 0;
    std::vector<NodeReport> top;
};

Selection select_flagged(const CliOptions& options, const SnapshotAnalysis& a, const std::vector<uint8_t>& column,
                         size_t limit) {
    const Snapshot& s = a.snapshot();
    std::vector<uint32_t> nodes;
    if (options.filter) {
        for (uint32_t n : select_filtered(parse_filter_argument(*options.filter), a, column)) {
            if (column[n]) nodes.push_back(n);
        }
    } else {
        for (uint32_t n = 0; n < s.node_count(); ++n) {
            if (column[n]) nodes.push_back(n);
        }
    }
    Selection r;
    r.objects = nodes.size();
    for (uint32_t n : nodes) r.bytes += s.node_size[n];
    const size_t shown = std::min(limit, nodes.size());
    std::partial_sort(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(shown), nodes.end(),
                      [&](uint32_t x, uint32_t y) {
                          return s.node_size[x] != s.node_size[y] ? s.node_size[x] > s.node_size[y] : x < y;
                      });
    for (size_t i = 0; i < shown; ++i) {
        const uint32_t n = nodes[i];
        r.top.push_back(a.has_graph() ? node_report(s, a.roots(), n) : plain_node_report(s, n));
    }
    return r;
}

void print_objects(const std::vector<NodeReport>& nodes, std::ostream& out) {
    Table table({true, false, false});
    table.row({"size", "address", "object"});
    for (const NodeReport& n : nodes) {
        table.row({with_thousands(n.size), format_address(n.address), n.description});
    }
    table.print(out);
}

void write_text(const CliOptions& options, const Snapshot& a, const Snapshot& b, const SnapshotDiff& diff,
                size_t type_limit, const Selection& fresh, const SurvivorReport* survivors,
                const Selection* surviving, std::ostream& out) {
    const DiffTotals& t = diff.totals;
    out << "process " << describe_process(b) << ": snapshot #" << a.header.sequence << " \u2192 #"
        << b.header.sequence;
    if (options.force) out << " (--force: not checked)";
    out << '\n';
    out << "objects " << with_thousands(t.objects_a) << " \u2192 " << with_thousands(t.objects_b) << " ("
        << signed_text(static_cast<int64_t>(t.objects_b - t.objects_a)) << "), bytes "
        << with_thousands(t.bytes_a) << " \u2192 " << with_thousands(t.bytes_b) << " ("
        << signed_text(static_cast<int64_t>(t.bytes_b - t.bytes_a)) << "); " << with_thousands(t.matched)
        << " in both, " << with_thousands(t.new_objects) << " new (" << human_bytes(t.new_bytes) << "), "
        << with_thousands(t.freed_objects) << " freed (" << human_bytes(t.freed_bytes) << ")\n";
    if (!diff.types.empty()) {
        out << "\ntypes that changed";
        if (type_limit < diff.types.size()) out << " (largest growth: " << type_limit << " of " << diff.types.size() << ")";
        out << ":\n";
        Table table({true, true, true, true, true, true, false});
        table.row({"\u0394bytes", "\u0394objects", "new", "freed", "objects", "bytes", "type"});
        for (size_t i = 0; i < diff.types.size() && i < type_limit; ++i) {
            const TypeDelta& d = diff.types[i];
            table.row({signed_text(d.byte_delta()), signed_text(d.object_delta()), with_thousands(d.new_objects),
                       with_thousands(d.freed_objects), with_thousands(d.objects_b), with_thousands(d.bytes_b), d.name});
        }
        table.print(out);
    }
    const std::string matching = options.filter ? " matching " + *options.filter : "";
    if (survivors) {
        out << "\nthird snapshot: " << with_thousands(survivors->allocated_between)
            << " objects allocated between #1 and #2, " << with_thousands(survivors->freed_again)
            << " freed again by #3, " << with_thousands(survivors->survivors.size()) << " survive ("
            << human_bytes(survivors->survivor_bytes) << ")\n";
        if (!survivors->groups.empty()) {
            Table table({true, true, false});
            table.row({"objects", "bytes", "type"});
            for (size_t i = 0; i < survivors->groups.size() && i < type_limit; ++i) {
                const SurvivorGroup& g = survivors->groups[i];
                table.row({with_thousands(g.objects), with_thousands(g.bytes), g.type});
            }
            table.print(out);
        }
        if (surviving && !surviving->top.empty()) {
            out << "\nsurvivors" << matching << ": " << with_thousands(surviving->objects) << " ("
                << human_bytes(surviving->bytes) << ")\n";
            print_objects(surviving->top, out);
        }
        return;
    }
    out << "\nnew objects" << matching << ": " << with_thousands(fresh.objects) << " ("
        << human_bytes(fresh.bytes) << ")";
    if (fresh.top.size() < fresh.objects) out << ", largest " << fresh.top.size();
    out << '\n';
    if (!fresh.top.empty()) print_objects(fresh.top, out);
}

// "<name>": [node…] (the listed objects), "<name>_selected": {objects, bytes}
// (all that matched, before --top).
void write_selection(JsonWriter& json, std::string_view name, const Selection& selection) {
    json.key(name);
    json.begin_array();
    for (const NodeReport& n : selection.top) write_node(json, n);
    json.end_array();
    json.key(std::string(name) + "_selected");
    json.begin_object();
    json.field("objects", selection.objects);
    json.field("bytes", selection.bytes);
    json.end_object();
}

void write_json(const CliOptions& options, const Snapshot& b, const SnapshotDiff& diff, size_t type_limit,
                const Selection& fresh, const SurvivorReport* survivors, const Selection* surviving,
                std::ostream& out) {
    JsonWriter json(out);
    json.begin_object();
    json.field("verb", "diff");
    json.key("files");
    json.begin_array();
    json.value(options.file);
    json.value(options.second_file);
    if (!options.third_file.empty()) json.value(options.third_file);
    json.end_array();
    json.field("process", describe_process(b));
    json.field("forced", options.force);
    json.field("filter", options.filter);
    const DiffTotals& t = diff.totals;
    json.key("totals");
    json.begin_object();
    json.field("objects_a", t.objects_a);
    json.field("objects_b", t.objects_b);
    json.field("bytes_a", t.bytes_a);
    json.field("bytes_b", t.bytes_b);
    json.field("matched", t.matched);
    json.field("new_objects", t.new_objects);
    json.field("new_bytes", t.new_bytes);
    json.field("freed_objects", t.freed_objects);
    json.field("freed_bytes", t.freed_bytes);
    json.end_object();
    json.field("type_count", diff.types.size());
    json.key("types");
    json.begin_array();
    for (size_t i = 0; i < diff.types.size() && i < type_limit; ++i) {
        const TypeDelta& d = diff.types[i];
        json.begin_object();
        json.field("name", d.name);
        json.field("objects_a", d.objects_a);
        json.field("objects_b", d.objects_b);
        json.field("bytes_a", d.bytes_a);
        json.field("bytes_b", d.bytes_b);
        json.field("object_delta", d.object_delta());
        json.field("byte_delta", d.byte_delta());
        json.field("new_objects", d.new_objects);
        json.field("new_bytes", d.new_bytes);
        json.field("freed_objects", d.freed_objects);
        json.field("freed_bytes", d.freed_bytes);
        json.end_object();
    }
    json.end_array();
    write_selection(json, "new", fresh);
    json.key("survivors");
    if (!survivors) {
        json.null();
    } else {
        json.begin_object();
        json.field("allocated_between", survivors->allocated_between);
        json.field("freed_again", survivors->freed_again);
        json.field("survivors", survivors->survivors.size());
        json.field("survivor_bytes", survivors->survivor_bytes);
        json.key("groups");
        json.begin_array();
        for (size_t i = 0; i < survivors->groups.size() && i < type_limit; ++i) {
            const SurvivorGroup& g = survivors->groups[i];
            json.begin_object();
            json.field("type", g.type);
            json.field("objects", g.objects);
            json.field("bytes", g.bytes);
            json.end_object();
        }
        json.end_array();
        write_selection(json, "top", *surviving);
        json.end_object();
    }
    json.end_object();
}

}  // namespace

void run_diff(const CliOptions& options, const Snapshot& older, std::ostream& out) {
    const SharedAnalysis newer_analysis = load_analysis(options.second_file, stages_for_filter(options.filter));
    const Snapshot& newer = newer_analysis->snapshot();
    DiffOptions diff_options;
    diff_options.allow_mismatch = options.force;
    const SnapshotDiff diff = diff_snapshots(older, newer, diff_options);
    const size_t limit = limit_or_all(options.top, kDefaultTop);
    const Selection fresh = select_flagged(options, *newer_analysis, diff.is_new, limit);

    std::unique_ptr<SurvivorReport> survivors;
    std::unique_ptr<Selection> surviving;
    if (!options.third_file.empty()) {
        const SharedAnalysis third = load_analysis(options.third_file, stages_for_filter(options.filter));
        survivors = std::make_unique<SurvivorReport>(find_survivors(older, newer, third->snapshot(), diff_options));
        surviving = std::make_unique<Selection>(select_flagged(options, *third, survivors->is_survivor, limit));
    }
    if (options.json) {
        write_json(options, newer, diff, limit, fresh, survivors.get(), surviving.get(), out);
    } else {
        write_text(options, older, newer, diff, limit, fresh, survivors.get(), surviving.get(), out);
    }
}

}  // namespace refscope::cli

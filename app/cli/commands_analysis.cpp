// retained (dominators), cycles and query: each builds its report from the
// analysis and renders it as text or JSON (fields: docs/cli-json.md).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "command_support.h"
#include "filter_argument.h"
#include "json_output.h"
#include "json_writer.h"
#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/display_text.h"
#include "refscope/analysis/inferred_holders.h"
#include "text_table.h"
#include "verbs.h"

namespace refscope::cli {
namespace {

using namespace refscope::analysis;

std::string bytes_text(uint64_t bytes) {
    return with_thousands(bytes) + " bytes (" + human_bytes(bytes) + ")";
}

std::string node_text(const NodeReport& node) {
    if (node.description.find(" @ ") != std::string::npos) return node.description;
    return node.description + " @ " + format_address(node.address);
}

void begin_report(JsonWriter& json, std::string_view verb, const std::string& file) {
    json.begin_object();
    json.field("verb", verb);
    json.field("file", file);
}

// ---- retained -------------------------------------------------------------

struct RetainedRow {
    NodeReport node;
    uint64_t retained_bytes = 0;
    uint32_t retained_objects = 0;
    std::string dominator_kind;  // "node", "roots", "unexplained holders"
    std::optional<NodeReport> dominator;
};

struct RetainedReport {
    uint64_t reachable_objects = 0, reachable_bytes = 0;
    uint64_t unexplained_objects = 0, unexplained_bytes = 0;
    uint64_t unreachable_objects = 0;
    std::vector<RetainedRow> top;
};

RetainedReport make_retained(const CliOptions& options, const SnapshotAnalysis& a) {
    const Snapshot& s = a.snapshot();
    const DominatorTree& tree = *a.dominators();
    RetainedReport r;
    r.reachable_objects = tree.reachable_count();
    r.reachable_bytes = tree.retained_size(kSuperRoot);
    r.unexplained_objects = tree.retained_count(kUnexplainedRoot);
    r.unexplained_bytes = tree.retained_size(kUnexplainedRoot);
    r.unreachable_objects = s.node_count() - tree.reachable_count();
    const size_t limit = limit_or_all(options.top, kDefaultTop);
    for (uint32_t node : tree.top_retained(limit == SIZE_MAX ? 0 : limit)) {
        RetainedRow row;
        row.node = node_report(s, a.roots(), node);
        row.retained_bytes = tree.retained_size(node);
        row.retained_objects = tree.retained_count(node);
        const uint32_t dominator = tree.idom(node);
        if (dominator == kSuperRoot) {
            row.dominator_kind = "roots";
        } else if (dominator == kUnexplainedRoot) {
            row.dominator_kind = "unexplained holders";
        } else {
            row.dominator_kind = "node";
            row.dominator = node_report(s, a.roots(), dominator);
        }
        r.top.push_back(std::move(row));
    }
    return r;
}

void write_retained_text(const RetainedReport& r, std::ostream& out) {
    out << "reachable: " << with_thousands(r.reachable_objects) << " objects, "
        << bytes_text(r.reachable_bytes) << "; unexplained holders (C/C++ code or leaks) retain "
        << with_thousands(r.unexplained_objects) << " objects, " << bytes_text(r.unexplained_bytes)
        << "; " << with_thousands(r.unreachable_objects) << " objects unreachable (garbage)\n";
    if (r.top.empty()) return;
    out << "largest retained sizes (freeing the object frees all it retains):\n";
    Table table({true, true, true, false, false});
    table.row({"retained", "objects", "shallow", "dominated by", "object"});
    for (const RetainedRow& row : r.top) {
        table.row({with_thousands(row.retained_bytes), with_thousands(row.retained_objects),
                   with_thousands(row.node.size),
                   row.dominator ? node_text(*row.dominator) : row.dominator_kind,
                   node_text(row.node)});
    }
    table.print(out);
}

void write_retained_json(const std::string& file, const RetainedReport& r, std::ostream& out) {
    JsonWriter json(out);
    begin_report(json, "retained", file);
    json.field("mode", "explained and unexplained");
    json.field("reachable_objects", r.reachable_objects);
    json.field("reachable_bytes", r.reachable_bytes);
    json.key("unexplained_holders");
    json.begin_object();
    json.field("objects", r.unexplained_objects);
    json.field("bytes", r.unexplained_bytes);
    json.end_object();
    json.field("unreachable_objects", r.unreachable_objects);
    json.key("top");
    json.begin_array();
    for (const RetainedRow& row : r.top) {
        json.begin_object();
        json.key("node");
        write_node(json, row.node);
        json.field("retained_bytes", row.retained_bytes);
        json.field("retained_objects", row.retained_objects);
        json.key("dominator");
        if (row.dominator) {
            write_node(json, *row.dominator);
        } else {
            json.null();
        }
        json.field("dominator_kind", row.dominator_kind);
        json.end_object();
    }
    json.end_array();
    json.end_object();
}

// ---- cycles ---------------------------------------------------------------

constexpr size_t kCycleMembersShown = 20;
constexpr size_t kCycleTypesShown = 3;

std::string types_text(const Snapshot& s, const std::vector<TypeTally>& types) {
    std::string text;
    for (const TypeTally& t : types) {
        if (!text.empty()) text += ", ";
        const std::string_view name = t.type < s.types.size() ? s.strings.view(s.types[t.type].name)
                                                               : std::string_view("(unknown type)");
        text += std::to_string(t.objects) + " \u00d7 " + std::string(name);
    }
    return text;
}

// The likely cycles through undescribed C++ members (inferred_holders.h):
// not in the snapshot's graph, so apart from the cycles table and marked as
// inferred.
void write_inferred_text(const Snapshot& s, const std::vector<InferredHolder>& inferred, size_t limit,
                         std::ostream& out) {
    if (inferred.empty()) return;
    out << '\n' << with_thousands(inferred.size())
        << (inferred.size() == 1 ? " likely cycle" : " likely cycles")
        << " through a C++ member (inferred, not in the snapshot's graph)"
        << (inferred.size() > limit ? "; the first " + with_thousands(limit) : std::string()) << ":\n";
    for (size_t i = 0; i < inferred.size() && i < limit; ++i) {
        const InferredHolder& h = inferred[i];
        std::string chain = describe_node(s, h.held);
        for (uint32_t e : h.edges) chain += " \u2192 " + describe_edge(s, e) + " \u2192 " + describe_node(s, s.edge_target[e]);
        out << "  " << chain << " \u2192 (C++ member) \u2192 " << describe_node(s, h.held) << "\n    " << h.text
            << '\n';
    }
}

void write_cycles_text(const Snapshot& s, const Cycles& cycles, const std::vector<uint32_t>& shown,
                       std::ostream& out) {
    uint64_t uncollectable_cycles = 0, uncollectable_bytes = 0;
    for (int f = 0; f < kCycleFateCount; ++f) {
        if (!uncollectable(static_cast<CycleFate>(f))) continue;
        uncollectable_cycles += cycles.totals(static_cast<CycleFate>(f)).cycles;
        uncollectable_bytes += cycles.totals(static_cast<CycleFate>(f)).bytes;
    }
    out << with_thousands(cycles.count()) << " reference cycles, " << with_thousands(uncollectable_cycles)
        << " uncollectable (" << human_bytes(uncollectable_bytes) << ")\n";
    Table totals({false, true, true, true});
    totals.row({"fate", "cycles", "objects", "bytes"});
    for (int f = 0; f < kCycleFateCount; ++f) {
        const auto fate = static_cast<CycleFate>(f);
        const Cycles::FateTotals& t = cycles.totals(fate);
        totals.row({std::string(cycle_fate_name(fate)), with_thousands(t.cycles), with_thousands(t.objects),
                    with_thousands(t.bytes)});
    }
    totals.print(out);
    if (shown.empty()) return;
    out << '\n';
    Table table({true, false, true, true, false, false});
    table.row({"id", "fate", "objects", "bytes", "types", "reason"});
    for (uint32_t c : shown) {
        const CycleInfo& info = cycles.info(c);
        table.row({"#" + std::to_string(c), std::string(cycle_fate_name(info.fate)),
                   with_thousands(info.members), with_thousands(info.bytes),
                   types_text(s, cycles.top_types(c, kCycleTypesShown)), cycles.explain(c)});
    }
    table.print(out);
}

void write_inferred_json(JsonWriter& json, const Snapshot& s, const SnapshotAnalysis& a,
                         const std::vector<InferredHolder>& inferred, size_t limit) {
    json.field("inferred_count", inferred.size());
    json.key("inferred_cycles");
    json.begin_array();
    for (size_t i = 0; i < inferred.size() && i < limit; ++i) {
        const InferredHolder& h = inferred[i];
        json.begin_object();
        json.field("inferred", true);
        json.key("held");
        write_node(json, node_report(s, a.roots(), h.held));
        json.field("unexplained", h.unexplained);
        json.key("likely_holder");
        write_node(json, node_report(s, a.roots(), h.holder));
        json.key("hops");
        write_hops(json, hops_along(a, h.edges));
        json.field("reason", h.text);
        json.end_object();
    }
    json.end_array();
}

void write_cycles_json(const std::string& file, const Snapshot& s, const SnapshotAnalysis& a,
                       const Cycles& cycles, const std::vector<uint32_t>& shown,
                       const std::vector<InferredHolder>& inferred, size_t limit, std::ostream& out) {
    JsonWriter json(out);
    begin_report(json, "cycles", file);
    json.field("count", cycles.count());
    json.key("totals");
    json.begin_object();
    for (int f = 0; f < kCycleFateCount; ++f) {
        const auto fate = static_cast<CycleFate>(f);
        const Cycles::FateTotals& t = cycles.totals(fate);
        json.key(cycle_fate_name(fate));
        json.begin_object();
        json.field("cycles", t.cycles);
        json.field("objects", t.objects);
        json.field("bytes", t.bytes);
        json.end_object();
    }
    json.end_object();
    json.key("cycles");
    json.begin_array();
    for (uint32_t c : shown) {
        const CycleInfo& info = cycles.info(c);
        json.begin_object();
        json.field("id", c);
        json.field("fate", cycle_fate_name(info.fate));
        json.field("uncollectable", uncollectable(info.fate));
        json.field("reachable", info.reachable);
        json.field("objects", info.members);
        json.field("bytes", info.bytes);
        json.key("types");
        json.begin_array();
        for (const TypeTally& t : cycles.top_types(c, 0)) {
            json.begin_object();
            json.field("type", t.type < s.types.size() ? s.strings.view(s.types[t.type].name)
                                                       : std::string_view("(unknown type)"));
            json.field("objects", t.objects);
            json.field("bytes", t.bytes);
            json.end_object();
        }
        json.end_array();
        json.field("reason", cycles.explain(c));
        json.key("culprit_node");
        if (info.culprit_node != kNoNode) {
            write_node(json, node_report(s, a.roots(), info.culprit_node));
        } else {
            json.null();
        }
        json.field("unexplained", info.unexplained);
        json.key("culprit_edge");
        if (info.culprit_edge != kNoEdge) {
            const uint32_t e = info.culprit_edge;
            json.begin_object();
            json.field("edge", describe_edge(s, e));
            json.field("edge_kind", edge_kind_name(s.edge_kind[e]));
            json.key("source");
            write_node(json, node_report(s, a.roots(), a.index().source(e)));
            json.key("target");
            write_node(json, node_report(s, a.roots(), s.edge_target[e]));
            json.field("type_traverses", info.culprit_type_traverses);
            json.end_object();
        } else {
            json.null();
        }
        const auto members = cycles.members(c);
        json.field("members_shown", std::min(members.size(), kCycleMembersShown));
        json.key("members");
        json.begin_array();
        for (size_t i = 0; i < members.size() && i < kCycleMembersShown; ++i) {
            write_node(json, node_report(s, a.roots(), members[i]));
        }
        json.end_array();
        json.end_object();
    }
    json.end_array();
    write_inferred_json(json, s, a, inferred, limit);
    json.end_object();
}

}  // namespace

void run_retained(const CliOptions& options, const SnapshotAnalysis& a, std::ostream& out) {
    const RetainedReport report = make_retained(options, a);
    if (options.json) {
        write_retained_json(options.file, report, out);
    } else {
        write_retained_text(report, out);
    }
}

void run_cycles(const CliOptions& options, const SnapshotAnalysis& a, std::ostream& out) {
    const Snapshot& snapshot = a.snapshot();
    const Cycles& cycles = *a.cycles();
    const size_t limit = limit_or_all(options.top, kDefaultTop);
    const std::vector<uint32_t> shown = cycles.ranked(limit == SIZE_MAX ? 0 : limit);
    const std::vector<InferredHolder> inferred = infer_holders(a.index(), a.roots());
    if (options.json) {
        write_cycles_json(options.file, snapshot, a, cycles, shown, inferred, limit, out);
    } else {
        write_cycles_text(snapshot, cycles, shown, out);
        write_inferred_text(snapshot, inferred, limit, out);
    }
}

void run_query(const CliOptions& options, const SnapshotAnalysis& a, std::ostream& out) {
    const Snapshot& s = a.snapshot();
    const FilterQuery query = parse_filter_argument(*options.filter);
    const std::vector<uint32_t> selected = select_filtered(query, a);
    uint64_t bytes = 0;
    for (uint32_t n : selected) bytes += s.node_size[n];

    // The largest matches first (then by id): the ones worth a look.
    const size_t limit = limit_or_all(options.top, kDefaultTop);
    std::vector<uint32_t> top = selected;
    const size_t shown = std::min(limit, top.size());
    const auto larger = [&](uint32_t x, uint32_t y) {
        return s.node_size[x] != s.node_size[y] ? s.node_size[x] > s.node_size[y] : x < y;
    };
    std::partial_sort(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(shown), top.end(), larger);
    top.resize(shown);
    std::vector<NodeReport> nodes;
    nodes.reserve(top.size());
    for (uint32_t n : top) {
        nodes.push_back(a.has_graph() ? node_report(s, a.roots(), n) : plain_node_report(s, n));
    }

    if (options.json) {
        JsonWriter json(out);
        begin_report(json, "query", options.file);
        json.field("query", query.text);
        json.field("parsed", query.to_string());
        json.field("objects", selected.size());
        json.field("bytes", bytes);
        json.key("top");
        json.begin_array();
        for (const NodeReport& node : nodes) write_node(json, node);
        json.end_array();
        json.end_object();
        return;
    }
    out << with_thousands(selected.size()) << " of " << with_thousands(s.node_count()) << " objects match "
        << escape_text(query.text, 1000) << ", " << bytes_text(bytes) << " shallow\n";
    if (nodes.empty()) return;
    if (nodes.size() < selected.size()) out << "largest " << nodes.size() << ":\n";
    // With allocation tracebacks, a last column says where each was made.
    const bool traced = s.allocations.recorded();
    Table table(traced ? std::vector<bool>{true, true, false, false, false} : std::vector<bool>{true, true, false, false});
    std::vector<std::string> heading = {"size", "refcount", "address", "object"};
    if (traced) heading.push_back("allocated at");
    table.row(heading);
    for (const NodeReport& n : nodes) {
        std::vector<std::string> row = {with_thousands(n.size), with_thousands_signed(n.refcount),
                                        format_address(n.address), n.description};
        if (traced) row.push_back(n.allocated.empty() ? "-" : n.allocation_site);
        table.row(row);
    }
    table.print(out);
}

}  // namespace refscope::cli

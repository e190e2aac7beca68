#include "commands.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "command_support.h"
#include "commands_live.h"
#include "filter_argument.h"
#include "json_output.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/type_names.h"
#include "refscope/format/snapshot_io.h"
#include "reports.h"
#include "text_output.h"
#include "verbs.h"

namespace refscope::cli {
namespace {

using namespace refscope::analysis;

constexpr size_t kDefaultReferrers = 50;

// From the outline: info reads no edge columns, so it answers on a 10M-object
// snapshot without the time and memory of decoding them (docs/cli.md).
InfoReport make_info(const std::string& file, const format::SnapshotOutline& outline) {
    const Snapshot& s = outline.snapshot;
    InfoReport r;
    r.file = file;
    r.snapshot = &s;
    r.references = outline.edge_count;
    for (size_t n = 0; n < s.node_count(); ++n) {
        const uint8_t flags = s.node_flags[n];
        r.gc_tracked += (flags & format::kNodeGcTracked) != 0;
        r.immortal += (flags & format::kNodeImmortal) != 0;
        r.native += (flags & format::kNodeNative) != 0;
        r.type_objects += (flags & format::kNodeTypeObject) != 0;
        r.bytes += s.node_size[n];
    }
    return r;
}

// group_objects() over the selected nodes only (summary --filter): the same
// grouping rules, module objects by their own name when grouping by module.
std::vector<GroupTotal> group_selected(const Snapshot& s, GroupBy by,
                                       const std::vector<uint32_t>& selected) {
    const size_t type_count = s.types.size();
    std::map<std::string_view, GroupTotal> groups;
    for (uint32_t n : selected) {
        const size_t type = std::min<size_t>(s.node_type[n], type_count);
        std::string_view name;
        if (type < type_count) {
            const bool module_object = by == GroupBy::Module && s.node_preview[n] != 0 &&
                                       s.strings.view(s.types[type].name) == "module";
            name = module_object ? s.strings.view(s.node_preview[n])
                                 : s.strings.view(by == GroupBy::Type ? s.types[type].name
                                                                      : s.types[type].module);
        }
        if (name.empty()) name = by == GroupBy::Type ? "(unknown type)" : "(no module)";
        GroupTotal& total = groups[name];
        ++total.objects;
        total.bytes += s.node_size[n];
    }
    std::vector<GroupTotal> result;
    result.reserve(groups.size());
    for (auto& [name, total] : groups) {
        total.name = std::string(name);
        result.push_back(std::move(total));
    }
    std::sort(result.begin(), result.end(), [](const GroupTotal& a, const GroupTotal& b) {
        if (a.bytes != b.bytes) return a.bytes > b.bytes;
        if (a.objects != b.objects) return a.objects > b.objects;
        return a.name < b.name;
    });
    return result;
}

SummaryReport make_summary(const CliOptions& options, const SnapshotAnalysis& a) {
    const Snapshot& s = a.snapshot();
    SummaryReport r;
    r.file = options.file;
    r.by = options.group_by;
    std::optional<std::vector<uint32_t>> selected;
    if (options.filter) {
        const FilterQuery query = parse_filter_argument(*options.filter);
        r.filter = query.text;
        selected = select_filtered(query, a);
    }
    const std::vector<uint32_t>* selection = selected ? &*selected : nullptr;
    if (r.by == GroupBy::Cycle) {
        r.groups = group_by_cycle(*a.cycles(), s, selection);
    } else if (r.by == GroupBy::Dominator) {
        r.groups = group_by_dominator(*a.dominators(), s, selection);
    } else if (selection) {
        r.groups = group_selected(s, options.group_by, *selection);
    } else {
        r.groups = group_objects(s, options.group_by);
    }
    r.group_count = r.groups.size();
    for (const GroupTotal& g : r.groups) {
        r.objects += g.objects;
        r.bytes += g.bytes;
    }
    const size_t limit = limit_or_all(options.top, kDefaultTop);
    if (r.groups.size() > limit) r.groups.resize(limit);
    return r;
}

RootsReport make_roots(const CliOptions& options, const SnapshotAnalysis& a) {
    const Snapshot& s = a.snapshot();
    RootsReport r;
    r.file = options.file;
    r.objects = s.node_count();
    r.reachable = a.paths().reachable_count();
    for (int c = 0; c < kRootClassCount; ++c) {
        const auto root_class = static_cast<RootClass>(c);
        const RootClassTotals& t = a.roots().totals(root_class);
        r.classes.push_back({std::string(root_class_name(root_class)), t.records, t.objects,
                             t.references});
    }
    const size_t limit = limit_or_all(options.top, kDefaultTop);
    r.unexplained_objects = a.roots().unexplained_nodes().size();
    // Ranked as `suspects` weighs them: a user's object with a leaked
    // reference before interpreter and extension statics.
    for (const NodeCount& c : a.suspects()->rank_unexplained(a.roots(), limit == SIZE_MAX ? 0 : limit)) {
        r.unexplained.push_back(node_report(s, a.roots(), c.node));
    }
    const auto& negative = a.roots().negative_surplus_nodes();
    r.negative_objects = negative.size();
    for (size_t i = 0; i < negative.size() && i < limit; ++i) {
        r.negative.push_back(node_report(s, a.roots(), negative[i].node));
    }
    r.overexplained_references = a.roots().overexplained_references();
    r.invalid_root_records = a.roots().invalid_root_records();
    return r;
}

// For --type: the instance nearest to a root; with none reachable, the one
// with the most unexplained surplus (the likeliest leak), else the first.
uint32_t pick_instance(const SnapshotAnalysis& a, const std::string& name, PathReport& r) {
    const Snapshot& s = a.snapshot();
    std::vector<uint8_t> matches(s.types.size(), 0);
    for (uint32_t t : types_named(s, name)) matches[t] = 1;
    uint32_t best = kNoNode;
    uint32_t best_unreached = kNoNode;
    for (uint32_t n = 0; n < s.node_count(); ++n) {
        if (s.node_type[n] >= matches.size() || !matches[s.node_type[n]]) continue;
        ++r.instances;
        if (a.paths().reachable(n)) {
            ++r.reachable_instances;
            if (best == kNoNode || a.paths().distance(n) < a.paths().distance(best)) best = n;
        } else if (best_unreached == kNoNode ||
                   a.roots().unexplained(n) > a.roots().unexplained(best_unreached)) {
            best_unreached = n;
        }
    }
    if (r.instances == 0) throw LookupError(no_type_message(s, name));
    return best != kNoNode ? best : best_unreached;
}

PathReport make_path(const CliOptions& options, const SnapshotAnalysis& a) {
    const Snapshot& s = a.snapshot();
    PathReport r;
    r.file = options.file;
    // A bare class name ("Leaky") reports as the type it means ("app.Leaky").
    if (!options.address) r.type_name = resolve_type_name(s, options.type_name);
    const uint32_t target = options.address ? node_at(s, *options.address) : pick_instance(a, r.type_name, r);
    r.target = node_report(s, a.roots(), target);
    if (const auto path = a.paths().path_to(target)) {
        r.found = true;
        r.root = root_report(s, s.roots[path->root_record]);
        r.root_node = node_report(s, a.roots(), path->root_node);
        r.hops = hops_along(a, path->edges);
        if (const auto trap = finalizer_trap_on_path(a.index(), *path)) r.finalizer = finalizer_report(s, a.roots(), *trap);
        return r;
    }
    const NoPathExplanation why = a.paths().explain_unreachable(target);
    r.reason = std::string(reason_name(why.reason));
    r.explanation = why.text;
    r.unexplained = why.unexplained;
    if (why.holder != kNoNode) r.holder = node_report(s, a.roots(), why.holder);
    r.holder_hops = hops_along(a, why.holder_edges);
    r.search_truncated = why.search_truncated;
    if (why.likely_holder != kNoNode) {
        r.likely_holder = node_report(s, a.roots(), why.likely_holder);
        r.likely_holder_hops = hops_along(a, why.likely_holder_edges);
    }
    return r;
}

ReferrersReport make_referrers(const CliOptions& options, const SnapshotAnalysis& a) {
    const Snapshot& s = a.snapshot();
    ReferrersReport r;
    r.file = options.file;
    const uint32_t target = node_at(s, *options.address);
    r.target = node_report(s, a.roots(), target);
    r.owned_in = a.roots().owned_in(target);
    r.breakdown = a.roots().breakdown(target);
    if (a.paths().reachable(target)) r.distance = a.paths().distance(target);
    const auto in_edges = a.index().in_edges(target);
    r.referrer_count = in_edges.size();
    const size_t limit = limit_or_all(options.top, kDefaultReferrers);
    for (size_t i = 0; i < in_edges.size() && i < limit; ++i) {
        r.referrers.push_back(hop_report(a, in_edges[i], a.index().source(in_edges[i])));
    }
    for (uint32_t record : a.roots().roots_of(target)) r.roots.push_back(root_report(s, s.roots[record]));
    return r;
}

template <typename Report>
void render(const CliOptions& options, const Report& report, std::ostream& out) {
    if (options.json) {
        write_json(report, out);
    } else {
        write_text(report, out);
    }
}

// The stages of the pipeline each verb reads; the verbs that read other
// snapshots load those themselves.
AnalysisOptions stages_for(const CliOptions& options) {
    // diff's filter selects objects of B and C, which it loads itself.
    AnalysisOptions stages = stages_for_filter(options.verb == Verb::Diff ? std::nullopt : options.filter);
    switch (options.verb) {
        case Verb::Summary:
            stages.cycles |= options.group_by == GroupBy::Cycle;
            stages.dominators |= options.group_by == GroupBy::Dominator;
            break;
        case Verb::Retained: stages.dominators = true; break;
        case Verb::Cycles: stages.cycles = true; break;
        case Verb::ExportPath:
            stages.graph = true;
            stages.cycles = options.cluster == "cycle";
            break;
        case Verb::Roots: stages.suspects = true; break;
        case Verb::Path:
        case Verb::Referrers:
        case Verb::ExportHeapsnapshot: stages.graph = true; break;
        case Verb::Suspects:
            // FILE is the analysed snapshot, or with --third the middle one,
            // of which only the objects count. With a baseline the ranking
            // is the comparison's.
            if (options.third_file.empty()) {
                stages.dominators = stages.cycles = true;
                stages.suspects = options.baseline_file.empty();
            }
            break;
        default: break;
    }
    return stages;
}

}  // namespace

void run_verb(const CliOptions& options, std::ostream& out) {
    if (options.verb == Verb::Listen || options.verb == Verb::Processes) return run_live_verb(options, out);
    if (options.verb == Verb::None) return;
    if (options.verb == Verb::Info) {
        const format::SnapshotOutline outline = format::read_snapshot_outline(options.file);
        return render(options, make_info(options.file, outline), out);
    }
    const SharedAnalysis analysis = SnapshotAnalysis::load(options.file, stages_for(options));
    const SnapshotAnalysis& a = *analysis;
    switch (options.verb) {
        case Verb::Summary: return render(options, make_summary(options, a), out);
        case Verb::Retained: return run_retained(options, a, out);
        case Verb::Cycles: return run_cycles(options, a, out);
        case Verb::Query: return run_query(options, a, out);
        case Verb::Diff: return run_diff(options, a.snapshot(), out);
        case Verb::ExportPath: return run_export_path(options, a, out);
        case Verb::ExportHeapsnapshot: return run_export_heapsnapshot(options, a, out);
        case Verb::Suspects: return run_suspects(options, analysis, out);
        case Verb::Roots: return render(options, make_roots(options, a), out);
        case Verb::Path: return render(options, make_path(options, a), out);
        case Verb::Referrers: return render(options, make_referrers(options, a), out);
        default: return;
    }
}

}  // namespace refscope::cli

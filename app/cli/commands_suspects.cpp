// suspects FILE [--baseline A [--third C]]: "what is leaking?" as a ranked
// list, one row per type with its evidence (LeakSuspects, docs/leak-suspects.md).
//
// Which snapshot is analysed: FILE, or with --third the third snapshot C
// (the three-snapshot technique reports survivors as objects of C). Growth
// is measured from the baseline to the analysed snapshot.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command_support.h"
#include "json_output.h"
#include "json_writer.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/leak_suspects.h"
#include "text_table.h"
#include "verbs.h"

namespace refscope::cli {
namespace {

using namespace refscope::analysis;

std::string score_text(double score) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", score);
    return text;
}

void write_text(const std::string& file, const LeakSuspects& suspects, size_t limit, std::ostream& out) {
    const auto& rows = suspects.groups();
    out << "leak suspects in " << file << ": " << with_thousands(suspects.high_confidence_count())
        << " high-confidence, " << with_thousands(rows.size() - suspects.high_confidence_count())
        << " low-confidence";
    if (limit < rows.size()) out << "; top " << limit;
    out << '\n';
    if (rows.empty()) return;
    Table table({true, true, false, true, true, true, false, false});
    table.row({"#", "score", "confidence", "objects", "shallow", "retained", "type", "evidence"});
    for (size_t i = 0; i < rows.size() && i < limit; ++i) {
        const SuspectGroup& g = rows[i];
        table.row({std::to_string(i + 1), score_text(g.score), std::string(suspect_confidence_name(g.confidence)),
                   with_thousands(g.objects), with_thousands(g.shallow_bytes), with_thousands(g.retained_bytes), g.type,
                   suspect_kind_names(g.kinds)});
    }
    table.print(out);
    out << '\n';
    for (size_t i = 0; i < rows.size() && i < limit; ++i) {
        out << "  " << i + 1 << ". " << rows[i].type << ": " << rows[i].reason << '\n';
    }
}

void write_json(const CliOptions& options, const std::string& file, const Snapshot& s,
                const RootClasses& roots, const LeakSuspects& suspects, size_t limit, std::ostream& out) {
    JsonWriter json(out);
    json.begin_object();
    json.field("verb", "suspects");
    json.field("file", file);
    json.key("baseline");
    if (options.baseline_file.empty()) {
        json.null();
    } else {
        json.value(options.baseline_file);
    }
    json.key("second");  // with --third: FILE, snapshot 2 of 3
    if (options.third_file.empty()) {
        json.null();
    } else {
        json.value(options.file);
    }
    const auto& rows = suspects.groups();
    json.field("high_confidence", suspects.high_confidence_count());
    json.field("row_count", rows.size());
    json.key("rows");
    json.begin_array();
    for (size_t i = 0; i < rows.size() && i < limit; ++i) {
        const SuspectGroup& g = rows[i];
        json.begin_object();
        json.field("type", g.type);
        json.field("module", g.module);
        json.field("confidence", suspect_confidence_name(g.confidence));
        json.key("kinds");
        json.begin_array();
        for (int k = 0; k < kSuspectKindCount; ++k) {
            const auto bit = static_cast<uint8_t>(1u << k);
            if (g.kinds & bit) json.value(suspect_kind_name(bit));
        }
        json.end_array();
        json.field("score", g.score);
        json.field("objects", g.objects);
        json.field("shallow_bytes", g.shallow_bytes);
        json.field("retained_bytes", g.retained_bytes);
        json.key("representative");
        if (g.representative != kNoNode) {
            write_node(json, node_report(s, roots, g.representative));
        } else {
            json.null();
        }
        json.key("sample");
        json.begin_array();
        for (uint32_t n : g.sample) json.value(format_address(s.node_address[n]));
        json.end_array();
        json.field("reason", g.reason);
        json.field("reasons", g.reasons);
        json.field("surplus_objects", g.surplus_objects);
        json.field("unexplained_references", g.unexplained_references);
        json.field("unreachable_objects", g.unreachable_objects);
        json.key("holder");
        if (g.holder != kNoNode) {
            write_node(json, node_report(s, roots, g.holder));
        } else {
            json.null();
        }
        json.field("holder_objects", g.holder_objects);
        json.field("holder_count", g.holder_count);
        json.field("cycle_objects", g.cycle_objects);
        json.field("cycle_count", g.cycle_count);
        json.key("cycle");
        if (g.cycle != kNoCycle) {
            json.value(g.cycle);
        } else {
            json.null();
        }
        json.field("growth_objects", g.growth_objects);
        json.field("growth_bytes", g.growth_bytes);
        json.field("objects_before", g.objects_before);
        json.field("new_objects", g.new_objects);
        json.field("survivor_objects", g.survivor_objects);
        json.field("survivor_bytes", g.survivor_bytes);
        json.field("large_objects", g.large_objects);
        json.field("largest_retained", g.largest_retained);
        json.field("lead_objects", g.lead_objects);
        json.key("lead_holder");
        if (g.lead_holder != kNoNode) {
            json.begin_object();
            json.field("name", g.lead_holder_name);
            json.field("objects", g.lead_holder_objects);
            json.key("node");
            write_node(json, node_report(s, roots, g.lead_holder));
            json.field("description", describe_node(s, g.lead_holder));
            json.end_object();
        } else {
            json.null();
        }
        // An inference, not evidence (docs/cli.md, "Inferred holders").
        json.field("inferred", g.likely_holder != kNoNode);
        json.key("likely_holder");
        if (g.likely_holder != kNoNode) {
            write_node(json, node_report(s, roots, g.likely_holder));
        } else {
            json.null();
        }
        json.key("likely_held");
        if (g.likely_held != kNoNode) {
            write_node(json, node_report(s, roots, g.likely_held));
        } else {
            json.null();
        }
        // Allocation sites (docs/cli.md, "Allocation sites"): 0 and [] when
        // the snapshot has no tracebacks.
        json.field("traced_objects", g.traced_objects);
        json.key("allocation_sites");
        json.begin_array();
        for (const SiteCount& site : g.allocation_sites) {
            json.begin_object();
            json.field("site", frame_text(s, site.frame));
            json.field("objects", site.objects);
            json.end_object();
        }
        json.end_array();
        json.field("allocation_text", g.allocation_text);
        json.field("finalizer_objects", g.finalizer_objects);
        json.key("finalizer");
        write_finalizer(json, g.finalizer_objects > 0 ? std::optional(finalizer_report(s, roots, g.finalizer_trap))
                                                       : std::nullopt);
        json.end_object();
    }
    json.end_array();
    json.end_object();
}

}  // namespace

void run_suspects(const CliOptions& options, const SharedAnalysis& file, std::ostream& out) {
    // The analysed ("current") snapshot: FILE, or the third one.
    const bool third = !options.third_file.empty();
    AnalysisOptions stages;  // all of them; with a baseline the comparison ranks
    stages.suspects = options.baseline_file.empty();
    const SharedAnalysis current = third ? load_analysis(options.third_file, stages) : file;
    const std::string& current_file = third ? options.third_file : options.file;

    // With a baseline the ranking has growth (and with --third survivor)
    // evidence: the comparison the app's baseline picker computes.
    std::shared_ptr<const Comparison> comparison;
    if (!options.baseline_file.empty()) {
        const SharedAnalysis baseline = load_analysis(options.baseline_file, AnalysisOptions::snapshot_only());
        comparison = Comparison::compute(baseline, third ? file : nullptr, current);
    }
    const LeakSuspects& suspects = comparison ? comparison->suspects() : *current->suspects();
    const size_t limit = limit_or_all(options.top, kDefaultTop);
    if (options.json) {
        write_json(options, current_file, current->snapshot(), current->roots(), suspects, limit, out);
    } else {
        write_text(current_file, suspects, limit, out);
    }
}

}  // namespace refscope::cli

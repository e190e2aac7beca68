// libFuzzer target for `export-path` and the app's graph view: a small heap
// from the input's bytes (fuzzed_heap.h) goes through the whole analysis,
// the subgraph around a few targets is extracted with caps from the input,
// and Graphviz draws it (DOT text, SVG through the dot layout, and the
// positions the app's scene uses). Names and previews carry arbitrary bytes
// into Graphviz's HTML-like labels, which Graphviz must accept. Only
// GraphvizError may come out; the drawing stays within the node cap, and
// every Graphviz object is freed.
//   fuzz_export_path -max_total_time=60 corpus/export_path
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzzed_heap.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "refscope/analysis/subgraph.h"
#include "refscope/graphviz/graph_render.h"

namespace {

using namespace refscope;
using namespace refscope::analysis;
namespace gv = refscope::graphviz;

SubgraphOptions fuzzed_options(FuzzedDataProvider& in, const SnapshotAnalysis& a) {
    SubgraphOptions o;
    o.max_paths = in.ConsumeIntegralInRange<uint32_t>(1, 4);
    o.hops = in.ConsumeIntegralInRange<uint32_t>(0, 3);
    o.referrers = in.ConsumeBool();
    o.referents = in.ConsumeBool();
    o.max_nodes = in.ConsumeIntegralInRange<uint32_t>(1, 40);
    o.collapse_threshold = in.ConsumeIntegralInRange<uint32_t>(1, 10);
    o.max_fanout = in.ConsumeIntegralInRange<uint32_t>(0, 8);
    o.cluster_by = static_cast<ClusterBy>(in.ConsumeIntegralInRange<uint8_t>(0, 3));
    if (o.cluster_by == ClusterBy::Cycle) o.component = a.cycles()->cycle_ids();
    o.preview_chars = in.ConsumeIntegralInRange<size_t>(0, 64);
    return o;
}

void draw(const Subgraph& graph, FuzzedDataProvider& in) {
    gv::RenderOptions r;
    r.title = in.ConsumeRandomLengthString(64);
    r.rankdir = in.ConsumeBool() ? gv::RankDir::LeftToRight : gv::RankDir::TopToBottom;
    r.show_notes = in.ConsumeBool();
    try {
        (void)gv::render_dot(graph, r);
        (void)gv::render(graph, gv::OutputFormat::Svg, r);
        const gv::GraphLayout layout = gv::compute_layout(graph, r);
        if (layout.nodes.size() != graph.nodes.size() || layout.edges.size() != graph.edges.size()) {
            std::abort();
        }
    } catch (const gv::GraphvizError&) {
    }
    if (gv::graphviz_live_objects() != 0) std::abort();  // a graph or layout was not freed
    if (gv::graphviz_rejected_labels() != 0) std::abort();  // a label drawn as the node's name
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider in(data, size);
    std::optional<Snapshot> heap = fuzzing::fuzzed_heap(in);
    if (!heap) return 0;
    AnalysisOptions options;
    options.parallel = false;
    const auto a = SnapshotAnalysis::analyse(std::move(*heap), options);
    const uint32_t last = static_cast<uint32_t>(a->snapshot().node_count() - 1);

    std::vector<uint32_t> targets(in.ConsumeIntegralInRange<size_t>(1, 3));
    for (uint32_t& t : targets) t = in.ConsumeIntegralInRange<uint32_t>(0, last);
    const SubgraphOptions sub = fuzzed_options(in, *a);
    const Subgraph graph = extract_subgraph(a->index(), a->roots(), a->paths(), targets, sub);
    // Each retention path may keep its two ends and one elided box beyond
    // the cap; nothing else may grow past it.
    const size_t bound = sub.max_nodes + targets.size() * sub.max_paths * 6;
    if (graph.nodes.size() > bound) std::abort();
    draw(graph, in);
    return 0;
}

// Speed check for the graph export: extract a ~300-node subgraph around an
// object of a synthetic heap, then lay it out with dot and render PNG (the
// target is ≤ 1 s for layout + PNG), SVG and DOT.
//
//   bench_graphviz [heap-nodes=1000000] [max-nodes=300] [out.png]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "refscope/analysis/subgraph.h"
#include "refscope/graphviz/graph_render.h"
#include "test_support.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

uint32_t png_side(const std::string& png, size_t at) {
    if (png.size() < at + 4) return 0;
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(png[at + i]);
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace refscope;
    const size_t heap_nodes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
    const uint32_t max_nodes = argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 300;

    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    auto start = Clock::now();
    const Snapshot snapshot = testing::make_synthetic_heap(heap_nodes, 7);
    const analysis::GraphIndex index(snapshot);
    const analysis::RootClasses roots(index);
    const analysis::RetentionPaths paths(index, roots);
    std::printf("heap: %zu nodes, %zu edges, analysed in %.0f ms\n", snapshot.node_count(),
                snapshot.edge_count(), ms_since(start));

    // A reachable object a few hops from the roots with a busy neighbourhood:
    // the kind of object someone clicks on.
    uint32_t target = 0;
    uint32_t best_degree = 0;
    for (uint32_t n = 0; n < index.node_count() && n < 200'000; ++n) {
        if (!paths.reachable(n) || paths.distance(n) < 3) continue;
        const uint32_t degree = index.in_degree(n) + index.out_degree(n);
        if (degree > best_degree && degree < 64) best_degree = degree, target = n;
    }

    analysis::SubgraphOptions options;
    options.hops = 4;
    options.max_paths = 3;
    options.max_nodes = max_nodes;
    options.cluster_by = analysis::ClusterBy::Module;
    const std::vector<uint32_t> targets{target};
    start = Clock::now();
    const analysis::Subgraph g = analysis::extract_subgraph(index, roots, paths, targets, options);
    const double extract_ms = ms_since(start);
    size_t groups = 0;
    for (const auto& n : g.nodes) groups += n.is_group();
    std::printf("extract: %zu nodes (%zu groups), %zu edges, %zu clusters, %u paths in %.1f ms\n",
                g.nodes.size(), groups, g.edges.size(), g.clusters.size(), g.path_count,
                extract_ms);

    start = Clock::now();
    const std::string dot = graphviz::render_dot(g);
    std::printf("dot text (no layout): %zu bytes in %.1f ms\n", dot.size(), ms_since(start));
    if (argc > 3) std::ofstream(std::string(argv[3]) + ".dot", std::ios::binary) << dot;

    double png_ms = 0;
    std::string png;
    for (int round = 0; round < 3; ++round) {
        start = Clock::now();
        png = graphviz::render(g, graphviz::OutputFormat::Png);
        const double ms = ms_since(start);
        png_ms = round == 0 ? ms : std::min(png_ms, ms);
    }
    std::printf("layout + PNG: %zu bytes, %u x %u px, best of 3 %.0f ms %s\n", png.size(),
                png_side(png, 16), png_side(png, 20), png_ms,
                png_ms <= 1000 ? "(target <= 1000 ms: ok)" : "(target <= 1000 ms: MISSED)");
    {
        graphviz::RenderOptions full;
        full.max_png_pixels = 0;  // full 96 dpi, only cairo's side limit
        start = Clock::now();
        const std::string big = graphviz::render(g, graphviz::OutputFormat::Png, full);
        std::printf("layout + PNG at full 96 dpi: %u x %u px in %.0f ms\n", png_side(big, 16),
                    png_side(big, 20), ms_since(start));
    }
    start = Clock::now();
    const std::string pdf = graphviz::render(g, graphviz::OutputFormat::Pdf);
    std::printf("layout + PDF: %zu bytes in %.0f ms\n", pdf.size(), ms_since(start));

    start = Clock::now();
    const std::string svg = graphviz::render(g, graphviz::OutputFormat::Svg);
    std::printf("layout + SVG: %zu bytes in %.0f ms\n", svg.size(), ms_since(start));
    start = Clock::now();
    const graphviz::GraphLayout layout = graphviz::compute_layout(g);
    std::printf("layout positions: %zu nodes, %.0f x %.0f pt in %.0f ms\n", layout.nodes.size(),
                layout.width, layout.height, ms_since(start));

    if (argc > 3) {
        std::ofstream(argv[3], std::ios::binary) << png;
        std::printf("wrote %s and %s.dot\n", argv[3], argv[3]);
    }
    return 0;
}

// Speed sanity check for the analysis (not a test): builds a heap-shaped
// graph in memory — 10M objects, ~30M references: long chains, hub dicts,
// small cycles, random cross references, some weak — and times the index,
// the root classes and the retention BFS, then a path and a no-path query.
//
//   bench_analysis [NODES]      (default 10000000)
//
// Prints wall times and peak RSS (VmHWM). Numbers are recorded in the
// analysis report / docs; there is no pass or fail.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "bench_measure.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/grouping.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"

namespace {

using namespace refscope;
using namespace refscope::bench;



// Edges are emitted per source in increasing order, as the probe does, so the
// snapshot satisfies the grouped-by-source contract without sorting.
Snapshot make_heap(uint32_t nodes) {
    constexpr uint32_t kChain = 10'000;   // chain segments: linked lists, deep object graphs
    constexpr uint32_t kHubEvery = 1'000; // every 1000th object is a dict with 200 values
    constexpr uint32_t kHubFanout = 200;
    constexpr uint8_t kOwned = format::kEdgeOwned | format::kEdgeGcVisible;
    std::mt19937_64 random(42);
    Snapshot s;
    const char* type_names[] = {"dict", "list", "app.Node", "str", "tuple"};
    for (const char* name : type_names) s.types.push_back({s.strings.add(name), s.strings.add("app"), 0});

    s.node_address.reserve(nodes);
    s.node_type.reserve(nodes);
    s.node_size.reserve(nodes);
    s.node_refcount.reserve(nodes);
    s.node_flags.reserve(nodes);
    s.node_preview.reserve(nodes);
    for (uint32_t n = 0; n < nodes; ++n) {
        const uint32_t type = n % kHubEvery == 0 ? 0 : static_cast<uint32_t>(1 + n % 4);
        s.add_node(0x7f0000000000ull + 64ull * n, type, 32 + (n % 7) * 8, 0, format::kNodeGcTracked, 0);
    }
    const size_t expected_edges = size_t{nodes} * 3 + nodes / 10;
    s.edge_source.reserve(expected_edges);
    s.edge_target.reserve(expected_edges);
    s.edge_kind.reserve(expected_edges);
    s.edge_flags.reserve(expected_edges);
    s.edge_label.reserve(expected_edges);
    for (uint32_t n = 0; n < nodes; ++n) {
        if (n % kChain != kChain - 1 && n + 1 < nodes) {
            s.add_edge(n, n + 1, format::EdgeKind::Attribute, kOwned, 0);
        }
        if (n % kHubEvery == 0) {
            for (uint32_t k = 0; k < kHubFanout; ++k) {
                s.add_edge(n, static_cast<uint32_t>(random() % nodes), format::EdgeKind::DictValue, kOwned, 0);
            }
        }
        if (n % 7 == 0 && n >= 2) s.add_edge(n, n - 2, format::EdgeKind::Reference, kOwned, 0);
        const int extra = n % 3 == 0 ? 1 : 2;
        for (int k = 0; k < extra; ++k) {
            const bool weak = random() % 20 == 0;
            s.add_edge(n, static_cast<uint32_t>(random() % nodes),
                       weak ? format::EdgeKind::Weak : format::EdgeKind::Index,
                       weak ? uint8_t{0} : kOwned, static_cast<uint32_t>(k));
        }
    }
    // Consistent refcounts: owned in-edges, plus a surplus for the roots and
    // for one object in 10,000 (the "leaks").
    for (size_t e = 0; e < s.edge_count(); ++e) {
        if (s.edge_flags[e] & format::kEdgeOwned) ++s.node_refcount[s.edge_target[e]];
    }
    const uint32_t sys_modules = s.strings.add("sys.modules");
    for (uint32_t n = 0; n < nodes; n += 100'000) {
        s.roots.push_back({n, format::RootKind::Interpreter, kNoNode, sys_modules, 1});
        ++s.node_refcount[n];
    }
    for (uint32_t n = 5'000; n < nodes; n += 1'000'000) {
        s.roots.push_back({n, format::RootKind::ThreadStack, 0, 0, 1});
        ++s.node_refcount[n];
    }
    for (uint32_t n = 1234; n < nodes; n += 10'000) ++s.node_refcount[n];
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const uint32_t nodes = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 10'000'000;
    auto start = Clock::now();
    const Snapshot s = make_heap(nodes);
    std::printf("generate      %8.3f s  %zu nodes, %zu edges, %zu roots (peak RSS %ld MiB)\n",
                seconds_since(start), s.node_count(), s.edge_count(), s.roots.size(), peak_rss_mib());

    start = Clock::now();
    const analysis::GraphIndex index(s);
    std::printf("index         %8.3f s\n", seconds_since(start));

    start = Clock::now();
    const analysis::RootClasses roots(index);
    std::printf("root classes  %8.3f s  %zu objects with unexplained surplus\n", seconds_since(start),
                roots.unexplained_nodes().size());

    start = Clock::now();
    const analysis::RetentionPaths paths(index, roots);
    std::printf("retention BFS %8.3f s  %llu reachable\n", seconds_since(start),
                static_cast<unsigned long long>(paths.reachable_count()));

    start = Clock::now();
    uint32_t farthest = 0;
    for (uint32_t n = 0; n < index.node_count(); ++n) {
        if (paths.reachable(n) && paths.distance(n) > paths.distance(farthest)) farthest = n;
    }
    const auto path = paths.path_to(farthest);
    std::printf("longest path  %8.3f s  %zu hops (scan + path)\n", seconds_since(start),
                path ? path->edges.size() : size_t{0});

    start = Clock::now();
    uint32_t unreached = kNoNode;
    for (uint32_t n = 0; n < index.node_count() && unreached == kNoNode; ++n) {
        if (!paths.reachable(n) && roots.unexplained(n) == 0) unreached = n;
    }
    if (unreached != kNoNode) {
        const auto why = paths.explain_unreachable(unreached);
        std::printf("no-path query %8.3f s  %s\n", seconds_since(start), why.text.c_str());
    } else {
        std::printf("no-path query: every object is reachable or leaked\n");
    }

    start = Clock::now();
    const auto groups = analysis::group_objects(s, analysis::GroupBy::Type);
    std::printf("group by type %8.3f s  %zu groups\n", seconds_since(start), groups.size());
    std::printf("peak RSS      %ld MiB\n", peak_rss_mib());
    return 0;
}

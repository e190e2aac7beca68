// Speed and memory check for the dominator tree and the cycle finder (not a
// test): a heap-shaped graph — 10M objects, ~30M references: chains, hub
// dicts with many values, small cycles, random cross references, some weak —
// plus a detached "leaked" region (holders with unexplained surplus, wrappers
// with self-references the GC cannot see, plain garbage cycles). It is
// written to a snapshot file, then the pipeline the CLI runs is timed from
// the load on: read, index, root classes, retention BFS, dominator tree,
// cycles.
//
//   bench_dominators [NODES] [--in-memory] [--keep FILE]
//
// NODES defaults to 10000000. --in-memory skips the file round trip (the
// load is then not part of the pipeline); --keep writes the snapshot to FILE
// and leaves it there (default: a temporary file, removed at the end).
// Prints wall times and peak RSS (VmHWM). No pass or fail.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <unistd.h>

#include "bench_measure.h"
#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/edge_labels.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/format/snapshot_io.h"

namespace {

using namespace refscope;
using namespace refscope::bench;



// Edges are emitted per source in increasing order, as the probe does.
Snapshot make_heap(uint32_t nodes) {
    constexpr uint32_t kChain = 10'000;    // chain segments: linked lists, deep object graphs
    constexpr uint32_t kHubEvery = 1'000;  // every 1000th object is a dict with 200 values
    constexpr uint32_t kHubFanout = 200;
    constexpr uint8_t kVisible = format::kEdgeOwned | format::kEdgeGcVisible;
    const uint32_t leaked_first = nodes - nodes / 100;  // the last 1% is detached
    std::mt19937_64 random(7);
    Snapshot s;
    for (const char* name : {"dict", "list", "app.Node", "str", "tuple", "fixture.Wrapper"}) {
        s.types.push_back({s.strings.add(name), s.strings.add("app"), 0});
    }
    const uint32_t value = s.strings.add("value");
    const uint32_t next = s.strings.add("next");
    const uint32_t previous = s.strings.add("previous");

    s.node_type.reserve(nodes);
    s.node_address.reserve(nodes);
    s.node_size.reserve(nodes);
    s.node_refcount.reserve(nodes);
    s.node_flags.reserve(nodes);
    s.node_preview.reserve(nodes);
    for (uint32_t n = 0; n < nodes; ++n) {
        uint32_t type = n % kHubEvery == 0 ? 0 : 1 + n % 4;
        if (n >= leaked_first && n % 50 == 0) type = 5;
        s.add_node(0x7f0000000000ull + 64ull * n, type, 32 + (n % 7) * 8, 0, format::kNodeGcTracked, 0);
    }
    const size_t expected_edges = size_t{nodes} * 3 + nodes / 10;
    s.edge_source.reserve(expected_edges);
    s.edge_target.reserve(expected_edges);
    s.edge_kind.reserve(expected_edges);
    s.edge_flags.reserve(expected_edges);
    s.edge_label.reserve(expected_edges);
    for (uint32_t n = 0; n < nodes; ++n) {
        const bool leaked = n >= leaked_first;
        // A wrapper type without tp_traverse: none of its references is
        // visible to the GC.
        const bool wrapper = leaked && n % 50 == 0;
        const uint8_t owned = wrapper ? format::kEdgeOwned : kVisible;
        if (n % kChain != kChain - 1 && n + 1 < nodes && n + 1 != leaked_first) {
            if (wrapper) {
                s.add_edge(n, n + 1, format::EdgeKind::Slot, owned, next);
            } else {
                s.add_edge(n, n + 1, format::EdgeKind::Attribute, owned, 0);
            }
        }
        if (n % kHubEvery == 0 && !leaked) {
            for (uint32_t k = 0; k < kHubFanout; ++k) {
                s.add_edge(n, static_cast<uint32_t>(random() % leaked_first),
                           format::EdgeKind::DictValue, kVisible, 0);
            }
        }
        // Small cycles along the chains: n-2 → n-1 → n → n-2.
        if (n % 7 == 0 && n >= 2) {
            if (wrapper) {
                s.add_edge(n, n - 2, format::EdgeKind::Slot, owned, previous);
            } else {
                s.add_edge(n, n - 2, format::EdgeKind::Reference, owned, 0);
            }
        }
        if (leaked) {
            if (wrapper) s.add_edge(n, n, format::EdgeKind::Slot, owned, value);  // w.value = w
            continue;
        }
        const int extra = n % 3 == 0 ? 1 : 2;
        for (int k = 0; k < extra; ++k) {
            const bool weak = random() % 20 == 0;
            s.add_edge(n, static_cast<uint32_t>(random() % leaked_first),
                       weak ? format::EdgeKind::Weak : format::EdgeKind::Index,
                       weak ? uint8_t{0} : kVisible, weak ? 0u : static_cast<uint32_t>(k));
        }
    }
    for (size_t e = 0; e < s.edge_count(); ++e) {
        if (s.edge_flags[e] & format::kEdgeOwned) ++s.node_refcount[s.edge_target[e]];
    }
    const uint32_t sys_modules = s.strings.add("sys.modules");
    s.threads.push_back({1, s.strings.add("MainThread"), true});
    for (uint32_t n = 0; n < leaked_first; n += 100'000) {
        s.roots.push_back({n, format::RootKind::Interpreter, kNoNode, sys_modules, 1});
        ++s.node_refcount[n];
    }
    for (uint32_t n = 5'000; n < leaked_first; n += 1'000'000) {
        s.roots.push_back({n, format::RootKind::ThreadStack, 0, 0, 1});
        ++s.node_refcount[n];
    }
    // Unexplained surplus: one object in 10,000, and in the leaked region
    // one chain head in 3 (the others are plain garbage).
    for (uint32_t n = 1234; n < nodes; n += 10'000) ++s.node_refcount[n];
    for (uint32_t n = leaked_first; n < nodes; n += 3 * kChain) ++s.node_refcount[n];
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    uint32_t nodes = 10'000'000;
    bool in_memory = false;
    std::string keep;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--in-memory") == 0) {
            in_memory = true;
        } else if (std::strcmp(argv[i], "--keep") == 0 && i + 1 < argc) {
            keep = argv[++i];
        } else {
            nodes = static_cast<uint32_t>(std::strtoul(argv[i], nullptr, 10));
        }
    }

    auto start = Clock::now();
    std::optional<Snapshot> generated = make_heap(nodes);
    std::printf("generate      %8.3f s  %zu nodes, %zu edges, %zu roots\n", seconds_since(start),
                generated->node_count(), generated->edge_count(), generated->roots.size());
    const std::string path =
        keep.empty() ? "/tmp/bench_dominators." + std::to_string(getpid()) + ".rscope" : keep;
    if (!in_memory) {
        start = Clock::now();
        format::write_snapshot_file(*generated, path);
        std::printf("write file    %8.3f s  (not part of the pipeline)\n", seconds_since(start));
        generated.reset();
    }
    std::printf("peak RSS so far %ld MiB\n", peak_rss_mib());

    const auto pipeline = Clock::now();
    // Wall time depends on what else the (shared) machine runs; CPU time
    // much less so: both are printed.
    const std::clock_t pipeline_cpu = std::clock();
    start = pipeline;
    const Snapshot s = in_memory ? std::move(*generated) : format::read_snapshot_file(path);
    if (!in_memory) std::printf("load          %8.3f s\n", seconds_since(start));
    if (!in_memory && keep.empty()) std::remove(path.c_str());

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
    const analysis::DominatorTree tree(index, roots);
    std::printf("dominators    %8.3f s  %u reachable (with unexplained holders), %llu bytes, "
                "unexplained holders retain %llu bytes\n",
                seconds_since(start), tree.reachable_count(),
                static_cast<unsigned long long>(tree.retained_size(analysis::kSuperRoot)),
                static_cast<unsigned long long>(tree.retained_size(analysis::kUnexplainedRoot)));
    start = Clock::now();
    const analysis::Cycles cycles(index, roots, paths);
    std::printf("cycles        %8.3f s  %u cycles", seconds_since(start), cycles.count());
    for (int f = 0; f < analysis::kCycleFateCount; ++f) {
        const auto fate = static_cast<analysis::CycleFate>(f);
        std::printf(", %llu %s", static_cast<unsigned long long>(cycles.totals(fate).cycles),
                    std::string(analysis::cycle_fate_name(fate)).c_str());
    }
    std::printf("\n");
    std::printf("pipeline      %8.3f s  (%s; %.3f s CPU)\n", seconds_since(pipeline),
                in_memory ? "index to cycles" : "load to cycles",
                double(std::clock() - pipeline_cpu) / CLOCKS_PER_SEC);

    start = Clock::now();
    const auto top = tree.top_retained(10);
    const auto ranked = cycles.ranked(5);
    std::printf("top-10 + rank %8.3f s\n", seconds_since(start));
    for (uint32_t n : top) {
        std::printf("  retains %12llu bytes %9u objects  %s\n",
                    static_cast<unsigned long long>(tree.retained_size(n)), tree.retained_count(n),
                    analysis::describe_node(s, n).c_str());
    }
    for (uint32_t c : ranked) {
        std::printf("  cycle #%u: %u objects, %llu bytes: %s\n", c, cycles.info(c).members,
                    static_cast<unsigned long long>(cycles.info(c).bytes), cycles.explain(c).c_str());
    }
    std::printf("peak RSS      %ld MiB\n", peak_rss_mib());
    return 0;
}

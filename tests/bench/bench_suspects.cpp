// Speed check for the leak-suspect ranking (not a test): a heap-shaped graph
// of NODES objects (~3 references each) with interpreter noise (strs with
// unexplained surplus), a detached leaked region (holders with surplus,
// wrappers whose self-reference the GC cannot see) — then the analyses the
// suspects consume are built and timed, and LeakSuspects is timed alone
// without a diff, with a diff and with a survivor report (both synthesized
// as columns: the diff itself is bench_diff's business).
//
//   bench_suspects [NODES]        NODES defaults to 10000000
//
// Prints wall times, the top rows and peak RSS (VmHWM). No pass or fail.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "bench_measure.h"
#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/leak_suspects.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/analysis/snapshot_diff.h"

namespace {

using namespace refscope;
using namespace refscope::analysis;
using namespace refscope::bench;



// Types: 0 dict, 1 list, 2 app.Node, 3 str (builtins), 4 tuple,
// 5 fixture.Wrapper, 6 app.Leaky. In the leaked last 1%: every 10th object
// an app.Leaky with one reference nobody explains, every 50th a wrapper
// holding itself without tp_traverse, chain segments headed by an app.Node
// with surplus; the rest hangs off those.
Snapshot make_heap(uint32_t nodes) {
    constexpr uint8_t kVisible = format::kEdgeOwned | format::kEdgeGcVisible;
    const uint32_t leaked_first = nodes - nodes / 100;
    std::mt19937_64 random(11);
    Snapshot s;
    const char* names[] = {"dict", "list", "app.Node", "str", "tuple", "fixture.Wrapper", "app.Leaky"};
    const char* modules[] = {"builtins", "builtins", "app", "builtins", "builtins", "fixture", "app"};
    for (int t = 0; t < 7; ++t) s.types.push_back({s.strings.add(names[t]), s.strings.add(modules[t]), 0});
    const uint32_t value = s.strings.add("value");
    for (uint32_t n = 0; n < nodes; ++n) {
        uint32_t type = n % 1000 == 0 ? 0 : 1 + n % 4;
        // The surplus each object should end up with; owned in-references
        // are added below.
        int64_t refcount = 0;
        if (n >= leaked_first) {
            type = n % 50 == 0 ? 5 : (n % 10 == 0 ? 6 : 2);
            refcount = type == 6 || (type == 2 && n % 10'000 == leaked_first % 10'000) ? 1 : 0;
        } else if (type == 3 && n % 97 == 0) {
            refcount = 1 + static_cast<int64_t>(n % 6);  // interned: C statics
        }
        s.add_node(0x7f0000000000ull + 64ull * n, type, 32 + (n % 7) * 8, refcount,
                   format::kNodeGcTracked, 0);
    }
    // Refcounts are fixed up below to owned in-degree + intended surplus.
    std::vector<uint32_t> owned_in(nodes, 0);
    for (uint32_t n = 0; n < nodes; ++n) {
        const bool leaked = n >= leaked_first;
        if (n + 1 < nodes && n % 10'000 != 9'999 && n + 1 != leaked_first) {
            const bool wrapper = leaked && n % 50 == 0;
            s.add_edge(n, n + 1, format::EdgeKind::Attribute, wrapper ? format::kEdgeOwned : kVisible, 0);
            ++owned_in[n + 1];
        }
        if (leaked) {
            if (n % 50 == 0) {
                s.add_edge(n, n, format::EdgeKind::Slot, format::kEdgeOwned, value);
                ++owned_in[n];
            }
            continue;
        }
        const int extra = n % 1000 == 0 ? 200 : 2;
        for (int k = 0; k < extra; ++k) {
            const uint32_t target = static_cast<uint32_t>(random() % leaked_first);
            s.add_edge(n, target, format::EdgeKind::Reference, kVisible, 0);
            ++owned_in[target];
        }
    }
    for (uint32_t n = 0; n < nodes; ++n) s.node_refcount[n] += owned_in[n];
    // Roots: the chain heads of the live part, as interpreter roots.
    for (uint32_t n = 0; n < leaked_first; n += 10'000) {
        s.roots.push_back({n, format::RootKind::Interpreter, kNoNode, 0, 0});
    }
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const uint32_t nodes = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 10'000'000;
    auto start = Clock::now();
    const Snapshot s = make_heap(nodes);
    std::printf("heap: %u nodes, %zu edges, built in %.2f s\n", nodes, s.edge_count(), seconds_since(start));

    start = Clock::now();
    const GraphIndex index(s);
    const RootClasses roots(index);
    const RetentionPaths paths(index, roots);
    const double t_paths = seconds_since(start);
    start = Clock::now();
    const DominatorTree dominators(index, roots);
    const double t_dom = seconds_since(start);
    start = Clock::now();
    const Cycles cycles(index, roots, paths);
    const double t_cycles = seconds_since(start);
    std::printf("inputs: index+roots+paths %.2f s, dominators %.2f s, cycles %.2f s; "
                "%zu objects with unexplained surplus\n",
                t_paths, t_dom, t_cycles, roots.unexplained_nodes().size());

    SuspectInputs inputs{&index, &roots, &paths, &dominators, &cycles, nullptr, nullptr};
    start = Clock::now();
    const LeakSuspects plain(inputs);
    std::printf("suspects (one snapshot): %.3f s, %zu rows (%zu high)\n", seconds_since(start),
                plain.groups().size(), plain.high_confidence_count());
    for (size_t i = 0; i < plain.groups().size() && i < 6; ++i) {
        const SuspectGroup& g = plain.groups()[i];
        std::printf("  %-16s %-4s score %7.2f  %s\n", g.type.c_str(),
                    std::string(suspect_confidence_name(g.confidence)).c_str(), g.score, g.reason.c_str());
    }

    // A diff as the suspects see it: every 40th object new, the type deltas to match.
    SnapshotDiff diff;
    diff.is_new.assign(nodes, 0);
    std::vector<TypeDelta> deltas(s.types.size());
    for (uint32_t t = 0; t < s.types.size(); ++t) deltas[t].name = std::string(s.strings.view(s.types[t].name));
    for (uint32_t n = 0; n < nodes; ++n) {
        TypeDelta& d = deltas[s.node_type[n]];
        ++d.objects_b;
        d.bytes_b += s.node_size[n];
        if (n % 40 == 0) {
            diff.is_new[n] = 1;
            ++d.new_objects;
            d.new_bytes += s.node_size[n];
        } else {
            ++d.objects_a;
            d.bytes_a += s.node_size[n];
        }
    }
    diff.types = deltas;
    inputs.diff = &diff;
    start = Clock::now();
    const LeakSuspects with_diff(inputs);
    std::printf("suspects (with a diff): %.3f s, %zu rows\n", seconds_since(start), with_diff.groups().size());

    SurvivorReport report;
    report.is_survivor.assign(nodes, 0);
    for (uint32_t n = 0; n < nodes; n += 60) report.is_survivor[n] = 1;
    inputs.survivors = &report;
    start = Clock::now();
    const LeakSuspects with_all(inputs);
    std::printf("suspects (diff + survivors): %.3f s, %zu rows\n", seconds_since(start),
                with_all.groups().size());
    std::printf("peak RSS %ld MiB\n", peak_rss_mib());
    return 0;
}

// Speed and memory check for the whole analysis pipeline (not a test): a
// heap-shaped graph — 10M objects, ~30M references: chains, hub dicts with
// many values, small cycles, random cross references, some weak — plus a
// detached "leaked" region (holders with unexplained surplus, wrappers with
// self-references the GC cannot see, plain garbage cycles). It is written to
// a snapshot file, then SnapshotAnalysis::load — the pipeline the app's
// loader and the CLI run — is timed from the file on: read, index, root
// classes, retention BFS, dominator tree, cycles (and leak suspects).
//
//   bench_dominators [NODES] [--file FILE] [--keep FILE] [--runs K]
//                    [--config NAME]... [--steps]
//
// NODES defaults to 10000000. --file analyses an existing snapshot instead of
// generating one; --keep writes the generated snapshot to FILE and leaves it
// there (default: a temporary file, removed at the end). Each configuration
// runs K times (default 1):
//
//   serial             dominators and cycles one after the other, no suspects
//   parallel           dominators ∥ cycles, no suspects
//   serial+suspects    as serial, then leak suspects
//   parallel+suspects  as parallel, then leak suspects    (what the app runs; issue #17's full pipeline)
//
// (default: all four). For each run: seconds per stage (stage_seconds; with
// `parallel` dominators and cycles overlap), the total wall time, process CPU
// time, peak RSS (VmHWM, reset before each run where the kernel allows, so
// that runs after the first are not charged for the generator) and a digest
// of the results (BFS distances and parents, immediate dominators, retained
// sizes, cycle ids and fates, suspects): every run must print the same digest,
// and an optimisation must not change it. --steps first times the stages one
// by one, with their CPU time, the resident size after each and its peak
// during each (what the stage's results and its scratch cost): the in-edges (built
// on first use, as SnapshotAnalysis does before the suspects) and the suspects
// last; with --runs 0
// nothing else runs (the lowest-memory way to measure a very large heap).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench_measure.h"
#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/analysis/snapshot_analysis.h"
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

// 64-bit FNV-1a over the results, so that runs (and builds) can be compared.
class Digest {
public:
    void add(uint64_t value) {
        for (int i = 0; i < 8; ++i) {
            hash_ ^= (value >> (8 * i)) & 0xFF;
            hash_ *= 0x100000001b3ull;
        }
    }
    uint64_t value() const { return hash_; }

private:
    uint64_t hash_ = 0xcbf29ce484222325ull;
};

uint64_t digest(const analysis::SnapshotAnalysis& a) {
    Digest d;
    const uint32_t nodes = a.index().node_count();
    for (uint32_t n = 0; n < nodes; ++n) {
        d.add(a.roots().owned_in(n));
        d.add(a.paths().distance(n));
        d.add(a.paths().parent_edge(n));
    }
    if (const analysis::DominatorTree* tree = a.dominators()) {
        for (uint32_t n = 0; n < nodes; ++n) {
            d.add(tree->idom(n));
            d.add(tree->retained_size(n));
            d.add(tree->retained_count(n));
        }
        d.add(tree->retained_size(analysis::kSuperRoot));
        d.add(tree->retained_size(analysis::kUnexplainedRoot));
        for (uint32_t child : tree->children(analysis::kSuperRoot)) d.add(child);
    }
    if (const analysis::Cycles* cycles = a.cycles()) {
        for (uint32_t c : cycles->cycle_ids()) d.add(c);
        for (uint32_t c = 0; c < cycles->count(); ++c) {
            const analysis::CycleInfo& info = cycles->info(c);
            d.add(info.bytes);
            d.add(static_cast<uint64_t>(info.fate));
            d.add(info.culprit_node);
            d.add(info.culprit_edge);
        }
    }
    if (const analysis::LeakSuspects* suspects = a.suspects()) {
        for (const analysis::SuspectGroup& g : suspects->groups()) {
            for (char ch : g.type) d.add(static_cast<uint8_t>(ch));
            d.add(g.kinds);
            d.add(g.objects);
            d.add(g.retained_bytes);
            d.add(g.representative);
        }
    }
    return d.value();
}

struct Config {
    const char* name;
    bool parallel;
    bool suspects;
};
constexpr Config kConfigs[] = {
    {"serial", false, false},
    {"parallel", true, false},
    {"serial+suspects", false, true},
    {"parallel+suspects", true, true},
};

struct RunResult {
    double wall = 0;
    double cpu = 0;
    long peak_rss = 0;
};

RunResult run_pipeline(const std::string& path, const Config& config, bool describe) {
    using analysis::AnalysisStage;
    analysis::AnalysisOptions options;
    options.parallel = config.parallel;
    options.suspects = config.suspects;
    const bool peak_reset = reset_peak_rss();
    const auto start = Clock::now();
    const double cpu_start = process_cpu_seconds();
    auto a = analysis::SnapshotAnalysis::load(path, options);
    RunResult r;
    r.wall = seconds_since(start);
    r.cpu = process_cpu_seconds() - cpu_start;
    r.peak_rss = peak_rss_mib();

    std::printf("%-18s", config.name);
    for (int st = 0; st < static_cast<int>(AnalysisStage::Done); ++st) {
        const auto stage = static_cast<AnalysisStage>(st);
        if (stage == AnalysisStage::Suspects && !config.suspects) continue;
        static const char* const kShort[] = {"read", "index", "roots", "bfs", "dom", "cyc", "susp"};
        std::printf(" %s %.3f", kShort[st], a->stage_seconds(stage));
    }
    std::printf(" | total %.3f s, CPU %.3f s, peak RSS %ld MiB%s, digest %016llx\n", r.wall, r.cpu,
                r.peak_rss, peak_reset ? "" : " (not reset)",
                static_cast<unsigned long long>(digest(*a)));
    if (!describe) return r;

    const Snapshot& s = a->snapshot();
    std::printf("  %zu nodes, %zu edges; %zu objects with unexplained surplus, %llu reachable\n",
                s.node_count(), s.edge_count(), a->roots().unexplained_nodes().size(),
                static_cast<unsigned long long>(a->paths().reachable_count()));
    const analysis::DominatorTree& tree = *a->dominators();
    const analysis::Cycles& cycles = *a->cycles();
    std::printf("  dominators: %u reachable (with unexplained holders), %llu bytes, unexplained "
                "holders retain %llu bytes\n",
                tree.reachable_count(),
                static_cast<unsigned long long>(tree.retained_size(analysis::kSuperRoot)),
                static_cast<unsigned long long>(tree.retained_size(analysis::kUnexplainedRoot)));
    std::printf("  %u cycles", cycles.count());
    for (int f = 0; f < analysis::kCycleFateCount; ++f) {
        const auto fate = static_cast<analysis::CycleFate>(f);
        std::printf(", %llu %s", static_cast<unsigned long long>(cycles.totals(fate).cycles),
                    std::string(analysis::cycle_fate_name(fate)).c_str());
    }
    std::printf("\n");
    for (uint32_t n : tree.top_retained(5)) {
        std::printf("  retains %12llu bytes %9u objects  %s\n",
                    static_cast<unsigned long long>(tree.retained_size(n)), tree.retained_count(n),
                    analysis::describe_node(s, n).c_str());
    }
    for (uint32_t c : cycles.ranked(3)) {
        std::printf("  cycle #%u: %u objects, %llu bytes: %s\n", c, cycles.info(c).members,
                    static_cast<unsigned long long>(cycles.info(c).bytes), cycles.explain(c).c_str());
    }
    if (const analysis::LeakSuspects* suspects = a->suspects()) {
        std::printf("  %zu suspect rows (%zu high confidence)\n", suspects->groups().size(),
                    suspects->high_confidence_count());
    }
    return r;
}

// The stages one by one, each with its wall and process CPU time: CPU time
// hardly depends on what else the machine runs, so it is the number to
// compare builds by on a busy machine.
void time_steps(const std::string& path) {
    reset_peak_rss();
    auto start = Clock::now();
    double cpu = process_cpu_seconds();
    const auto step = [&](const char* name) {
        const double now_cpu = process_cpu_seconds();
        std::printf("  %-14s %6.3f s wall %6.3f s CPU  RSS after %6ld MiB, peak during %6ld MiB\n",
                    name, seconds_since(start), now_cpu - cpu, current_rss_mib(), peak_rss_mib());
        std::fflush(stdout);
        reset_peak_rss();
        start = Clock::now();
        cpu = process_cpu_seconds();
    };
    Snapshot s = format::read_snapshot_file(path);
    step("read");
    // As SnapshotAnalysis does (a no-op for a file: the reader gives the offsets).
    s.drop_edge_sources();
    const analysis::GraphIndex index(s);
    step("index");
    const analysis::RootClasses roots(index);
    step("root classes");
    const analysis::RetentionPaths paths(index, roots);
    step("retention BFS");
    const analysis::DominatorTree tree(index, roots);
    step("dominators");
    const analysis::Cycles cycles(index, roots, paths);
    step("cycles");
    index.build_in_edges();  // as SnapshotAnalysis does before the suspects
    step("in-edges");
    analysis::SuspectInputs inputs;
    inputs.index = &index;
    inputs.roots = &roots;
    inputs.paths = &paths;
    inputs.dominators = &tree;
    inputs.cycles = &cycles;
    const analysis::LeakSuspects suspects(inputs, analysis::SuspectOptions{});
    step("suspects");
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    uint32_t nodes = 10'000'000;
    std::string file;
    std::string keep;
    int runs = 1;
    bool steps = false;
    std::vector<Config> configs;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--file") == 0 && i + 1 < argc) {
            file = argv[++i];
        } else if (std::strcmp(argv[i], "--keep") == 0 && i + 1 < argc) {
            keep = argv[++i];
        } else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = std::max(0, std::atoi(argv[++i]));
        } else if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            const char* name = argv[++i];
            const auto it = std::find_if(std::begin(kConfigs), std::end(kConfigs),
                                         [&](const Config& c) { return std::strcmp(c.name, name) == 0; });
            if (it == std::end(kConfigs)) {
                std::fprintf(stderr, "unknown configuration %s\n", name);
                return 2;
            }
            configs.push_back(*it);
        } else if (std::strcmp(argv[i], "--steps") == 0) {
            steps = true;
        } else if (argv[i][0] >= '0' && argv[i][0] <= '9') {
            nodes = static_cast<uint32_t>(std::strtoul(argv[i], nullptr, 10));
        } else {
            std::fprintf(stderr,
                         "usage: bench_dominators [NODES] [--file FILE] [--keep FILE] [--runs K] "
                         "[--config serial|parallel|serial+suspects|parallel+suspects]... [--steps]\n");
            return 2;
        }
    }
    if (configs.empty()) configs.assign(std::begin(kConfigs), std::end(kConfigs));

    std::string path = file;
    if (path.empty()) {
        auto start = Clock::now();
        std::optional<Snapshot> generated = make_heap(nodes);
        std::printf("generate %.3f s: %zu nodes, %zu edges, %zu roots\n", seconds_since(start),
                    generated->node_count(), generated->edge_count(), generated->roots.size());
        path = keep.empty() ? "/tmp/bench_dominators." + std::to_string(getpid()) + ".rscope" : keep;
        start = Clock::now();
        format::write_snapshot_file(*generated, path);
        std::printf("write file %.3f s (not part of the pipeline)\n", seconds_since(start));
    }
    if (steps) {
        std::printf("steps, load average %s", load_average().c_str());
        time_steps(path);
    }

    std::printf("load average before: %s", load_average().c_str());
    bool first = true;
    for (const Config& config : configs) {
        std::vector<double> walls;
        std::vector<double> cpus;
        long peak = 0;
        for (int r = 0; r < runs; ++r) {
            const RunResult result = run_pipeline(path, config, first);
            first = false;
            walls.push_back(result.wall);
            cpus.push_back(result.cpu);
            peak = std::max(peak, result.peak_rss);
        }
        if (runs > 1) {
            std::printf("%-18s best %.3f s, median %.3f s (CPU best %.3f s, median %.3f s), "
                        "peak RSS %ld MiB over %d runs\n",
                        config.name, *std::min_element(walls.begin(), walls.end()), median(walls),
                        *std::min_element(cpus.begin(), cpus.end()), median(cpus), peak, runs);
        }
    }
    std::printf("load average after: %s", load_average().c_str());
    if (file.empty() && keep.empty()) std::remove(path.c_str());
    return 0;
}

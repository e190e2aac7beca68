// Export speed: builds a synthetic Python-like heap in memory (default 1.1M
// objects / 3M references: a third str with previews, dicts with str keys,
// lists, instances with attributes, some roots and unexplained surplus) and
// times write_heapsnapshot_file.
//
// usage: bench_heapsnapshot [NODES [EDGES [OUT]]]   (OUT default /tmp/refscope-bench.heapsnapshot)
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/export/heapsnapshot.h"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
// CPU time of this process: the machine is shared, so wall time alone says
// more about the neighbours than about the export.
double cpu_ms() { return 1000.0 * static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

refscope::Snapshot make_heap(uint32_t nodes, uint64_t edges) {
    using refscope::format::EdgeKind;
    refscope::Snapshot s;
    std::mt19937_64 random(42);
    const char* type_names[] = {"str", "dict", "list", "app.Item", "int", "function", "tuple"};
    for (const char* name : type_names) {
        s.types.push_back({s.strings.add(name), s.strings.add("builtins"), 0});
    }
    // A pool of distinct str previews (attribute names, dict keys) and per-str text.
    for (uint32_t n = 0; n < nodes; ++n) {
        const uint32_t type = n % 3 == 0 ? 0 : static_cast<uint32_t>(1 + random() % 6);
        uint32_t preview = 0;
        if (type == 0) preview = s.strings.add("name_" + std::to_string(n % 50000));
        if (type == 4) preview = s.strings.add(std::to_string(n));
        if (type == 5) preview = s.strings.add("app.func_" + std::to_string(n % 1000));
        s.add_node(0x7f0000000000ull + 64ull * n, type, 32 + random() % 200, 0,
                   type == 0 || type == 4 ? 0 : refscope::format::kNodeGcTracked, preview);
    }
    const uint8_t owned = refscope::format::kEdgeOwned | refscope::format::kEdgeGcVisible;
    const double per_node = static_cast<double>(edges) / nodes;
    uint64_t made = 0;
    for (uint32_t n = 0; n < nodes && made < edges; ++n) {
        const uint64_t want = static_cast<uint64_t>((n + 1) * per_node) - made;
        const uint32_t type = s.node_type[n];
        for (uint64_t k = 0; k < want; ++k) {
            const auto target = static_cast<uint32_t>(random() % nodes);
            const auto key = static_cast<uint32_t>((random() % (nodes / 3)) * 3);  // a str node
            switch (type) {
                case 1:
                    s.add_edge(n, target, k % 2 ? EdgeKind::DictValue : EdgeKind::DictKey,
                               k % 2 ? owned : refscope::format::kEdgeOwned, k % 2 ? key : 0);
                    break;
                case 2:
                case 6: s.add_edge(n, target, EdgeKind::Index, owned, static_cast<uint32_t>(k)); break;
                default: s.add_edge(n, target, EdgeKind::Attribute, owned, key); break;
            }
            ++made;
        }
    }
    for (uint32_t n = 0; n < nodes; n += 997) {
        s.roots.push_back({n, refscope::format::RootKind::Interpreter, 0, s.strings.add("global"), 1});
    }
    // Refcounts: owned in-edges, plus the roots, plus surplus on every 5000th.
    for (uint64_t e = 0; e < s.edge_count(); ++e) {
        if (s.edge_flags[e] & refscope::format::kEdgeOwned) ++s.node_refcount[s.edge_target[e]];
    }
    for (const auto& r : s.roots) ++s.node_refcount[r.node];
    for (uint32_t n = 1; n < nodes; n += 5000) s.node_refcount[n] += 2;
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const uint32_t nodes = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 1'100'000;
    const uint64_t edges = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 3'000'000;
    const std::string out = argc > 3 ? argv[3] : "/tmp/refscope-bench.heapsnapshot";

    auto start = Clock::now();
    const refscope::Snapshot s = make_heap(nodes, edges);
    std::printf("built heap: %zu nodes, %zu edges, %zu strings in %.0f ms\n", s.node_count(),
                s.edge_count(), s.strings.size(), ms_since(start));

    start = Clock::now();
    const refscope::analysis::GraphIndex index(s);
    const refscope::analysis::RootClasses roots(index);
    std::printf("index + root classes: %.0f ms\n", ms_since(start));

    // Once to /dev/null: the export's own cost, without the disk.
    if (std::FILE* null = std::fopen("/dev/null", "wb")) {
        start = Clock::now();
        const double cpu_start = cpu_ms();
        refscope::exporting::write_heapsnapshot(index, roots, null);
        std::printf("export to /dev/null: %.0f ms wall, %.0f ms cpu\n", ms_since(start),
                    cpu_ms() - cpu_start);
        std::fclose(null);
    }

    start = Clock::now();
    const auto stats = refscope::exporting::write_heapsnapshot_file(index, roots, out);
    const double export_ms = ms_since(start);
    std::printf("export to file (fsync, rename): %.0f ms, %llu nodes, %llu edges, %llu strings, %.1f MB -> %s\n",
                export_ms, static_cast<unsigned long long>(stats.nodes),
                static_cast<unsigned long long>(stats.edges),
                static_cast<unsigned long long>(stats.strings), stats.bytes / 1e6, out.c_str());
    return 0;
}

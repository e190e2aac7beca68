// Speed check for the app's models on a heap-shaped snapshot built in memory
// (not a test: numbers go to docs/performance-app.md, "Desktop app: models").
//
//   bench_object_table [NODES]      (default 1100000, the reference heap's size)
//   bench_object_table FILE.rscope  (a snapshot file instead)
//
// Times, after the analysis pipeline: the summary model's setAnalysis (by
// type and by module) and a selection; the object table's setNodes of every
// object and sort() by each column in both orders; run_filter on typical
// queries. The heap: 40 types in 8 modules, a third of the objects strs with
// distinct text previews, ints, containers with "len N" previews, chains,
// hub dicts, small cycles and a few objects with unexplained surplus.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <random>
#include <string>

#include "models/filter_runner.h"
#include "models/object_table_model.h"
#include "models/type_summary_model.h"
#include "session/analysis_ptr.h"

namespace {

using namespace refscope;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// VmHWM (peak) or VmRSS (now) of this process, in MiB.
long rss_mib(const char* field = "VmHWM:") {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(field, 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10) / 1024;
    }
    return -1;
}

Snapshot make_heap(uint32_t nodes) {
    constexpr uint8_t kOwned = format::kEdgeOwned | format::kEdgeGcVisible;
    std::mt19937_64 random(7);
    Snapshot s;
    // Types 0-3 are str, int, dict, list; the rest are app classes.
    const char* builtin[] = {"str", "int", "dict", "list"};
    for (const char* name : builtin) s.types.push_back({s.strings.add(name), s.strings.add("builtins"), 0});
    for (int t = 0; t < 36; ++t) {
        const std::string module = "pkg" + std::to_string(t % 8);
        s.types.push_back({s.strings.add(module + ".Class" + std::to_string(t)), s.strings.add(module), 0});
    }
    const uint32_t type_count = static_cast<uint32_t>(s.types.size());
    for (uint32_t n = 0; n < nodes; ++n) {
        const uint64_t r = random();
        uint32_t type = 0;
        uint32_t preview = 0;
        switch (n % 6) {
            case 0:
            case 1: {  // str with its own text
                char text[40];
                std::snprintf(text, sizeof text, "key_%llx_%u", static_cast<unsigned long long>(r % 100000007), n);
                type = 0;
                preview = s.strings.add(text);
                break;
            }
            case 2: type = 1, preview = s.strings.add(std::to_string(r % 1000000)); break;
            case 3: type = 2 + static_cast<uint32_t>(r % 2), preview = s.strings.add("len " + std::to_string(r % 50)); break;
            default: type = 4 + static_cast<uint32_t>(r % (type_count - 4)); break;
        }
        s.add_node(0x7f0000000000ull + 64ull * n + (r % 4) * 16, type, 16 + (r >> 20) % 500, 0,
                   type == 0 || type == 1 ? 0 : format::kNodeGcTracked, preview);
    }
    for (uint32_t n = 0; n < nodes; ++n) {
        if (n % 1000 != 999 && n + 1 < nodes) s.add_edge(n, n + 1, format::EdgeKind::Attribute, kOwned, 0);
        if (n % 500 == 0) {
            for (int k = 0; k < 100; ++k) s.add_edge(n, static_cast<uint32_t>(random() % nodes), format::EdgeKind::DictValue, kOwned, 0);
        }
        if (n % 7 == 0 && n >= 3) s.add_edge(n, n - 3, format::EdgeKind::Reference, kOwned, 0);
        s.add_edge(n, static_cast<uint32_t>(random() % nodes), format::EdgeKind::Index, kOwned, 0);
    }
    for (size_t e = 0; e < s.edge_count(); ++e) ++s.node_refcount[s.edge_target[e]];
    for (uint32_t n = 0; n < nodes; n += 1000) {
        s.roots.push_back({n, format::RootKind::Interpreter, kNoNode, s.strings.add("sys.modules"), 1});
        ++s.node_refcount[n];
    }
    for (uint32_t n = 17; n < nodes; n += 9973) s.node_refcount[n] += 2;  // unexplained
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string argument = argc > 1 ? argv[1] : "1100000";
    const bool from_file = argument.find_first_not_of("0123456789") != std::string::npos;
    auto start = Clock::now();
    app::AnalysisPtr analysis;
    if (from_file) {
        analysis = app::AnalysisPtr(analysis::SnapshotAnalysis::load(argument));
        std::printf("%s: %zu nodes, %zu edges, %zu strings\n", argument.c_str(), analysis->snapshot().node_count(),
                    analysis->snapshot().edge_count(), analysis->snapshot().strings.size());
    } else {
        const auto nodes = static_cast<uint32_t>(std::strtoul(argument.c_str(), nullptr, 10));
        Snapshot snapshot = make_heap(nodes);
        std::printf("heap: %u nodes, %zu edges, %zu strings (built in %.0f ms)\n", nodes, snapshot.edge_count(),
                    snapshot.strings.size(), ms_since(start));
        start = Clock::now();
        analysis = app::AnalysisPtr(analysis::SnapshotAnalysis::analyse(std::move(snapshot)));
    }
    std::printf("analysis pipeline: %.0f ms, peak RSS %ld MiB, RSS now %ld MiB\n", ms_since(start), rss_mib(),
                rss_mib("VmRSS:"));

    app::TypeSummaryModel summary;
    start = Clock::now();
    summary.setAnalysis(analysis, analysis::GroupBy::Type);
    std::printf("summary setAnalysis by type: %.1f ms (%d rows)\n", ms_since(start), summary.rowCount());
    start = Clock::now();
    summary.setAnalysis(analysis, analysis::GroupBy::Module);
    std::printf("summary setAnalysis by module: %.1f ms (%d rows)\n", ms_since(start), summary.rowCount());
    summary.setAnalysis(analysis, analysis::GroupBy::Type);
    const app::FilterResult half = app::run_filter(*analysis, "size>40");
    start = Clock::now();
    summary.setSelection(half.nodes);
    std::printf("summary setSelection (%zu nodes): %.1f ms\n", half.nodes->size(), ms_since(start));
    start = Clock::now();
    const std::vector<uint32_t> of_row = summary.nodesOf(0);
    std::printf("summary nodesOf(largest row, %zu nodes): %.1f ms\n", of_row.size(), ms_since(start));

    app::ObjectTableModel table;
    table.setAnalysis(analysis);
    std::vector<uint32_t> all(analysis->snapshot().node_count());
    std::iota(all.begin(), all.end(), 0u);
    start = Clock::now();
    table.setNodes(all);
    std::printf("object table setNodes(%zu): %.1f ms\n", all.size(), ms_since(start));
    double worst = 0;
    for (int column = 0; column < app::ObjectTableModel::ColumnCount; ++column) {
        const QString name = table.headerData(column, Qt::Horizontal).toString();
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            start = Clock::now();
            table.sort(column, order);
            const double ms = ms_since(start);
            worst = std::max(worst, ms);
            std::printf("  sort %-12s %-4s %7.1f ms\n", qPrintable(name), order == Qt::AscendingOrder ? "asc" : "desc", ms);
        }
    }
    std::printf("object table: slowest sort of %zu rows %.1f ms\n", all.size(), worst);
    start = Clock::now();
    const int row = table.rowOf(all[all.size() / 2]);
    std::printf("object table rowOf (builds the position table): %.1f ms (row %d)\n", ms_since(start), row);

    for (const char* query : {"type:pkg3.*", "size>400 -tracked", "preview:key_1", "unreachable", "retained>10KB",
                              "cycle type:pkg1.*", "suspect", "surplus>0 OR distance>50"}) {
        start = Clock::now();
        const app::FilterResult result = app::run_filter(*analysis, query);
        std::printf("filter %-28s %6.1f ms  %s\n", query, ms_since(start),
                    result.ok ? qPrintable(QString::number(result.nodes->size()) + " matches")
                              : qPrintable(result.error));
    }
    std::printf("with the models: peak RSS %ld MiB, RSS now %ld MiB\n", rss_mib(), rss_mib("VmRSS:"));
    return 0;
}

#include "graph/graph_layout_job.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>

#include "refscope/analysis/display_text.h"

namespace refscope::app {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

void check_nodes(const std::vector<uint32_t>& nodes, size_t node_count) {
    for (uint32_t n : nodes) {
        if (n >= node_count) {
            throw std::invalid_argument("object #" + std::to_string(n) +
                                        " is not in this snapshot (it has " +
                                        analysis::with_thousands(node_count) + " objects)");
        }
    }
}

}  // namespace

GraphLayoutJob::GraphLayoutJob(QObject* parent) : QObject(parent) {}

// The worker's destructor (a member) makes everything stale and joins; the
// deliveries it drops would have touched this object.
GraphLayoutJob::~GraphLayoutJob() = default;

quint64 GraphLayoutJob::request(GraphRequest request) {
    const quint64 id = ++latest_;
    worker_.start([this, id, request = std::move(request)](
                      const std::atomic<bool>& stale) mutable -> LatestRequestWorker::Delivery {
        if (stale.load()) return {};
        GraphDataPtr graph;
        QString error;
        try {
            graph = build(std::move(request), id, [&stale] { return stale.load(); });
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        if (!graph && error.isEmpty()) return {};  // superseded midway: a newer request counts
        // Runs on the job's thread, and only if no newer request came since.
        return [this, graph = std::move(graph), error] {
            setBusy(false);
            if (graph) {
                emit finished(graph);
            } else {
                emit failed(error);
            }
        };
    });
    setBusy(true);
    return id;
}

void GraphLayoutJob::cancel() {
    ++latest_;
    worker_.cancel();
    setBusy(false);
}

void GraphLayoutJob::setBusy(bool busy) {
    if (busy_ == busy) return;
    busy_ = busy;
    emit busyChanged(busy);
}

GraphDataPtr GraphLayoutJob::build(GraphRequest request, quint64 requestId,
                                   const std::function<bool()>& superseded) {
    if (!request.analysis) throw std::invalid_argument("no snapshot is open");
    const analysis::SnapshotAnalysis& a = *request.analysis;
    const size_t node_count = a.snapshot().node_count();
    check_nodes(request.targets, node_count);
    check_nodes(request.expanded, node_count);

    auto data = std::make_shared<GraphData>();
    data->analysis = request.analysis;
    data->requestId = requestId;
    data->targets = request.targets;
    data->expanded = request.expanded;
    data->clusterBy = request.options.cluster_by;
    data->rankDir = request.rankDir;

    // The extraction explains targets and expanded nodes alike; only the
    // targets are drawn as targets.
    std::vector<uint32_t> extract_targets = request.targets;
    for (uint32_t n : request.expanded) {
        if (std::find(extract_targets.begin(), extract_targets.end(), n) == extract_targets.end()) {
            extract_targets.push_back(n);
        }
    }
    if (extract_targets.empty()) return data;  // nothing to draw: an empty graph

    analysis::SubgraphOptions options = request.options;
    options.suspects = request.suspects;
    if (options.cluster_by == analysis::ClusterBy::Cycle && options.component.empty() &&
        a.cycles()) {
        options.component = a.cycles()->cycle_ids();
    }
    if (options.component.size() != node_count) options.component = {};

    Clock::time_point start = Clock::now();
    data->subgraph =
        analysis::extract_subgraph(a.index(), a.roots(), a.paths(), extract_targets, options);
    std::vector<uint32_t> targets = request.targets;
    std::sort(targets.begin(), targets.end());
    const analysis::LeakSuspects* ranking = request.flagRankedSuspects ? a.suspects() : nullptr;
    const auto ranked = ranking ? ranking->node_column() : std::span<const uint8_t>();
    for (analysis::SubgraphNode& n : data->subgraph.nodes) {
        if (n.is_group()) continue;
        n.is_target = std::binary_search(targets.begin(), targets.end(), n.node);
        if (n.node < ranked.size() && ranked[n.node] != 0) n.is_suspect = true;
    }
    data->extractSeconds = seconds_since(start);
    if (superseded && superseded()) return nullptr;

    graphviz::RenderOptions layout_options;
    layout_options.rankdir = request.rankDir;
    // The view shows notes in its status line, not inside the drawing.
    layout_options.show_notes = false;
    start = Clock::now();
    data->layout = graphviz::compute_layout(data->subgraph, layout_options);
    data->layoutSeconds = seconds_since(start);
    return data;
}

}  // namespace refscope::app

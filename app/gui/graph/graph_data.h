// What the graph view asks for and what it gets back: a request (which
// objects, how much around them) and the laid-out result the scene draws and
// the exporter renders.
#pragma once

#include <QMetaType>
#include <QtGlobal>
#include <cstdint>
#include <memory>
#include <vector>

#include "refscope/analysis/subgraph.h"
#include "refscope/graphviz/graph_render.h"
#include "session/analysis_ptr.h"

namespace refscope::app {

// One drawing to make. The request owns everything the extraction reads, so
// it can be carried to the worker thread as a value:
//  - options.component: leave it empty; with ClusterBy::Cycle the job points
//    it at analysis->cycles()->cycle_ids() (owned by the analysis the request
//    holds). A span given here must point into data `analysis` owns.
//  - options.suspects: leave it empty and fill `suspects` instead; the job
//    points the span at the request's own copy.
struct GraphRequest {
    AnalysisPtr analysis;
    // The objects the drawing explains: drawn as targets, with their
    // retention paths and `options.hops` of neighbourhood.
    std::vector<uint32_t> targets;
    // Objects whose neighbours were asked for ("Expand neighbours", a group
    // opened): extracted like targets (paths and neighbourhood) but not drawn
    // as targets.
    std::vector<uint32_t> expanded;
    analysis::SubgraphOptions options;
    // Extra objects flagged as suspects (besides those with unexplained
    // surplus, which the extraction always flags).
    std::vector<uint32_t> suspects;
    // Also flag objects the analysis's leak ranking names
    // (LeakSuspects::node_column() != 0).
    bool flagRankedSuspects = true;
    graphviz::RankDir rankDir = graphviz::RankDir::LeftToRight;
};

// A laid-out subgraph. Immutable once made; shared between the scene, the
// widget (for export) and whoever else asks for currentGraph().
struct GraphData {
    analysis::Subgraph subgraph;
    // layout.nodes/edges/clusters are in subgraph order (one per entry).
    graphviz::GraphLayout layout;
    AnalysisPtr analysis;
    quint64 requestId = 0;
    std::vector<uint32_t> targets;   // as requested
    std::vector<uint32_t> expanded;  // as requested
    analysis::ClusterBy clusterBy = analysis::ClusterBy::None;
    graphviz::RankDir rankDir = graphviz::RankDir::LeftToRight;
    double extractSeconds = 0;
    double layoutSeconds = 0;
};

using GraphDataPtr = std::shared_ptr<const GraphData>;

}  // namespace refscope::app

Q_DECLARE_METATYPE(refscope::app::GraphDataPtr)

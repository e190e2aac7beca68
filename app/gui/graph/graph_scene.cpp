#include "graph/graph_scene.h"

#include <QEvent>
#include <QMetaObject>
#include <QPainter>
#include <cmath>

namespace refscope::app {
namespace {

// Room around the drawing, so the outermost strokes are not cut off.
constexpr qreal kSceneMargin = 12.0;

}  // namespace

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent), colours_(GraphColours::fromPalette(palette())) {
    setBackgroundBrush(colours_.background);
    // ~300 items that all move together: an index costs more than it saves.
    setItemIndexMethod(NoIndex);
}

void GraphScene::setGraph(GraphDataPtr graph) {
    highlighted_ = nullptr;
    nodes_.clear();
    edges_.clear();
    clusters_.clear();
    bySnapshotNode_.clear();
    clear();
    graph_ = std::move(graph);
    if (!graph_) {
        setSceneRect(QRectF());
        return;
    }
    const analysis::Subgraph& sub = graph_->subgraph;
    const graphviz::GraphLayout& layout = graph_->layout;
    // The layout has one placement per node, edge and cluster (an empty
    // request has neither): draw only what has both.
    const size_t node_count = std::min(sub.nodes.size(), layout.nodes.size());
    nodes_.reserve(node_count);
    for (size_t c = 0; c < std::min(sub.clusters.size(), layout.clusters.size()); ++c) {
        auto* item = new GraphClusterItem(static_cast<uint32_t>(c), sub.clusters[c],
                                          layout.clusters[c], colours_);
        addItem(item);
        clusters_.push_back(item);
    }
    for (size_t e = 0; e < std::min(sub.edges.size(), layout.edges.size()); ++e) {
        auto* item =
            new GraphEdgeItem(static_cast<uint32_t>(e), sub.edges[e], layout.edges[e], colours_);
        addItem(item);
        edges_.push_back(item);
    }
    for (size_t i = 0; i < node_count; ++i) {
        const analysis::SubgraphNode& n = sub.nodes[i];
        auto* item = new GraphNodeItem(static_cast<uint32_t>(i), n, layout.nodes[i], colours_);
        if (n.is_group() && n.group_anchor < sub.nodes.size()) {
            item->setGroupAnchor(sub.nodes[n.group_anchor].node);
        }
        addItem(item);
        nodes_.push_back(item);
        if (!n.is_group()) bySnapshotNode_.emplace(n.node, item);
    }
    setSceneRect(QRectF(0, 0, layout.width, layout.height)
                     .adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
    if (GraphNodeItem* item = nodeItemFor(selected_)) {
        highlight(item);
    } else {
        selected_ = refscope::kNoNode;
    }
}

GraphNodeItem* GraphScene::nodeItemFor(uint32_t snapshotNode) const {
    const auto found = bySnapshotNode_.find(snapshotNode);
    return found == bySnapshotNode_.end() ? nullptr : found->second;
}

bool GraphScene::selectNode(uint32_t snapshotNode) {
    GraphNodeItem* item = nodeItemFor(snapshotNode);
    highlight(item);
    selected_ = item ? snapshotNode : refscope::kNoNode;
    return item != nullptr;
}

void GraphScene::highlight(GraphNodeItem* item) {
    if (highlighted_ == item) return;
    if (highlighted_) highlighted_->setHighlighted(false);
    highlighted_ = item;
    if (item) item->setHighlighted(true);
}

// The signals are queued: their receivers may replace the drawing (and so
// delete the item whose event handler is still running).
void GraphScene::nodeItemPressed(GraphNodeItem* item) {
    highlight(item);
    selected_ = item->snapshotNode();
    if (!item->isGroup()) {
        QMetaObject::invokeMethod(
            this, [this, node = item->snapshotNode()] { emit nodeClicked(node); },
            Qt::QueuedConnection);
    }
}

void GraphScene::nodeItemExpandRequested(GraphNodeItem* item) {
    requestExpansion(item->snapshotNode(), item->groupAnchorNode(), item->groupCount());
}

void GraphScene::requestExpansion(uint32_t snapshotNode, uint32_t groupAnchor,
                                  uint32_t groupCount) {
    if (snapshotNode != kNoNode) {
        QMetaObject::invokeMethod(
            this, [this, snapshotNode] { emit nodeExpandRequested(snapshotNode); },
            Qt::QueuedConnection);
    } else if (groupAnchor != kNoNode) {
        QMetaObject::invokeMethod(
            this,
            [this, groupAnchor, groupCount] { emit groupExpandRequested(groupAnchor, groupCount); },
            Qt::QueuedConnection);
    }
}

bool GraphScene::event(QEvent* event) {
    if (event->type() == QEvent::PaletteChange ||
        event->type() == QEvent::ApplicationPaletteChange) {
        restyle();
    }
    return QGraphicsScene::event(event);
}

void GraphScene::restyle() {
    colours_ = GraphColours::fromPalette(palette());
    setBackgroundBrush(colours_.background);
    for (GraphNodeItem* item : nodes_) item->restyle(colours_);
    for (GraphEdgeItem* item : edges_) item->restyle(colours_);
    for (GraphClusterItem* item : clusters_) item->restyle(colours_);
}

QImage GraphScene::renderToImage(qreal scale, qreal devicePixelRatio) {
    const QRectF source = sceneRect();
    const QSize logical(std::max(1, static_cast<int>(std::ceil(source.width() * scale))),
                        std::max(1, static_cast<int>(std::ceil(source.height() * scale))));
    QImage image(logical * devicePixelRatio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(devicePixelRatio);
    image.fill(colours_.background);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    render(&painter, QRectF(QPointF(0, 0), QSizeF(logical)), source);
    return image;
}

}  // namespace refscope::app

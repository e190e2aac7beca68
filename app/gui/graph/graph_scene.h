// The laid-out subgraph as a QGraphicsScene: clusters (labelled rounded
// rectangles) behind edges (Graphviz's Bézier splines with arrowheads and
// labels) behind nodes (shape and colours by role: GC roots, targets,
// suspects, holders, group nodes). Scene coordinates are the layout's points.
//
// Clicking a node highlights it and emits nodeClicked; double-clicking it (or "Expand
// neighbours" in its context menu) emits nodeExpandRequested. Group nodes
// ("1,000 × str") stand for the anchor's neighbours of one type: expanding
// one emits groupExpandRequested with the anchor and the member count, and
// the widget re-requests the drawing with that node's neighbourhood opened up.
#pragma once

#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <QGraphicsScene>
#include <QImage>

class QMenu;

#include "graph/graph_data.h"
#include "graph/graph_items.h"
#include "graph/graph_style.h"

namespace refscope::app {

class GraphScene : public QGraphicsScene {
    Q_OBJECT

public:
    explicit GraphScene(QObject* parent = nullptr);

    // Replaces the drawing (null: empty scene). The selection is kept when the
    // selected node is still drawn.
    void setGraph(GraphDataPtr graph);
    GraphDataPtr graph() const { return graph_; }

    // Highlights the node and returns whether it is drawn; kNoNode (or a node
    // not drawn) clears the highlight. Emits nothing.
    bool selectNode(uint32_t snapshotNode);
    uint32_t selectedNode() const { return selected_; }

    GraphNodeItem* nodeItemFor(uint32_t snapshotNode) const;
    const std::vector<GraphNodeItem*>& nodeItems() const { return nodes_; }
    const std::vector<GraphEdgeItem*>& edgeItems() const { return edges_; }
    const std::vector<GraphClusterItem*>& clusterItems() const { return clusters_; }
    const GraphColours& colours() const { return colours_; }

    // The whole drawing at `scale` scene points per logical pixel, for tests
    // and previews. The image has the given device pixel ratio (its pixel
    // size is the logical size times it) and the background colour.
    QImage renderToImage(qreal scale = 1.0, qreal devicePixelRatio = 1.0);

    // Called by the items. The signals they lead to are emitted from the
    // event loop (queued), never from inside an item's event handler.
    void nodeItemPressed(GraphNodeItem* item);
    void nodeItemExpandRequested(GraphNodeItem* item);
    // Expands a node (snapshotNode) or a group (snapshotNode == kNoNode: its
    // anchor and member count), as a double-click does.
    void requestExpansion(uint32_t snapshotNode, uint32_t groupAnchor = kNoNode,
                          uint32_t groupCount = 0);

    // What the window adds to a node's right-click menu (show referrers,
    // copy address, ...: window/object_menu.h); the graph library itself
    // knows nothing of the window. Called with the menu and the node.
    using NodeMenuHook = std::function<void(QMenu&, uint32_t snapshotNode)>;
    void setNodeMenuHook(NodeMenuHook hook) { nodeMenuHook_ = std::move(hook); }
    void fillNodeMenu(QMenu& menu, uint32_t snapshotNode) const {
        if (nodeMenuHook_) nodeMenuHook_(menu, snapshotNode);
    }

signals:
    void nodeClicked(uint32_t snapshotNode);
    void nodeExpandRequested(uint32_t snapshotNode);
    void groupExpandRequested(uint32_t anchorSnapshotNode, uint32_t memberCount);

protected:
    bool event(QEvent* event) override;

private:
    void highlight(GraphNodeItem* item);
    void restyle();

    GraphDataPtr graph_;
    GraphColours colours_;
    std::vector<GraphNodeItem*> nodes_;  // in subgraph order; owned by the scene
    std::vector<GraphEdgeItem*> edges_;
    std::vector<GraphClusterItem*> clusters_;
    std::unordered_map<uint32_t, GraphNodeItem*> bySnapshotNode_;
    GraphNodeItem* highlighted_ = nullptr;
    uint32_t selected_ = refscope::kNoNode;
    NodeMenuHook nodeMenuHook_;
};

}  // namespace refscope::app

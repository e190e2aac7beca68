// The items of the graph scene: one GraphNodeItem per subgraph node, one
// GraphEdgeItem per subgraph edge, one GraphClusterItem per cluster. Scene
// units are Graphviz points (1/72 inch, y down), so positions are the
// layout's numbers unchanged; text uses pixel-sized fonts in those units
// (10 for nodes, 9 for edge labels, 12 for cluster titles: the export's point
// sizes). Everything is painted as vectors (no cached pixmaps), so it stays
// sharp at any zoom and device pixel ratio.
#pragma once

#include <QFont>
#include <QGraphicsItem>
#include <QPainterPath>
#include <QPen>
#include <QStringList>
#include <vector>

#include "graph/graph_style.h"
#include "refscope/analysis/subgraph.h"
#include "refscope/graphviz/graph_render.h"

namespace refscope::app {

class GraphScene;

// Z order: clusters behind edges behind nodes; the selected node on top.
inline constexpr qreal kClusterZ = -10;
inline constexpr qreal kEdgeZ = 0;
inline constexpr qreal kNodeZ = 10;
inline constexpr qreal kSelectedNodeZ = 11;

class GraphNodeItem : public QGraphicsItem {
public:
    GraphNodeItem(uint32_t subgraphIndex, const analysis::SubgraphNode& node,
                  const graphviz::NodePlacement& placement, const GraphColours& colours);

    enum { Type = UserType + 1 };
    int type() const override { return Type; }

    uint32_t subgraphIndex() const { return subgraphIndex_; }
    // The snapshot node drawn, or kNoNode for a group node.
    uint32_t snapshotNode() const { return snapshotNode_; }
    bool isGroup() const { return snapshotNode_ == refscope::kNoNode; }
    // Group nodes: the anchor's snapshot node and how many members.
    uint32_t groupAnchorNode() const { return groupAnchorNode_; }
    uint32_t groupCount() const { return groupCount_; }
    void setGroupAnchor(uint32_t anchorSnapshotNode);

    const NodeStyle& style() const { return style_; }
    QPen pen() const;
    QBrush brush() const;
    // The node's box, centred on the item's position (the layout's centre).
    QRectF nodeRect() const { return rect_; }
    QPainterPath outline() const { return outline_; }
    const QStringList& lines() const { return lines_; }

    bool isHighlighted() const { return highlighted_; }
    void setHighlighted(bool highlighted);
    void restyle(const GraphColours& colours);

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;
    void contextMenuEvent(QGraphicsSceneContextMenuEvent* event) override;

private:
    GraphScene* graphScene() const;
    void layoutText();

    uint32_t subgraphIndex_;
    uint32_t snapshotNode_;
    uint32_t groupAnchorNode_ = refscope::kNoNode;
    uint32_t groupCount_ = 0;
    analysis::SubgraphNode flags_;  // the flags only (no lines) for restyling
    NodeStyle style_;
    GraphColours colours_;
    QRectF rect_;
    QPainterPath outline_;
    QPainterPath innerOutline_;  // the second periphery, when there is one
    QStringList lines_;
    std::vector<graphviz::NodeLineKind> lineKinds_;  // one per line
    QStringList shownLines_;  // elided to the box
    std::vector<QColor> lineColours_;
    QFont titleFont_;
    QFont textFont_;
    bool highlighted_ = false;
};

class GraphEdgeItem : public QGraphicsItem {
public:
    GraphEdgeItem(uint32_t subgraphIndex, const analysis::SubgraphEdge& edge,
                  const graphviz::EdgePlacement& placement, const GraphColours& colours);

    enum { Type = UserType + 2 };
    int type() const override { return Type; }

    uint32_t subgraphIndex() const { return subgraphIndex_; }
    const EdgeStyle& style() const { return style_; }
    QPen pen() const;
    // The spline (Graphviz's cubic Béziers) and the arrowhead polygon.
    QPainterPath path() const { return path_; }
    QPolygonF arrowHead() const { return arrow_; }
    QString label() const { return label_; }
    QPointF labelCentre() const { return labelCentre_; }
    void restyle(const GraphColours& colours);

    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    uint32_t subgraphIndex_;
    analysis::SubgraphEdge flags_;  // flags only, for restyling
    EdgeStyle style_;
    QPainterPath path_;
    QPolygonF arrow_;
    QString label_;
    QPointF labelCentre_;
    QRectF labelRect_;
    QFont labelFont_;
    QRectF bounds_;
};

class GraphClusterItem : public QGraphicsItem {
public:
    GraphClusterItem(uint32_t clusterIndex, const analysis::SubgraphCluster& cluster,
                     const graphviz::ClusterPlacement& placement, const GraphColours& colours);

    enum { Type = UserType + 3 };
    int type() const override { return Type; }

    uint32_t clusterIndex() const { return clusterIndex_; }
    QString label() const { return label_; }
    QRectF clusterRect() const { return rect_; }
    void restyle(const GraphColours& colours);

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    uint32_t clusterIndex_;
    QString label_;
    QRectF rect_;
    QFont font_;
    GraphColours colours_;
};

}  // namespace refscope::app

#include "graph/graph_items.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFontMetricsF>
#include <QGraphicsSceneContextMenuEvent>
#include <QGraphicsSceneMouseEvent>
#include <QMenu>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPointer>
#include <QStyleOptionGraphicsItem>
#include <QtMath>
#include <algorithm>
#include <cmath>

#include "graph/graph_scene.h"

namespace refscope::app {
namespace {

// Graphviz measures labels with Helvetica at the export's sizes (pango maps
// it to the system's sans face); ask Qt for the same family.
QFont label_font(int pixel_size, bool bold, bool italic) {
    QFont font;
    font.setFamilies({QStringLiteral("Helvetica"), QStringLiteral("Arial"),
                      QStringLiteral("Liberation Sans"), QStringLiteral("DejaVu Sans")});
    font.setStyleHint(QFont::SansSerif);
    font.setPixelSize(pixel_size);
    font.setBold(bold);
    font.setItalic(italic);
    return font;
}

// The outline of a node's shape inside `r`, as Graphviz draws it.
QPainterPath shape_path(NodeShape shape, const QRectF& r) {
    QPainterPath path;
    switch (shape) {
        case NodeShape::RoundedBox:
            path.addRoundedRect(r, std::min(6.0, r.height() / 4), std::min(6.0, r.height() / 4));
            break;
        case NodeShape::Octagon: {
            const qreal dx = std::min(r.width() * 0.2, r.height() * 0.3);
            const qreal dy = r.height() * 0.3;
            path.addPolygon(QPolygonF{{r.left() + dx, r.top()},
                                      {r.right() - dx, r.top()},
                                      {r.right(), r.top() + dy},
                                      {r.right(), r.bottom() - dy},
                                      {r.right() - dx, r.bottom()},
                                      {r.left() + dx, r.bottom()},
                                      {r.left(), r.bottom() - dy},
                                      {r.left(), r.top() + dy},
                                      {r.left() + dx, r.top()}});
            break;
        }
        case NodeShape::Folder: {
            // A box with a tab on its top right edge.
            const qreal tab = std::min(5.0, r.height() / 5);
            const qreal tab_left = r.right() - std::min(r.width() * 0.35, 40.0);
            path.moveTo(r.left(), r.top() + tab);
            path.lineTo(tab_left, r.top() + tab);
            path.lineTo(tab_left + tab, r.top());
            path.lineTo(r.right() - tab, r.top());
            path.lineTo(r.right(), r.top() + tab);
            path.lineTo(r.right(), r.bottom());
            path.lineTo(r.left(), r.bottom());
            path.closeSubpath();
            break;
        }
    }
    return path;
}

// The spline from Graphviz: p0, then three control points per cubic segment.
QPainterPath spline_path(const std::vector<graphviz::Point>& points) {
    QPainterPath path;
    if (points.empty()) return path;
    path.moveTo(points[0].x, points[0].y);
    if ((points.size() - 1) % 3 == 0) {
        for (size_t i = 1; i + 2 < points.size(); i += 3) {
            path.cubicTo(points[i].x, points[i].y, points[i + 1].x, points[i + 1].y,
                         points[i + 2].x, points[i + 2].y);
        }
    } else {
        for (size_t i = 1; i < points.size(); ++i) path.lineTo(points[i].x, points[i].y);
    }
    return path;
}

// A triangle from `base` to `tip`, as wide as Graphviz's "normal" arrow.
QPolygonF arrow_polygon(QPointF base, QPointF tip) {
    const QPointF d = tip - base;
    const qreal length = std::hypot(d.x(), d.y());
    if (length < 0.01) return {};
    const QPointF normal(-d.y() / length, d.x() / length);
    const qreal half = length * 0.35;
    return QPolygonF{tip, base + normal * half, base - normal * half, tip};
}

constexpr qreal kTextMargin = 4.0;
constexpr qreal kHighlightMargin = 5.0;

}  // namespace

// ---------------------------------------------------------------- nodes

GraphNodeItem::GraphNodeItem(uint32_t subgraphIndex, const analysis::SubgraphNode& node,
                             const graphviz::NodePlacement& placement, const GraphColours& colours)
    : subgraphIndex_(subgraphIndex),
      snapshotNode_(node.node),
      flags_(node),
      titleFont_(label_font(10, true, false)),
      textFont_(label_font(10, false, false)) {
    flags_.lines.clear();
    flags_.tooltip.clear();
    if (node.is_group()) {
        groupCount_ = node.group_count;
    }
    for (const std::string& line : node.lines) {
        lineKinds_.push_back(graphviz::node_line_kind(static_cast<size_t>(lines_.size()), line));
        lines_.push_back(QString::fromStdString(line));
    }
    if (lines_.isEmpty()) {
        lines_.push_back(QStringLiteral("?"));
        lineKinds_.push_back(graphviz::NodeLineKind::Title);
    }
    setPos(placement.x, placement.y);
    rect_ = QRectF(-placement.width / 2, -placement.height / 2, placement.width, placement.height);
    setZValue(kNodeZ);
    setToolTip(QString::fromStdString(node.tooltip));
    setAcceptHoverEvents(true);
    setCursor(Qt::PointingHandCursor);
    setCacheMode(NoCache);  // vectors at every scale: sharp on high-DPI screens
    layoutText();
    restyle(colours);
}

void GraphNodeItem::layoutText() {
    const QFontMetricsF title(titleFont_);
    const QFontMetricsF text(textFont_);
    const qreal width = std::max(10.0, rect_.width() - 2 * kTextMargin);
    shownLines_.clear();
    for (int i = 0; i < lines_.size(); ++i) {
        shownLines_.push_back((i == 0 ? title : text).elidedText(lines_[i], Qt::ElideRight, width));
    }
}

void GraphNodeItem::restyle(const GraphColours& colours) {
    colours_ = colours;
    style_ = node_style(flags_, colours);
    outline_ = shape_path(style_.shape, rect_);
    innerOutline_ = QPainterPath();
    if (style_.doubleBorder) {
        innerOutline_ = shape_path(style_.shape, rect_.adjusted(4, 4, -4, -4));
    }
    lineColours_.clear();
    for (const graphviz::NodeLineKind kind : lineKinds_) {
        switch (kind) {
            case graphviz::NodeLineKind::Invisible:
                lineColours_.push_back(colours.invisibleLine);
                break;
            case graphviz::NodeLineKind::Root:
                lineColours_.push_back(colours.rootLine);
                break;
            default:
                lineColours_.push_back(colours.text);
        }
    }
    update();
}

void GraphNodeItem::setHighlighted(bool highlighted) {
    if (highlighted_ == highlighted) return;
    prepareGeometryChange();
    highlighted_ = highlighted;
    setZValue(highlighted ? kSelectedNodeZ : kNodeZ);
    update();
}

QPen GraphNodeItem::pen() const {
    QPen pen(style_.border, style_.borderWidth);
    pen.setJoinStyle(Qt::MiterJoin);
    return pen;
}

QBrush GraphNodeItem::brush() const { return QBrush(style_.fill); }

QRectF GraphNodeItem::boundingRect() const {
    const qreal margin = highlighted_ ? kHighlightMargin + 2.5 : style_.borderWidth;
    return rect_.adjusted(-margin, -margin, margin, margin);
}

QPainterPath GraphNodeItem::shape() const { return outline_; }

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->setRenderHint(QPainter::Antialiasing);
    if (highlighted_) {
        QPen ring(colours_.selection, 3.0);
        painter->setPen(ring);
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(rect_.adjusted(-kHighlightMargin, -kHighlightMargin,
                                                kHighlightMargin, kHighlightMargin),
                                 6, 6);
    }
    painter->setPen(pen());
    painter->setBrush(brush());
    painter->drawPath(outline_);
    if (!innerOutline_.isEmpty()) {
        QPen inner = pen();
        inner.setWidthF(std::max(1.0, style_.borderWidth / 2));
        painter->setPen(inner);
        painter->setBrush(Qt::NoBrush);
        painter->drawPath(innerOutline_);
    }

    // The lines, centred as a block, the title bold.
    const QFontMetricsF title(titleFont_);
    const QFontMetricsF text(textFont_);
    qreal height = 0;
    for (int i = 0; i < shownLines_.size(); ++i) {
        height += (i == 0 ? title : text).height();
    }
    qreal y = -height / 2;
    if (style_.shape == NodeShape::Folder) y += 2;  // below the tab
    for (int i = 0; i < shownLines_.size(); ++i) {
        const QFontMetricsF& metrics = i == 0 ? title : text;
        painter->setFont(i == 0 ? titleFont_ : textFont_);
        painter->setPen(lineColours_[static_cast<size_t>(i)]);
        const QRectF line(rect_.left(), y, rect_.width(), metrics.height());
        painter->drawText(line, Qt::AlignHCenter | Qt::AlignVCenter, shownLines_[i]);
        y += metrics.height();
    }
}

GraphScene* GraphNodeItem::graphScene() const { return qobject_cast<GraphScene*>(scene()); }

void GraphNodeItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        event->ignore();
        return;
    }
    // Accepting the press keeps the view from starting a hand drag here.
    event->accept();
    if (GraphScene* s = graphScene()) s->nodeItemPressed(this);
}

void GraphNodeItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        event->ignore();
        return;
    }
    event->accept();
    if (GraphScene* s = graphScene()) s->nodeItemExpandRequested(this);
}

void GraphNodeItem::contextMenuEvent(QGraphicsSceneContextMenuEvent* event) {
    GraphScene* s = graphScene();
    if (!s) return;
    event->accept();
    s->nodeItemPressed(this);
    // The menu runs an event loop: a new drawing may arrive and delete this
    // item meanwhile, so nothing of `this` is used after exec().
    const QPointer<GraphScene> scene(s);
    const uint32_t node = snapshotNode_;
    const uint32_t anchor = groupAnchorNode_;
    const uint32_t count = groupCount_;
    const QString description = toolTip();
    QMenu menu;
    QAction* expand = menu.addAction(isGroup() ? QObject::tr("Show the %1 members").arg(count)
                                               : QObject::tr("Expand neighbours"));
    QAction* copy = menu.addAction(QObject::tr("Copy description"));
    if (!isGroup()) {
        menu.addSeparator();
        s->fillNodeMenu(menu, node);
    }
    const QAction* chosen = menu.exec(event->screenPos());
    if (chosen == expand && scene) {
        scene->requestExpansion(node, anchor, count);
    } else if (chosen == copy) {
        QApplication::clipboard()->setText(description);
    }
}

void GraphNodeItem::setGroupAnchor(uint32_t anchorSnapshotNode) {
    groupAnchorNode_ = anchorSnapshotNode;
}

// ---------------------------------------------------------------- edges

GraphEdgeItem::GraphEdgeItem(uint32_t subgraphIndex, const analysis::SubgraphEdge& edge,
                             const graphviz::EdgePlacement& placement, const GraphColours& colours)
    : subgraphIndex_(subgraphIndex),
      flags_(edge),
      label_(QString::fromStdString(edge.label)),
      labelFont_(label_font(9, false, true)) {
    flags_.label.clear();
    setZValue(kEdgeZ);
    setCacheMode(NoCache);
    path_ = spline_path(placement.points);
    if (!placement.points.empty()) {
        const QPointF end(placement.points.back().x, placement.points.back().y);
        if (placement.arrow_head) {
            arrow_ = arrow_polygon(end, QPointF(placement.arrow_head->x, placement.arrow_head->y));
        }
    }
    if (placement.label && !label_.isEmpty()) {
        labelCentre_ = QPointF(placement.label->x, placement.label->y);
        const QFontMetricsF metrics(labelFont_);
        const QSizeF size(metrics.horizontalAdvance(label_) + 2, metrics.height());
        labelRect_ = QRectF(labelCentre_ - QPointF(size.width() / 2, size.height() / 2), size);
    }
    QString tip = label_;
    if (edge.gc_invisible) {
        tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) +
               QObject::tr("GC cannot see: an owned reference that tp_traverse does not report");
    } else if (edge.weak) {
        tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) +
               QObject::tr("weak reference: keeps nothing alive");
    } else if (!edge.owned) {
        tip += (tip.isEmpty() ? QString() : QStringLiteral("\n")) +
               QObject::tr("borrowed reference: keeps nothing alive");
    }
    setToolTip(tip);
    bounds_ = path_.controlPointRect().united(arrow_.boundingRect()).united(labelRect_);
    bounds_ = bounds_.adjusted(-3, -3, 3, 3);
    restyle(colours);
}

void GraphEdgeItem::restyle(const GraphColours& colours) {
    style_ = edge_style(flags_, colours);
    update();
}

QPen GraphEdgeItem::pen() const {
    QPen pen(style_.colour, style_.width, style_.penStyle);
    pen.setCapStyle(Qt::FlatCap);
    return pen;
}

QRectF GraphEdgeItem::boundingRect() const { return bounds_; }

QPainterPath GraphEdgeItem::shape() const {
    // The stroke, not the area under the curve: clicks beside an edge reach
    // what is behind it.
    QPainterPathStroker stroker;
    stroker.setWidth(6);
    QPainterPath shape = stroker.createStroke(path_);
    shape.addPolygon(arrow_);
    if (!labelRect_.isEmpty()) shape.addRect(labelRect_);
    return shape;
}

void GraphEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(pen());
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path_);
    if (!arrow_.isEmpty()) {
        QPen solid(style_.colour, std::min(style_.width, 1.5));
        solid.setJoinStyle(Qt::MiterJoin);
        painter->setPen(solid);
        painter->setBrush(style_.hollowArrow ? QBrush(Qt::NoBrush) : QBrush(style_.colour));
        painter->drawPolygon(arrow_);
    }
    if (!labelRect_.isEmpty()) {
        painter->setFont(labelFont_);
        painter->setPen(style_.labelColour);
        painter->drawText(labelRect_, Qt::AlignCenter, label_);
    }
}

// ---------------------------------------------------------------- clusters

GraphClusterItem::GraphClusterItem(uint32_t clusterIndex, const analysis::SubgraphCluster& cluster,
                                   const graphviz::ClusterPlacement& placement,
                                   const GraphColours& colours)
    : clusterIndex_(clusterIndex),
      label_(QString::fromStdString(cluster.label)),
      rect_(placement.x, placement.y, placement.width, placement.height),
      font_(label_font(12, true, false)),
      colours_(colours) {
    setZValue(kClusterZ);
    setCacheMode(NoCache);
    setToolTip(QObject::tr("%1: %n object(s) drawn", nullptr, static_cast<int>(cluster.node_count))
                   .arg(label_));
}

void GraphClusterItem::restyle(const GraphColours& colours) {
    colours_ = colours;
    update();
}

QRectF GraphClusterItem::boundingRect() const { return rect_.adjusted(-1, -1, 1, 1); }

void GraphClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(colours_.clusterBorder, 1.0));
    painter->setBrush(colours_.clusterFill);
    painter->drawRoundedRect(rect_, 8, 8);
    // Graphviz puts the export's cluster titles top left (labeljust=l).
    painter->setFont(font_);
    painter->setPen(colours_.clusterText);
    const QFontMetricsF metrics(font_);
    const QRectF title(rect_.left() + 8, rect_.top() + 2, rect_.width() - 16, metrics.height() + 2);
    painter->drawText(title, Qt::AlignLeft | Qt::AlignVCenter,
                      metrics.elidedText(label_, Qt::ElideRight, title.width()));
}

}  // namespace refscope::app

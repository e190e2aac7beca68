#include "graph/graph_view.h"

#include <QKeyEvent>
#include <QResizeEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace refscope::app {

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing |
                   QPainter::SmoothPixmapTransform);
    setDragMode(ScrollHandDrag);
    setTransformationAnchor(AnchorUnderMouse);
    setResizeAnchor(AnchorViewCenter);
    // Nothing cached: the scene is repainted as vectors at the screen's
    // device pixel ratio.
    setCacheMode(CacheNone);
    setViewportUpdateMode(SmartViewportUpdate);
    setFocusPolicy(Qt::StrongFocus);
}

double GraphView::zoom() const { return transform().m11(); }

void GraphView::setZoom(double zoom) {
    keepFitted_ = false;
    applyZoom(zoom);
}

void GraphView::applyZoom(double zoom) {
    if (!std::isfinite(zoom)) return;
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    if (std::abs(zoom - this->zoom()) < 1e-9) return;
    setTransform(QTransform::fromScale(zoom, zoom));
    emit zoomChanged(zoom);
}

// Buttons and keys zoom around the middle of the view; the wheel zooms
// around the cursor (the view's transformation anchor).
void GraphView::zoomAroundCentre(double zoom) {
    keepFitted_ = false;
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(AnchorViewCenter);
    applyZoom(zoom);
    setTransformationAnchor(anchor);
}

void GraphView::zoomIn() { zoomAroundCentre(zoom() * kZoomStep); }
void GraphView::zoomOut() { zoomAroundCentre(zoom() / kZoomStep); }
void GraphView::resetZoom() { zoomAroundCentre(1.0); }

void GraphView::fitToWindow() {
    keepFitted_ = true;
    fitNow();
}

void GraphView::fitNow() {
    if (!scene() || sceneRect().isEmpty()) {
        applyZoom(1.0);
        return;
    }
    const QRectF rect = sceneRect();
    const QSize area = viewport()->size();
    // Not laid out yet (hidden, or just shown): resizeEvent fits it later.
    if (!isVisible() || area.width() < 2 || area.height() < 2) return;
    const double fit = std::min(area.width() / rect.width(), area.height() / rect.height());
    applyZoom(std::min(fit, kMaxFitZoom));
    centerOn(rect.center());
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    if (keepFitted_) fitNow();
}

void GraphView::centreOn(QPointF scenePoint) { centerOn(scenePoint); }

void GraphView::wheelEvent(QWheelEvent* event) {
    if (!(event->modifiers() & Qt::ControlModifier)) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    // 120 units per notch; one notch is one zoom step.
    const double notches = event->angleDelta().y() / 120.0;
    if (notches != 0) {
        keepFitted_ = false;
        applyZoom(zoom() * std::pow(kZoomStep, notches));
    }
    event->accept();
}

void GraphView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            zoomIn();
            event->accept();
            return;
        case Qt::Key_Minus:
            zoomOut();
            event->accept();
            return;
        case Qt::Key_0:
            resetZoom();
            event->accept();
            return;
        default:
            // Arrow keys and Page Up/Down scroll (QAbstractScrollArea).
            QGraphicsView::keyPressEvent(event);
    }
}

}  // namespace refscope::app

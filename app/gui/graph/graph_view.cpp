#include "graph/graph_view.h"

#include <QFontInfo>
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
    opening_ = false;
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
    opening_ = false;
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
    opening_ = false;
    fitNow();
}

// 0 while there is nothing to fit or no size to fit it in (hidden, or just
// shown): resizeEvent comes back later.
double GraphView::fitZoom() const {
    const QSize area = viewport()->size();
    if (!scene() || sceneRect().isEmpty() || !isVisible() || area.width() < 2 || area.height() < 2) return 0;
    const QRectF rect = sceneRect();
    return std::min(kMaxFitZoom, std::min(area.width() / rect.width(), area.height() / rect.height()));
}

void GraphView::fitNow() {
    if (!scene() || sceneRect().isEmpty()) {
        applyZoom(1.0);
        return;
    }
    const double fit = fitZoom();
    if (fit <= 0) return;
    applyZoom(fit);
    centerOn(sceneRect().center());
}

double GraphView::readableZoom() const {
    const double ui_pixels = QFontInfo(font()).pixelSize();
    return std::clamp(ui_pixels / kNodeTextPixels, kMinZoom, kMaxFitZoom);
}

void GraphView::openAt(QPointF focus) {
    focus_ = focus;
    opening_ = true;
    keepFitted_ = false;
    openNow();
}

void GraphView::openNow() {
    const double fit = fitZoom();
    if (fit <= 0) return;  // no size yet
    opening_ = false;
    if (fit >= readableZoom()) {
        keepFitted_ = true;
        fitNow();
        return;
    }
    applyZoom(readableZoom());
    centerOn(focus_);
}

void GraphView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    if (opening_) {
        openNow();
    } else if (keepFitted_) {
        fitNow();
    }
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
        opening_ = false;
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

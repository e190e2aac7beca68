// The view on the graph scene: zoom with Ctrl+wheel (around the cursor) and
// the +, − and 0 keys, pan by dragging the background and with the arrow
// keys, fit to the window; antialiased, painted as vectors at any zoom.
#pragma once

#include <QGraphicsView>

namespace refscope::app {

class GraphView : public QGraphicsView {
    Q_OBJECT

public:
    // The zoom (view pixels per scene point) stays within these.
    static constexpr double kMinZoom = 0.05;
    static constexpr double kMaxZoom = 8.0;
    // Fitting never magnifies beyond this: a three-node graph is not drawn
    // with letters an inch high.
    static constexpr double kMaxFitZoom = 1.5;
    static constexpr double kZoomStep = 1.25;

    explicit GraphView(QWidget* parent = nullptr);

    double zoom() const;
    void setZoom(double zoom);  // clamped to [kMinZoom, kMaxZoom]
    // The least zoom at which the nodes' text (kNodeTextPixels) is as tall
    // as the UI font; never above kMaxFitZoom.
    double readableZoom() const;
    static constexpr double kNodeTextPixels = 10.0;  // graph_items.cpp's label fonts

public slots:
    void zoomIn();
    void zoomOut();
    void resetZoom();  // 1 view pixel per point
    // Fits the scene in the viewport, and keeps it fitted as the view is
    // resized (or first shown) until the zoom is changed by hand.
    void fitToWindow();
    // Ends fitToWindow's following of the window size, keeping the zoom.
    void keepZoom() { keepFitted_ = false; }
    bool keepsFitted() const { return keepFitted_; }
    // Scrolls so that `scenePoint` is in the middle, keeping the zoom.
    void centreOn(QPointF scenePoint);
    // A new drawing: fitted (and kept fitted) when the whole of it is
    // readable that way, else at the readable zoom centred on `focus` (the
    // selection), the rest a scroll away. Waits for the view's size.
    void openAt(QPointF focus);

signals:
    void zoomChanged(double zoom);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void applyZoom(double zoom);
    void zoomAroundCentre(double zoom);
    void fitNow();
    void openNow();
    double fitZoom() const;

    bool keepFitted_ = false;
    bool opening_ = false;  // openAt waits for a size
    QPointF focus_;
};

}  // namespace refscope::app

// GrowthChart: draws a GrowthSeries (session/growth_series.h) — one line per
// growing type across the snapshots of a process, with a legend — and
// exports the same drawing as PNG or SVG.
//
// Axes. Y is the measure shown (objects, or shallow bytes in B/KiB/MiB as
// the tables write them), from zero: a leak's size is read against nothing,
// never against a cropped baseline that makes a few dicts look like a flood.
// Its top is the biggest line's, except that with a chosen type and "fit
// chosen" on (the default) it is the chosen line's: a leak of 40 → 100
// exceptions next to 50,000 tuples would otherwise lie flat on zero. The
// other lines are then clipped at the top of the plot and the axis says
// which type it is scaled to (DevTools and MAT show the selected class on
// its own scale the same way).
// X is time since the first snapshot when every snapshot has a time (an
// "Every N s" live session, the probe's files): the slope of a line is then
// a rate, and a pause between snapshots does not look like a jump; without
// times the snapshots are evenly spaced and named by sequence number.
//
// The chosen type (the selected leak suspect's) is drawn thick and the others
// dimmed, so "is this one growing?" is answered at a glance. Its legend
// entry always shows: when the legend is taller than the plot, the entries
// that do not fit give way to it and a "… N more" line (their lines still
// tell their values when hovered). Qt Charts is not
// a dependency: one QPainter routine (paintChart) draws on screen, into a
// QImage (PNG) and into a QSvgGenerator (SVG), with the widget's palette for
// text and axes so dark themes work. Hovering a point tells its exact value;
// clicking a legend entry chooses that type.
#pragma once

#include <vector>

#include <QRectF>
#include <QSize>
#include <QString>
#include <QWidget>

#include "session/growth_series.h"

class QPainter;

namespace refscope::app {

class GrowthChart : public QWidget {
    Q_OBJECT

public:
    // What export writes when the chart is not given a size: big enough to
    // read in a report, independent of the window's layout.
    static constexpr QSize kExportSize{1200, 700};

    explicit GrowthChart(QWidget* parent = nullptr);

    // `subject` names the process ("pid 1234 (python3 app.py)"); `empty`
    // is the sentence shown when the series has fewer than two samples.
    void setSeries(GrowthSeries series, const QString& subject, const QString& empty);
    const GrowthSeries& series() const { return series_; }
    // True when there is something drawn (two samples or more).
    bool hasChart() const { return series_.samples.size() >= 2; }
    // The sentence shown instead of a chart.
    QString emptyText() const { return hasChart() ? QString() : empty_text_; }

    // The whole chart in `bounds`, with `palette`'s colours.
    void paintChart(QPainter& painter, const QRectF& bounds, const QPalette& palette) const;
    // PNG or SVG by the file's extension, at `size`. Synchronous.
    bool exportTo(const QString& path, QString* error = nullptr, QSize size = kExportSize) const;
    // Scale the Y axis to the chosen line when there is one (default on).
    void setFitChosen(bool fit);
    bool fitChosen() const { return fit_chosen_; }
    // The Y axis is scaled to the chosen line now (fit on and a line chosen).
    bool scaledToChosen() const { return fit_chosen_ && series_.chosenLine() != nullptr; }
    // The top of the Y axis as drawn at the widget's size, in the measure.
    double yAxisTop() const;

    // The colour of line `index`: distinguishable on light and dark bases.
    static QColor lineColor(int index);

    // Where things are drawn on the widget now (for hovering, clicking and
    // tests): point `sample` of line `line` (null when it is above the
    // plot, clipped), and line `line`'s legend entry (empty when it gave way
    // to the chosen one).
    QPointF pointPosition(size_t line, size_t sample) const;
    QRectF legendEntry(size_t line) const;
    // The tooltip for a position: the nearest point's exact values, or "".
    QString toolTipAt(const QPointF& position) const;

signals:
    // A legend entry was clicked: its type.
    void typeClicked(const QString& type);

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    struct Layout;
    Layout layoutFor(const QRectF& bounds, const QFont& font) const;
    // The parts of paintChart.
    void paintAxes(QPainter& painter, const Layout& l, const QRectF& bounds, const QPalette& palette) const;
    void paintLines(QPainter& painter, const Layout& l) const;
    void paintLegend(QPainter& painter, const Layout& l, const QPalette& palette) const;
    // "objects", or "objects, scaled to T (…)" when the axis fits T.
    QString axisTitle(bool scaled) const;
    // "+900 objects (chosen)": the legend's second line.
    QString legendDetail(const GrowthLine& line) const;

    GrowthSeries series_;
    bool fit_chosen_ = true;
    QString subject_;
    QString empty_text_;
};

}  // namespace refscope::app

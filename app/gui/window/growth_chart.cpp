#include "window/growth_chart.h"

#include <algorithm>
#include <cmath>

#include <QFileInfo>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSvgGenerator>
#include <QToolTip>

#include "models/cell_text.h"

namespace refscope::app {

namespace {

constexpr double kPad = 10;
constexpr double kPointRadius = 3;
constexpr double kHoverDistance = 8;

// 1, 2 or 5 times a power of ten: at most `target` steps over `range`.
double nice_step(double range, int target) {
    if (range <= 0) return 1;
    const double raw = range / target;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0}) {
        if (m * magnitude >= raw) return m * magnitude;
    }
    return 10 * magnitude;
}

QString value_text(GrowthMeasure measure, uint64_t value) {
    return measure == GrowthMeasure::Objects ? count_text(value) : bytes_text(value);
}

// The palette's text colour, lighter: axes, grid and secondary text that
// follow a dark theme as well as a light one.
QColor shade(const QPalette& palette, double alpha) {
    QColor colour = palette.color(QPalette::Text);
    colour.setAlphaF(static_cast<float>(alpha));
    return colour;
}

QString growth_text(GrowthMeasure measure, int64_t growth) {
    return measure == GrowthMeasure::Objects ? signed_count_text(growth) + QObject::tr(" objects")
                                             : signed_bytes_text(growth);
}

}  // namespace

struct GrowthChart::Layout {
    QRectF title;
    QRectF plot;
    std::vector<QRectF> entries;  // legend, one per line; empty: gave way
    QRectF more;                  // "… N more", when entries gave way
    size_t hidden = 0;
    bool scaled = false;          // Y fits the chosen line
    double y_max = 1;
    double y_step = 1;
    double x_min = 0;
    double x_max = 1;
    double x_step = 1;     // timed: in seconds
    double x_unit = 1;     // timed: 1 (seconds) or 60 (minutes)

    QPointF at(double x, double y) const {
        const double fx = x_max > x_min ? (x - x_min) / (x_max - x_min) : 0.5;
        return {plot.left() + fx * plot.width(), plot.bottom() - (y / y_max) * plot.height()};
    }
    // A point drawn inside the plot (not clipped off its top).
    bool shows(const QPointF& point) const { return point.y() >= plot.top() - 0.5; }
};

namespace {

// Which lines get a legend entry when only `room_for` entries fit: the first ones in
// order, the chosen one always (taking the place of the last that fit), and
// one slot kept for "… N more" when any line is left out.
std::vector<bool> legend_shown(const std::vector<GrowthLine>& lines, size_t room_for) {
    std::vector<bool> shown(lines.size(), true);
    if (lines.size() <= room_for) return shown;
    const size_t room = room_for > 1 ? room_for - 1 : 1;
    const auto chosen = std::find_if(lines.begin(), lines.end(), [](const GrowthLine& line) { return line.chosen; });
    const size_t chosen_index = chosen == lines.end() ? lines.size() : static_cast<size_t>(chosen - lines.begin());
    size_t kept = chosen_index < lines.size() ? 1 : 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (i == chosen_index) continue;
        shown[i] = kept < room;
        if (shown[i]) ++kept;
    }
    return shown;
}

}  // namespace

QColor GrowthChart::lineColor(int index) {
    // Tableau 10: tells lines apart on white and on a dark base alike.
    static const QColor colours[] = {
        QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0xe1, 0x57, 0x59), QColor(0x59, 0xa1, 0x4f),
        QColor(0xb0, 0x7a, 0xa1), QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48), QColor(0xff, 0x9d, 0xa7),
        QColor(0x9c, 0x75, 0x5f), QColor(0xba, 0xb0, 0xac)};
    constexpr int count = sizeof(colours) / sizeof(colours[0]);
    return colours[((index % count) + count) % count];
}

GrowthChart::GrowthChart(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("growthChart"));
    setMinimumSize(240, 160);
    setMouseTracking(false);
    setAutoFillBackground(false);
}

void GrowthChart::setSeries(GrowthSeries series, const QString& subject, const QString& empty) {
    series_ = std::move(series);
    subject_ = subject;
    empty_text_ = empty;
    update();
}

GrowthChart::Layout GrowthChart::layoutFor(const QRectF& bounds, const QFont& font) const {
    Layout l;
    const QFontMetricsF fm(font);
    const GrowthMeasure measure = series_.measure;
    // The biggest line's top, or the chosen line's when the axis fits it.
    const GrowthLine* chosen = series_.chosenLine();
    l.scaled = scaledToChosen();
    double top = 0;
    for (const GrowthLine& line : series_.lines) {
        if (l.scaled && &line != chosen) continue;
        for (const uint64_t v : line.values(measure)) top = std::max(top, static_cast<double>(v));
    }
    // Bytes step in whole KiB/MiB multiples so the labels read "20 KiB".
    double unit = 1;
    if (measure == GrowthMeasure::Bytes) {
        while (top / unit >= 1024) unit *= 1024;
    }
    l.y_step = std::max(1.0, nice_step(top / unit, 5) * unit);
    l.y_max = std::max(l.y_step, std::ceil(top / l.y_step) * l.y_step);

    const size_t n = series_.samples.size();
    l.x_min = series_.x(0);
    l.x_max = n > 1 ? series_.x(n - 1) : 1;

    // Legend on the right: as wide as its longest text, within reason (names
    // are elided in the middle beyond a third of the width).
    QFont bold = font;
    bold.setBold(true);
    double legend_width = 0;
    for (const GrowthLine& line : series_.lines) {
        legend_width = std::max({legend_width, QFontMetricsF(bold).horizontalAdvance(to_qstring(line.type)),
                                 fm.horizontalAdvance(legendDetail(line))});
    }
    legend_width = std::clamp(legend_width + 24, 150.0, std::max(150.0, bounds.width() * 0.32));
    double y_label_width = 0;
    for (double v = 0; v <= l.y_max + l.y_step / 2; v += l.y_step) {
        y_label_width = std::max(y_label_width, fm.horizontalAdvance(value_text(measure, uint64_t(v))));
    }
    const double line_height = fm.lineSpacing();
    l.title = QRectF(bounds.left() + kPad, bounds.top() + kPad, bounds.width() - 2 * kPad, line_height * 2);
    const double plot_top = l.title.bottom() + line_height * 1.5 + kPad;  // room for the unit above the axis
    const double plot_left = bounds.left() + kPad + y_label_width + 8;
    const double plot_right = bounds.right() - kPad - legend_width - kPad;
    const double plot_bottom = bounds.bottom() - kPad - line_height * 2 - 6;
    l.plot = QRectF(QPointF(plot_left, plot_top), QPointF(std::max(plot_left + 10, plot_right),
                                                          std::max(plot_top + 10, plot_bottom)));
    if (series_.timed) {
        // About one label per 80 px: a narrow tab gets fewer, never a crowd.
        const int ticks = std::clamp(static_cast<int>(l.plot.width() / 80), 2, 8);
        l.x_unit = l.x_max - l.x_min >= 180 ? 60 : 1;
        l.x_step = nice_step((l.x_max - l.x_min) / l.x_unit, ticks) * l.x_unit;
    }
    // As many entries as fit beside the plot (at least one: the chosen).
    const double entry_height = line_height * 2 + 6;
    const auto room_for = static_cast<size_t>(std::max(1.0, std::floor((l.plot.bottom() - plot_top) / entry_height)));
    const std::vector<bool> shown = legend_shown(series_.lines, room_for);
    double y = plot_top;
    for (size_t i = 0; i < series_.lines.size(); ++i) {
        if (!shown[i]) {
            l.entries.emplace_back();
            ++l.hidden;
            continue;
        }
        l.entries.emplace_back(l.plot.right() + kPad, y, legend_width, entry_height);
        y += entry_height;
    }
    if (l.hidden > 0) l.more = QRectF(l.plot.right() + kPad, y, legend_width, entry_height);
    return l;
}

void GrowthChart::paintChart(QPainter& painter, const QRectF& bounds, const QPalette& palette) const {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(bounds, palette.color(QPalette::Base));
    const QColor text = palette.color(QPalette::Text);
    const QColor muted = shade(palette, 0.65);
    if (!hasChart()) {
        painter.setPen(muted);
        painter.drawText(bounds.adjusted(3 * kPad, 3 * kPad, -3 * kPad, -3 * kPad),
                         Qt::AlignCenter | Qt::TextWordWrap, empty_text_);
        painter.restore();
        return;
    }
    const Layout l = layoutFor(bounds, painter.font());
    const QFontMetricsF fm(painter.font());
    const GrowthMeasure measure = series_.measure;

    // Title: what is drawn, and of which process.
    QFont bold = painter.font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(text);
    const QString what = measure == GrowthMeasure::Objects ? tr("Objects per type") : tr("Shallow bytes per type");
    painter.drawText(l.title, Qt::AlignLeft | Qt::AlignTop, what);
    const double what_width = QFontMetricsF(bold).horizontalAdvance(what + QLatin1Char(' '));
    bold.setBold(false);
    painter.setFont(bold);
    const auto grown = std::count_if(series_.lines.begin(), series_.lines.end(),
                                       [&](const GrowthLine& line) { return line.growth(measure) > 0; });
    // Two lines, so a narrow tab still names the process in full.
    const QString types = grown == 1 ? tr("— the fastest growing type")
                                     : tr("— the %1 fastest growing types").arg(static_cast<qlonglong>(grown));
    const QString across = tr("across %1 snapshots of %2").arg(QString::number(series_.samples.size()), subject_);
    painter.setPen(muted);
    painter.drawText(l.title.adjusted(what_width, 0, 0, 0), Qt::AlignLeft | Qt::AlignTop,
                     fm.elidedText(types, Qt::ElideRight, l.title.width() - what_width));
    painter.drawText(l.title.adjusted(0, fm.lineSpacing(), 0, 0), Qt::AlignLeft | Qt::AlignTop,
                     fm.elidedText(across, Qt::ElideMiddle, l.title.width()));

    paintAxes(painter, l, bounds, palette);
    if (series_.lines.empty()) {
        painter.setPen(muted);
        painter.drawText(l.plot, Qt::AlignCenter | Qt::TextWordWrap,
                         tr("No type grew between the first and the last snapshot"));
    }

    paintLines(painter, l);
    paintLegend(painter, l, palette);
    painter.restore();
}

void GrowthChart::paintAxes(QPainter& painter, const Layout& l, const QRectF& bounds, const QPalette& palette) const {
    const QFontMetricsF fm(painter.font());
    const GrowthMeasure measure = series_.measure;
    const QColor muted = shade(palette, 0.65);
    const QColor faint = shade(palette, 0.18);
    painter.setPen(muted);
    // Y: grid lines with their values; the unit (and the type the axis
    // fits) above the axis.
    const double title_width = l.plot.right() - bounds.left() - kPad;
    painter.drawText(QRectF(bounds.left() + kPad, l.plot.top() - fm.height() / 2 - 2 - fm.lineSpacing(), title_width,
                            fm.lineSpacing()),
                     Qt::AlignLeft | Qt::AlignBottom, fm.elidedText(axisTitle(l.scaled), Qt::ElideRight, title_width));
    for (double v = 0; v <= l.y_max + l.y_step / 2; v += l.y_step) {
        const double y = l.at(l.x_min, v).y();
        painter.setPen(QPen(v == 0 ? muted : faint, 1));
        painter.drawLine(QPointF(l.plot.left(), y), QPointF(l.plot.right(), y));
        painter.setPen(muted);
        painter.drawText(QRectF(bounds.left(), y - fm.height() / 2, l.plot.left() - bounds.left() - 6, fm.height()),
                         Qt::AlignRight | Qt::AlignVCenter, value_text(measure, static_cast<uint64_t>(v)));
    }

    // X: time since the first snapshot, or the snapshots in order.
    const double label_top = l.plot.bottom() + 4;
    const auto x_label = [&](double x, const QString& label) {
        const QPointF p = l.at(x, 0);
        painter.setPen(QPen(muted, 1));
        painter.drawLine(p, p + QPointF(0, 3));
        painter.drawText(QRectF(p.x() - 60, label_top, 120, fm.height()), Qt::AlignHCenter | Qt::AlignTop, label);
    };
    QString x_title;
    if (series_.timed) {
        for (double x = 0; x <= l.x_max + l.x_step / 1000; x += l.x_step) {
            x_label(x, l.x_unit == 60 ? tr("%1 min").arg(x / 60) : tr("%1 s").arg(x));
        }
        x_title = l.x_unit == 60 ? tr("minutes since snapshot %1").arg(series_.shortLabel(0))
                                 : tr("seconds since snapshot %1").arg(series_.shortLabel(0));
    } else {
        const size_t n = series_.samples.size();
        const size_t fit = std::max<size_t>(1, static_cast<size_t>(l.plot.width() / 48));
        const size_t stride = (n + fit - 1) / fit;
        for (size_t i = 0; i < n; i += stride) x_label(series_.x(i), series_.shortLabel(i));
        x_title = tr("snapshot");
    }
    painter.setPen(muted);
    painter.drawText(QRectF(l.plot.left(), label_top + fm.lineSpacing(), l.plot.width(), fm.height()),
                     Qt::AlignHCenter | Qt::AlignTop, x_title);

    // The snapshot on screen.
    if (series_.current >= 0 && static_cast<size_t>(series_.current) < series_.samples.size()) {
        const double x = l.at(series_.x(static_cast<size_t>(series_.current)), 0).x();
        painter.setPen(QPen(muted, 1, Qt::DashLine));
        painter.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
        // Labelled on the inner side, never over the legend.
        const bool right_half = x > l.plot.center().x();
        const QRectF label(right_half ? x - 123 : x + 3, l.plot.top(), 120, fm.height());
        painter.drawText(label, (right_half ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop, tr("shown"));
    }

}

void GrowthChart::paintLines(QPainter& painter, const Layout& l) const {
    const GrowthMeasure measure = series_.measure;
    // Scaled to the chosen line, the bigger ones run off the top: cut there,
    // with room for the chosen line's width and markers at its peak.
    painter.save();
    if (l.scaled) painter.setClipRect(l.plot.adjusted(-kPad, -kPointRadius - 3, kPad, kPointRadius + 3));
    // Lines: the others first, dimmed when one is chosen; the chosen on top.
    const bool any_chosen = series_.chosenLine() != nullptr;
    for (const bool chosen_pass : {false, true}) {
        for (size_t i = 0; i < series_.lines.size(); ++i) {
            const GrowthLine& line = series_.lines[i];
            if (line.chosen != chosen_pass) continue;
            QColor colour = lineColor(static_cast<int>(i));
            if (any_chosen && !line.chosen) colour.setAlphaF(l.scaled ? 0.4 : 0.6);
            const double width = line.chosen ? 3.5 : (any_chosen ? 1.5 : 2.0);
            const std::vector<uint64_t>& values = line.values(measure);
            QPainterPath path;
            for (size_t s = 0; s < values.size(); ++s) {
                const QPointF p = l.at(series_.x(s), static_cast<double>(values[s]));
                if (s == 0) path.moveTo(p); else path.lineTo(p);
            }
            painter.setPen(QPen(colour, width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
            painter.setBrush(Qt::NoBrush);
            painter.drawPath(path);
            // A live session's hundreds of points would be a smear of dots:
            // markers only while they are apart (hovering still tells values).
            if (l.plot.width() < 3 * kPointRadius * static_cast<double>(values.size())) continue;
            painter.setBrush(colour);
            painter.setPen(Qt::NoPen);
            const double r = line.chosen ? kPointRadius + 1.5 : kPointRadius;
            for (size_t s = 0; s < values.size(); ++s) {
                painter.drawEllipse(l.at(series_.x(s), static_cast<double>(values[s])), r, r);
            }
        }
    }
    painter.restore();
}

void GrowthChart::paintLegend(QPainter& painter, const Layout& l, const QPalette& palette) const {
    const QFontMetricsF fm(painter.font());
    const QColor text = palette.color(QPalette::Text);
    const QColor muted = shade(palette, 0.65);
    const bool any_chosen = series_.chosenLine() != nullptr;
    // Legend: colour, name, growth from first to last.
    for (size_t i = 0; i < series_.lines.size() && i < l.entries.size(); ++i) {
        const GrowthLine& line = series_.lines[i];
        const QRectF entry = l.entries[i];
        if (entry.isEmpty()) continue;  // gave way to the chosen one
        QColor colour = lineColor(static_cast<int>(i));
        if (any_chosen && !line.chosen) colour.setAlphaF(0.45);
        painter.setPen(Qt::NoPen);
        painter.setBrush(colour);
        painter.drawRoundedRect(QRectF(entry.left(), entry.top() + fm.height() / 2 - 5, 14, line.chosen ? 10 : 6), 2, 2);
        QFont name_font = painter.font();
        name_font.setBold(line.chosen);
        painter.setFont(name_font);
        painter.setPen(any_chosen && !line.chosen ? muted : text);
        const QRectF name_box(entry.left() + 20, entry.top(), entry.width() - 20, fm.height());
        painter.drawText(name_box, Qt::AlignLeft | Qt::AlignTop,
                         QFontMetricsF(name_font).elidedText(to_qstring(line.type), Qt::ElideMiddle, name_box.width()));
        name_font.setBold(false);
        painter.setFont(name_font);
        painter.setPen(muted);
        painter.drawText(name_box.translated(0, fm.lineSpacing()), Qt::AlignLeft | Qt::AlignTop,
                         fm.elidedText(legendDetail(line), Qt::ElideRight, name_box.width()));
    }
    if (l.hidden > 0) {
        painter.setPen(muted);
        // Their lines still tell their names when hovered.
        const QString more = l.hidden == 1 ? tr("… 1 more type")
                                           : tr("… %1 more types").arg(static_cast<qulonglong>(l.hidden));
        painter.drawText(l.more.adjusted(20, 0, 0, 0), Qt::AlignLeft | Qt::AlignTop,
                         fm.elidedText(more, Qt::ElideRight, l.more.width() - 20));
    }
}

QString GrowthChart::axisTitle(bool scaled) const {
    const QString unit = series_.measure == GrowthMeasure::Objects ? tr("objects") : tr("shallow bytes");
    const GrowthLine* chosen = series_.chosenLine();
    if (!scaled || !chosen) return unit;
    // The type first: cut short, the title loses the explanation, not it.
    return tr("%1, scaled to %2 (bigger types run off the top)").arg(unit, to_qstring(chosen->type));
}

void GrowthChart::setFitChosen(bool fit) {
    if (fit == fit_chosen_) return;
    fit_chosen_ = fit;
    update();
}

double GrowthChart::yAxisTop() const {
    if (!hasChart()) return 0;
    return layoutFor(QRectF(rect()), font()).y_max;
}

QString GrowthChart::legendDetail(const GrowthLine& line) const {
    return growth_text(series_.measure, line.growth(series_.measure)) + (line.chosen ? tr(" (chosen)") : QString());
}

void GrowthChart::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    paintChart(painter, QRectF(rect()), palette());
}

bool GrowthChart::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(event);
}

QString GrowthChart::toolTipAt(const QPointF& position) const {
    if (!hasChart()) return {};
    const Layout l = layoutFor(QRectF(rect()), font());
    const GrowthMeasure measure = series_.measure;
    const GrowthLine* best = nullptr;
    size_t best_sample = 0;
    double best_distance = kHoverDistance;
    for (const GrowthLine& line : series_.lines) {
        const std::vector<uint64_t>& values = line.values(measure);
        for (size_t s = 0; s < values.size(); ++s) {
            const QPointF point = l.at(series_.x(s), static_cast<double>(values[s]));
            if (!l.shows(point)) continue;  // clipped off the top
            const QPointF d = point - position;
            const double distance = std::hypot(d.x(), d.y());
            // The chosen line wins a tie: it is drawn on top.
            if (distance < best_distance || (distance == best_distance && line.chosen)) {
                best = &line;
                best_sample = s;
                best_distance = distance;
            }
        }
    }
    if (!best) return {};
    const int64_t objects_since = static_cast<int64_t>(best->objects[best_sample]) - static_cast<int64_t>(best->objects[0]);
    const int64_t bytes_since = static_cast<int64_t>(best->bytes[best_sample]) - static_cast<int64_t>(best->bytes[0]);
    return tr("<b>%1</b><br>%2<br>%3 objects, %4<br>%5 objects, %6 since %7")
        .arg(to_qstring(best->type).toHtmlEscaped(), series_.samples[best_sample].label.toHtmlEscaped(),
             count_text(best->objects[best_sample]), bytes_text(best->bytes[best_sample]),
             signed_count_text(objects_since), signed_bytes_text(bytes_since), series_.shortLabel(0));
}

QPointF GrowthChart::pointPosition(size_t line, size_t sample) const {
    if (!hasChart() || line >= series_.lines.size() || sample >= series_.samples.size()) return {};
    const Layout l = layoutFor(QRectF(rect()), font());
    const QPointF point = l.at(series_.x(sample), static_cast<double>(series_.lines[line].values(series_.measure)[sample]));
    return l.shows(point) ? point : QPointF();
}

QRectF GrowthChart::legendEntry(size_t line) const {
    if (!hasChart()) return {};
    const Layout l = layoutFor(QRectF(rect()), font());
    return line < l.entries.size() ? l.entries[line] : QRectF();
}

void GrowthChart::mousePressEvent(QMouseEvent* event) {
    if (hasChart() && event->button() == Qt::LeftButton) {
        const Layout l = layoutFor(QRectF(rect()), font());
        for (size_t i = 0; i < l.entries.size() && i < series_.lines.size(); ++i) {
            if (l.entries[i].contains(event->position())) {
                emit typeClicked(to_qstring(series_.lines[i].type));
                return;
            }
        }
    }
    QWidget::mousePressEvent(event);
}

bool GrowthChart::exportTo(const QString& path, QString* error, QSize size) const {
    const auto fail = [&](const QString& message) {
        if (error) *error = message;
        return false;
    };
    if (!hasChart()) return fail(tr("Nothing to export: open or take a second snapshot of this process first."));
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QRectF bounds(QPointF(0, 0), QSizeF(size));
    if (suffix == QLatin1String("png")) {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        painter.setFont(font());
        paintChart(painter, bounds, palette());
        painter.end();
        if (!image.save(path, "PNG")) return fail(tr("Cannot write %1").arg(path));
        return true;
    }
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setViewBox(bounds);
        svg.setTitle(tr("Growth of the top types of %1").arg(subject_));
        svg.setDescription(tr("refscope growth chart"));
        QPainter painter;
        if (!painter.begin(&svg)) return fail(tr("Cannot write %1").arg(path));
        painter.setFont(font());
        paintChart(painter, bounds, palette());
        if (!painter.end() || !QFileInfo(path).isFile()) return fail(tr("Cannot write %1").arg(path));
        return true;
    }
    return fail(tr("Cannot tell the format from '%1': use .png or .svg").arg(QFileInfo(path).fileName()));
}

}  // namespace refscope::app

// The growth chart in the real window, headless (issue 16, item 5): three
// snapshots of one process are opened; the Growth tab draws one line per
// growing type with the snapshots' own counts, the fastest growing first;
// choosing a leak suspect highlights its type; a fourth snapshot arriving as
// a live session delivers it (LiveControls opens each saved snapshot with
// MainWindow::openFiles) extends every line; PNG and SVG exports are valid
// files. A screenshot at 1280×800 is left in the build folder. A live
// session's snapshots beyond LiveControls' open limit keep their points (the
// chart has one per snapshot taken, not one per snapshot still open), and a
// person closing the process's snapshots takes them away. A small leaking
// type next to a big one is readable once chosen (the axis fits it), and its
// legend entry shows even when the legend is taller than the chart.
#include <QApplication>
#include <QFile>
#include <QMenuBar>
#include <QSvgRenderer>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <map>
#include <string>

#include "models/suspects_model.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "refscope/format/snapshot_io.h"
#include "session/live_session.h"
#include "session/snapshot_timeline.h"
#include "session_fixtures.h"
#include "snapshot_builder.h"
#include "window/growth_chart.h"
#include "window/growth_panel.h"
#include "window/live_controls.h"
#include "window/main_window.h"
#include "window/suspects_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;

namespace {


// Checks every line of the panel's series against the snapshots' own counts
// and that the lines come most growth first.
void check_values(const GrowthSeries& series, const std::vector<Snapshot>& snapshots) {
    QCOMPARE(series.samples.size(), snapshots.size());
    QVERIFY(!series.lines.empty());
    for (size_t i = 0; i < series.lines.size(); ++i) {
        const GrowthLine& line = series.lines[i];
        for (size_t s = 0; s < snapshots.size(); ++s) {
            const auto counted = testing::tally_types(snapshots[s]);
            const auto found = counted.find(line.type);
            QCOMPARE(line.objects[s], found == counted.end() ? 0 : found->second.first);
            QCOMPARE(line.bytes[s], found == counted.end() ? 0 : found->second.second);
        }
        if (i > 0 && !line.chosen) QVERIFY(series.lines[i - 1].growth(series.measure) >= line.growth(series.measure));
    }
}

// The trial's pandas case, snapshot `k` (0, 1, 2) of one process: 50,000
// tuples and a few more each time next to a leak of 40, 70, 100
// ReportError, plus eight app.Blob types that each grow by 10 objects of
// 1000 bytes. In objects ReportError is the second fastest growing type; in
// bytes it is not among the top eight (each Blob type outgrows it), so when
// chosen its line and legend entry come ninth.
Snapshot pandas_like(uint32_t k) {
    testing::SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app", 64);
    const uint32_t globals = b.node("dict", 1, {}, 640);
    b.root(module, format::RootKind::Interpreter, "sys.modules['app']");
    b.edge(module, globals, format::EdgeKind::Field, b.string_id("__dict__"));
    const auto held = [&](const std::string& type, uint32_t count, uint64_t size) {
        const uint32_t list = b.node("list", 1, {}, 56 + 8 * count);
        b.edge(globals, list, format::EdgeKind::DictValue, b.str(type));
        for (uint32_t i = 0; i < count; ++i) {
            b.edge(list, b.node(type, 1, {}, size, format::kNodeGcTracked, "app"), format::EdgeKind::Index, i);
        }
    };
    held("tuple", 50'000 + 500 * k, 64);
    held("ReportError", 40 + 30 * k, 100);
    for (int t = 0; t < 8; ++t) held("app.Blob" + std::to_string(t), 10 + 5 * k, 1000);
    Snapshot s = b.build();
    s.header.pid = 4711;
    s.header.executable = "/usr/bin/python3";
    s.header.sequence = k + 1;
    s.header.time_unix_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(k) * 1'000'000'000;
    return s;
}

size_t line_of_type(const GrowthSeries& series, const std::string& type) {
    for (size_t i = 0; i < series.lines.size(); ++i) {
        if (series.lines[i].type == type) return i;
    }
    return series.lines.size();
}

}  // namespace

class GrowthWindowTest : public QObject {
    Q_OBJECT
private slots:
    void growthIsDrawnHighlightedUpdatedAndExported();
    void oneSnapshotOfAProcessSaysWhatToDo();
    void liveSessionBeyondTheOpenLimitKeepsEveryPoint();
    void snapshotsClosedWhileBeingCountedKeepTheirPoints();
    void aSmallChosenTypeIsReadableNextToABigOne();
};

void GrowthWindowTest::growthIsDrawnHighlightedUpdatedAndExported() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::vector<Snapshot> snapshots;
    QStringList files;
    for (uint32_t i = 0; i < 4; ++i) {
        snapshots.push_back(testing::make_registry_snapshot(10 + 100 * i * i, i + 1));
        files << dir.filePath(QStringLiteral("s%1.rscope").arg(i + 1));
        format::write_snapshot_file(snapshots.back(), files.back().toStdString());
    }

    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.openFiles(files.mid(0, 3));
    QVERIFY(testing::wait_settled(window));
    QVERIFY(window.loadErrors().isEmpty());
    Workspace* w = window.workspace();
    GrowthPanel* panel = w->growthPanel();
    w->showPanel(Workspace::Panel::Growth);
    QCOMPARE(testing::find<QTabWidget>(window, "groupTabs")->currentWidget(), static_cast<QWidget*>(panel));

    // Bytes first: str (a key and a token per session) outgrows app.Session.
    std::vector<Snapshot> first_three(snapshots.begin(), snapshots.begin() + 3);
    QVERIFY(panel->chart()->hasChart());
    QCOMPARE(panel->series().measure, GrowthMeasure::Bytes);
    check_values(panel->series(), first_three);
    QCOMPARE(panel->series().lines.size(), size_t{2});  // only two types grow
    QCOMPARE(panel->series().lines[0].type, std::string("str"));
    QCOMPARE(panel->series().current, 2);  // the newest is shown
    QVERIFY(panel->series().timed);

    // Objects: the switch in the panel's bar.
    QTest::mouseClick(testing::find<QToolButton>(window, "growthObjects"), Qt::LeftButton);
    QCOMPARE(panel->series().measure, GrowthMeasure::Objects);
    check_values(panel->series(), first_three);
    const auto session_line = [&]() -> const GrowthLine* {
        for (const GrowthLine& line : panel->series().lines) {
            if (line.type == "app.Session") return &line;
        }
        return nullptr;
    };
    QVERIFY(session_line());
    QCOMPARE(session_line()->objects, (std::vector<uint64_t>{10, 110, 410}));

    // Choosing a suspect highlights its type.
    QVERIFY(!panel->series().chosenLine());
    QVERIFY(window.selectTopSuspect());
    QVERIFY(testing::wait_settled(window));
    const analysis::SuspectGroup* top = w->suspectsPanel()->model()->groupAt(0);
    QVERIFY(top);
    // Copied: the ranking (and `top`) is replaced when the next snapshot arrives.
    const std::string top_type = top->type;
    QCOMPARE(panel->chosenType(), QString::fromStdString(top->type));
    QVERIFY(panel->series().chosenLine());
    QCOMPARE(panel->series().chosenLine()->type, top->type);
    for (const GrowthLine& line : panel->series().lines) QCOMPARE(line.chosen, line.type == top->type);

    // A fourth snapshot arrives, as a live session's does: every line grows a point.
    window.openFiles({files[3]});
    QVERIFY(testing::wait_settled(window));
    QCOMPARE(window.timeline()->count(), 4);
    check_values(panel->series(), snapshots);
    QCOMPARE(session_line()->objects, (std::vector<uint64_t>{10, 110, 410, 910}));
    QCOMPARE(panel->series().current, 3);
    // The chosen line survives the arrival (it was reset with every live snapshot).
    QCOMPARE(panel->chosenType(), QString::fromStdString(top_type));

    // Clicking app.Session's legend entry chooses it; hovering its newest
    // point tells the exact values.
    w->showPanel(Workspace::Panel::Growth);
    GrowthChart* chart = panel->chart();
    QVERIFY(chart->isVisible());
    size_t session_index = 0;
    while (panel->series().lines[session_index].type != "app.Session") ++session_index;
    QTest::mouseClick(chart, Qt::LeftButton, {}, chart->legendEntry(session_index).center().toPoint());
    QCOMPARE(panel->chosenType(), QStringLiteral("app.Session"));
    QCOMPARE(panel->series().chosenLine()->type, std::string("app.Session"));
    const QString tip = chart->toolTipAt(chart->pointPosition(session_index, 3) + QPointF(2, 1));
    QVERIFY2(tip.contains(QLatin1String("app.Session")) && tip.contains(QLatin1String("910 objects")) &&
                 tip.contains(QLatin1String("after 910 logins")) && tip.contains(QLatin1String("+900 objects")),
             qPrintable(tip));
    QVERIFY(chart->toolTipAt(QPointF(1, 1)).isEmpty());

    // Exports: PNG at the export size, SVG that parses and names the types.
    QAction* export_action = nullptr;
    for (QAction* action : window.menuBar()->actions().front()->menu()->actions()) {
        if (action == panel->exportAction()) export_action = action;
    }
    QVERIFY2(export_action, "File ▸ Export Growth Chart… is missing");
    QVERIFY(export_action->isEnabled());
    const QString png = dir.filePath(QStringLiteral("growth.png"));
    const QString svg = dir.filePath(QStringLiteral("growth.svg"));
    QString error;
    QVERIFY2(panel->exportTo(png, &error), qPrintable(error));
    QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), GrowthChart::kExportSize);
    QVERIFY2(panel->exportTo(svg, &error), qPrintable(error));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QFile svg_file(svg);
    QVERIFY(svg_file.open(QIODevice::ReadOnly));
    const QByteArray svg_text = svg_file.readAll();
    for (const GrowthLine& line : panel->series().lines) QVERIFY2(svg_text.contains(line.type.c_str()), line.type.c_str());
    QVERIFY(svg_text.contains("(chosen)"));
    QVERIFY(!panel->exportTo(dir.filePath(QStringLiteral("growth.gif")), &error));
    QVERIFY(error.contains(QLatin1String(".png or .svg")));

    // What a person sees at 1280×800 (looked at by hand; kept with the
    // export at the chart's own size).
    w->showPanel(Workspace::Panel::Growth);
    QVERIFY(testing::wait_settled(window));
    QVERIFY(window.grab().save(testing::output_file("growth-window.png")));
    QVERIFY(panel->exportTo(testing::output_file("growth-chart.png")));
    // Bytes, on a dark palette: the axes and text follow the palette.
    QTest::mouseClick(testing::find<QToolButton>(window, "growthBytes"), Qt::LeftButton);
    QCOMPARE(panel->series().measure, GrowthMeasure::Bytes);
    QPalette dark = chart->palette();
    dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x24));
    dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
    chart->setPalette(dark);
    QVERIFY(panel->exportTo(testing::output_file("growth-chart-dark-bytes.png")));
    QCOMPARE(QImage(testing::output_file("growth-chart-dark-bytes.png")).pixelColor(2, 2), dark.color(QPalette::Base));
}

void GrowthWindowTest::oneSnapshotOfAProcessSaysWhatToDo() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString first = dir.filePath(QStringLiteral("a1.rscope"));
    const QString other = dir.filePath(QStringLiteral("other.rscope"));
    const QString second = dir.filePath(QStringLiteral("a2.rscope"));
    format::write_snapshot_file(testing::make_registry_snapshot(10, 1), first.toStdString());
    format::write_snapshot_file(testing::make_registry_snapshot(50, 1, 4242), other.toStdString());
    format::write_snapshot_file(testing::make_registry_snapshot(30, 2), second.toStdString());

    MainWindow window;
    window.show();
    GrowthPanel* panel = window.workspace()->growthPanel();
    window.openFiles({first});
    QVERIFY(testing::wait_settled(window));
    QVERIFY(!panel->chart()->hasChart());
    QVERIFY(panel->chart()->emptyText().contains(QLatin1String("second snapshot of this process")));
    QVERIFY(!panel->exportAction()->isEnabled());
    QString error;
    QVERIFY(!panel->exportTo(dir.filePath(QStringLiteral("none.png")), &error));
    QVERIFY(!error.isEmpty());

    // Another process's snapshot is not this process's growth.
    window.openFiles({other});
    QVERIFY(testing::wait_settled(window));
    QCOMPARE(window.timeline()->count(), 2);
    QVERIFY(!panel->chart()->hasChart());

    window.openFiles({second});
    QVERIFY(testing::wait_settled(window));
    QVERIFY(panel->chart()->hasChart());
    QCOMPARE(panel->series().samples.size(), size_t{2});
    QVERIFY(panel->exportAction()->isEnabled());

    // Closing one of the two leaves one: the sentence again.
    window.closeCurrent();
    QVERIFY(testing::wait_settled(window));
    window.timeline()->setCurrent(window.timeline()->findByPath(first));
    QVERIFY(!panel->chart()->hasChart());
}

void GrowthWindowTest::liveSessionBeyondTheOpenLimitKeepsEveryPoint() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // More snapshots of one process than LiveControls keeps open.
    constexpr uint32_t kTaken = LiveControls::kDefaultOpenSnapshotLimit + 3;
    std::vector<Snapshot> snapshots;
    QStringList files;
    for (uint32_t i = 0; i < kTaken; ++i) {
        snapshots.push_back(testing::make_registry_snapshot(10 + 20 * i, i + 1));
        files << dir.filePath(QStringLiteral("s%1.rscope").arg(i + 1));
        format::write_snapshot_file(snapshots.back(), files.back().toStdString());
    }
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    LiveControls* live = window.live();
    QCOMPARE(live->openSnapshotLimit(), LiveControls::kDefaultOpenSnapshotLimit);
    GrowthPanel* panel = window.workspace()->growthPanel();
    window.workspace()->showPanel(Workspace::Panel::Growth);
    SnapshotTimeline* timeline = window.timeline();
    for (uint32_t i = 0; i < kTaken; ++i) {
        // As the live session hands over a saved snapshot: LiveControls opens
        // it, then closes the oldest beyond its limit.
        emit live->session()->snapshotSaved(1, files[int(i)]);
        QVERIFY(testing::wait_settled(window));
        QVERIFY(window.loadErrors().isEmpty());
        QCOMPARE(timeline->count(), std::min(int(i) + 1, live->openSnapshotLimit()));
        if (i > 0) QCOMPARE(panel->series().samples.size(), size_t{i + 1});
    }
    QVERIFY(!timeline->findByPath(files[1]));  // closed by the limit

    // A point per snapshot taken, each with that snapshot's own counts, on
    // its own time and sequence number (most analyses are gone).
    const GrowthSeries& series = panel->series();
    QVERIFY(panel->chart()->hasChart());
    check_values(series, snapshots);
    QVERIFY(series.timed);
    for (uint32_t i = 0; i < kTaken; ++i) {
        QCOMPARE(series.x(i), double(i));  // the fixture's snapshots are 1 s apart
        QCOMPARE(series.shortLabel(i), QStringLiteral("#%1").arg(i + 1));
        QVERIFY2(series.samples[i].label.contains(QStringLiteral("s%1.rscope").arg(i + 1)), qPrintable(series.samples[i].label));
    }
    QCOMPARE(series.current, int(kTaken) - 1);
    const QString process = SnapshotTimeline::processKey(snapshots.front());
    QCOMPARE(panel->history().count(process), size_t{kTaken} - size_t(live->openSnapshotLimit()));
    QVERIFY(window.grab().save(testing::output_file("growth-window-live.png")));

    // A person closes the newest (File ▸ Close Snapshot): its point goes, the
    // points of the snapshots the limit closed stay.
    window.closeCurrent();
    QVERIFY(testing::wait_settled(window));
    QCOMPARE(panel->series().samples.size(), size_t{kTaken} - 1);
    QCOMPARE(panel->series().samples.back().sequence, uint64_t{kTaken} - 1);
    // ... then the others, one by one; with the last, the whole history goes.
    while (timeline->count() > 1) {
        const size_t before = panel->series().samples.size();
        window.closeCurrent();
        QVERIFY(testing::wait_settled(window));
        QCOMPARE(panel->series().samples.size(), before - 1);
    }
    QVERIFY(panel->history().count(process) > 0);
    window.closeCurrent();
    QVERIFY(testing::wait_settled(window));
    QCOMPARE(timeline->count(), 0);
    QCOMPARE(panel->history().count(process), size_t{0});
    // Opening two of them again draws those two, not the old points.
    window.openFiles({files[0], files[int(kTaken) - 1]});
    QVERIFY(testing::wait_settled(window));
    QCOMPARE(panel->series().samples.size(), size_t{2});
}

void GrowthWindowTest::snapshotsClosedWhileBeingCountedKeepTheirPoints() {
    // The panel on a timeline of its own: the live limit closes two snapshots
    // before any count is delivered (the event loop has not run since they
    // opened), and nothing but the counting request holds them any more.
    SnapshotTimeline timeline;
    GrowthPanel panel;
    panel.setTimeline(&timeline);
    std::vector<Snapshot> expected;
    std::vector<AnalysisPtr> analyses;
    for (uint32_t i = 0; i < 3; ++i) {
        const uint32_t sessions = 100'000 + 10'000 * i;  // a count takes a while
        expected.push_back(testing::make_registry_snapshot(sessions, i + 1));
        analyses.push_back(analysis::SnapshotAnalysis::analyse(testing::make_registry_snapshot(sessions, i + 1),
                                                               analysis::AnalysisOptions::snapshot_only()));
    }
    // Opened and closed in one go: the counts of the first two are in
    // flight or queued when they close.
    for (const AnalysisPtr& analysis : analyses) timeline.add(analysis);
    QVERIFY(panel.busy());
    timeline.remove(analyses[0], SnapshotTimeline::CloseReason::Bounded);
    timeline.remove(analyses[1], SnapshotTimeline::CloseReason::Bounded);
    analyses.clear();
    QCOMPARE(timeline.count(), 1);
    QVERIFY(QTest::qWaitFor([&] { return !panel.busy(); }, 60'000));
    // Their counts finished and their points were kept.
    check_values(panel.series(), expected);
    QCOMPARE(panel.series().current, 2);
    // A person closing the last open snapshot of the process ends it all.
    timeline.remove(timeline.at(0));
    QVERIFY(QTest::qWaitFor([&] { return !panel.busy(); }, 60'000));
    QCOMPARE(panel.history().count(SnapshotTimeline::processKey(expected.front())), size_t{0});
    QVERIFY(!panel.chart()->hasChart());
}

// The pandas trial: the leaking ReportError (40 → 100) lay flat on zero
// next to 50,000 tuples; chosen, the axis fits it. Its legend entry was cut
// off at 1280×800 when it came ninth. The points are gathered once per data
// change: choosing a type or a measure does not gather them again (here:
// the symbolic links the snapshots were opened through are gone by then,
// and the points keep the paths they resolved to).
void GrowthWindowTest::aSmallChosenTypeIsReadableNextToABigOne() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QStringList links;
    for (uint32_t k = 0; k < 3; ++k) {
        const QString file = dir.filePath(QStringLiteral("p%1.rscope").arg(k));
        format::write_snapshot_file(pandas_like(k), file.toStdString());
        links << dir.filePath(QStringLiteral("link%1.rscope").arg(k));
        QVERIFY(QFile::link(file, links.back()));
    }
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.openFiles(links);
    QVERIFY(testing::wait_settled(window));
    QVERIFY(window.loadErrors().isEmpty());
    GrowthPanel* panel = window.workspace()->growthPanel();
    window.workspace()->showPanel(Workspace::Panel::Growth);
    QVERIFY(testing::wait_settled(window));
    GrowthChart* chart = panel->chart();
    QVERIFY(chart->hasChart());
    QStringList paths;
    for (const GrowthSample& sample : panel->series().samples) paths << sample.path;
    QVERIFY(paths.front().endsWith(QLatin1String("p0.rscope")));
    for (const QString& link : links) QVERIFY(QFile::remove(link));

    // Objects: ReportError comes second; nothing chosen, the axis fits the tuples.
    auto* fit = testing::find<QToolButton>(window, "growthFitChosen");
    QVERIFY(fit && fit->isChecked() && !fit->isEnabled());
    QTest::mouseClick(testing::find<QToolButton>(window, "growthObjects"), Qt::LeftButton);
    size_t error_line = line_of_type(panel->series(), "ReportError");
    const size_t tuple_line = line_of_type(panel->series(), "tuple");
    QCOMPARE(error_line, size_t{1});
    QCOMPARE(tuple_line, size_t{0});
    QVERIFY(chart->yAxisTop() >= 51'000);
    const auto rise = [&](size_t line) { return chart->pointPosition(line, 0).y() - chart->pointPosition(line, 2).y(); };
    QVERIFY2(rise(error_line) < 2, qPrintable(QString::number(rise(error_line))));  // flat on zero

    // Clicking its legend entry chooses it: the axis fits it, its rise
    // spans much of the plot, the tuples run off the top.
    QTest::mouseClick(chart, Qt::LeftButton, {}, chart->legendEntry(error_line).center().toPoint());
    QCOMPARE(panel->chosenType(), QStringLiteral("ReportError"));
    QVERIFY(chart->scaledToChosen());
    QVERIFY(fit->isEnabled());
    QVERIFY2(chart->yAxisTop() >= 100 && chart->yAxisTop() <= 200, qPrintable(QString::number(chart->yAxisTop())));
    QVERIFY2(rise(error_line) > chart->height() / 5.0, qPrintable(QString::number(rise(error_line))));
    QVERIFY(chart->pointPosition(tuple_line, 2).isNull());  // clipped: no point to hover
    const QString tip = chart->toolTipAt(chart->pointPosition(error_line, 2));
    QVERIFY2(tip.contains(QLatin1String("ReportError")) && tip.contains(QLatin1String("100 objects")), qPrintable(tip));
    // Fit Chosen off: the axis fits every type again, the choice stays.
    QTest::mouseClick(fit, Qt::LeftButton);
    QVERIFY(!chart->scaledToChosen());
    QVERIFY(chart->yAxisTop() >= 51'000);
    QVERIFY(panel->series().chosenLine());
    QTest::mouseClick(fit, Qt::LeftButton);
    QVERIFY(chart->scaledToChosen());

    // Bytes: eight types outgrow it, so its line comes ninth, after more
    // entries than the legend has room for at 1280×800: its entry shows,
    // whole, inside the chart, and clicking it keeps it chosen.
    QTest::mouseClick(testing::find<QToolButton>(window, "growthBytes"), Qt::LeftButton);
    error_line = line_of_type(panel->series(), "ReportError");
    QCOMPARE(error_line, size_t{8});
    QVERIFY(panel->series().lines[error_line].chosen);
    const QRectF entry = chart->legendEntry(error_line);
    QVERIFY2(!entry.isEmpty() && QRectF(chart->rect()).contains(entry),
             qPrintable(QStringLiteral("entry %1,%2 %3x%4 in a chart of %5x%6")
                            .arg(entry.x()).arg(entry.y()).arg(entry.width()).arg(entry.height())
                            .arg(chart->width()).arg(chart->height())));
    size_t hidden = 0;
    for (size_t i = 0; i < panel->series().lines.size(); ++i) {
        const QRectF other = chart->legendEntry(i);
        if (other.isEmpty()) ++hidden; else QVERIFY(QRectF(chart->rect()).contains(other));
    }
    QVERIFY(hidden > 0);  // the legend really was too tall for this chart
    QVERIFY(chart->scaledToChosen());
    QVERIFY2(chart->yAxisTop() < 20 * 1024, qPrintable(QString::number(chart->yAxisTop())));
    QVERIFY(window.grab().save(testing::output_file("growth-window-chosen-small.png")));

    // Neither the measure nor the choice gathered the points again.
    QStringList after;
    for (const GrowthSample& sample : panel->series().samples) after << sample.path;
    QCOMPARE(after, paths);
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    GrowthWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "growth_window_test.moc"

// The real-program tier in the real window, headless (issue 16, "Done
// when"): one of tests/realprograms/programs, run with a planted leak, is
// opened at 1280×800 as a first-time user would, and the test checks what
// that user needs without scrolling sideways or zooming the graph by hand:
// the first Leak Suspects row is the planted leak's type with its key
// columns in view, the Path panel names the container it accumulates in,
// the graph opens at a readable zoom on it, following a link of the path and
// going Back (Alt+Left) returns to it, and the Growth tab (Alt+0) draws the
// leaking type's line rising. A screenshot per program is kept in the build
// folder.
//
// Run by tests/realprograms/test_real_programs_window.py, which runs the
// program and passes, through the environment:
//   REFSCOPE_REAL_NAME        the program's name (the screenshot's)
//   REFSCOPE_REAL_LEAK_TYPE   the type that leaks, REFSCOPE_REAL_LEAK_HOLDER
//                             the holder it accumulates in (programs' LEAKS)
//   REFSCOPE_REAL_SNAPSHOTS   baseline, after and third, joined by ':'
// or, for a live session, instead of REFSCOPE_REAL_SNAPSHOTS:
//   REFSCOPE_REAL_LIVE        "PYTHON PROGRAM LEAK": the window listens, runs
//                             the program connected to it (--live: it waits
//                             at each snapshot point) and takes its three
//                             snapshots with Collect & Snapshot.
// Without them there is nothing to check: the test skips.
#include <QDockWidget>
#include <QApplication>
#include <QProcess>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QToolButton>
#include <QtTest>

#include "graph/graph_items.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "models/suspects_model.h"
#include "session/live_session.h"
#include "session/snapshot_timeline.h"
#include "window/growth_chart.h"
#include "window/growth_panel.h"
#include "window/live_controls.h"
#include "window/main_window.h"
#include "window/path_panel.h"
#include "window/suspects_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;

namespace {

QString env(const char* name) { return qEnvironmentVariable(name); }

// The node links of the path panel ("refscope:node/<id>"), in order, each
// with the document position of its first character.
std::vector<std::pair<uint32_t, int>> node_links(const QTextBrowser& browser) {
    std::vector<std::pair<uint32_t, int>> links;
    const QString prefix = QStringLiteral("refscope:node/");
    for (QTextBlock block = browser.document()->begin(); block.isValid(); block = block.next()) {
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            const QString href = fragment.charFormat().anchorHref();
            if (!href.startsWith(prefix)) continue;
            bool ok = false;
            const uint32_t node = href.mid(prefix.size()).toUInt(&ok);
            if (ok && (links.empty() || links.back().first != node)) links.emplace_back(node, fragment.position());
        }
    }
    return links;
}

// Clicks the link at document position `at` of `browser` as a mouse does.
void click_link(QTextBrowser& browser, int at) {
    QTextCursor cursor(browser.document());
    cursor.setPosition(at + 1);  // inside the anchor, not at its edge
    browser.setTextCursor(cursor);
    browser.ensureCursorVisible();
    const QPoint point = browser.cursorRect(cursor).center();
    QTest::mouseClick(browser.viewport(), Qt::LeftButton, {}, point);
}

// Runs the program of REFSCOPE_REAL_LIVE connected to the window and takes
// its three snapshots from the window, each when the program says it is at
// a snapshot point. "" on success, else what went wrong.
QString stream_live(MainWindow& window, const QTemporaryDir& dir) {
    const QStringList live = env("REFSCOPE_REAL_LIVE").split(QLatin1Char(' '));
    if (live.size() != 3) return QStringLiteral("REFSCOPE_REAL_LIVE wants PYTHON PROGRAM LEAK");
    window.live()->setSessionDir(dir.filePath(QStringLiteral("session")));
    if (!window.live()->startListening(/*quiet=*/true)) return QStringLiteral("could not listen");
    LiveSession* session = window.live()->session();
    QProcess program;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("REFSCOPE_CONNECT"), session->address());
    environment.insert(QStringLiteral("REFSCOPE_TOKEN_FILE"), session->tokenFile());
    program.setProcessEnvironment(environment);
    program.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    program.start(live[0], {live[1], dir.path(), QStringLiteral("--leak"), live[2], QStringLiteral("--live")});
    if (!program.waitForStarted()) return QStringLiteral("could not start ") + live[0];
    const auto finish = [&](const QString& error) {
        if (program.state() != QProcess::NotRunning) {
            program.kill();
            program.waitForFinished();
        }
        return error;
    };
    for (int taken = 1; taken <= 3; ++taken) {
        // The program's next snapshot point: {"event": "snapshot", ...}.
        bool reached = false;
        const bool at_point = QTest::qWaitFor([&] {
            while (program.canReadLine()) {
                if (program.readLine().contains("\"event\": \"snapshot\"")) return reached = true;
            }
            return program.state() == QProcess::NotRunning;
        }, 120'000);
        if (!at_point || !reached) {
            return finish(QStringLiteral("the program did not reach snapshot point %1").arg(taken));
        }
        const bool connected = QTest::qWaitFor([&] {
            return !session->processes().empty() && session->processes().back().pid == program.processId();
        }, 20'000);
        if (!connected) return finish(QStringLiteral("the program did not connect"));
        auto* collect = testing::find<QPushButton>(window, "collectSnapshot");
        if (!collect || !collect->isEnabled()) return finish(QStringLiteral("Collect & Snapshot is not enabled"));
        collect->click();
        if (!QTest::qWaitFor([&] { return window.timeline()->count() >= taken; }, 120'000) ||
            !testing::wait_settled(window)) {
            return finish(QStringLiteral("snapshot %1 did not open in the window").arg(taken));
        }
        program.write("\n");  // on to the next round of work
    }
    if (!QTest::qWaitFor([&] { return program.state() == QProcess::NotRunning; }, 60'000)) {
        return finish(QStringLiteral("the program did not end"));
    }
    if (program.exitStatus() != QProcess::NormalExit || program.exitCode() != 0) {
        return QStringLiteral("the program failed (%1)").arg(program.exitCode());
    }
    return {};
}

}  // namespace

class RealProgramWindowTest : public QObject {
    Q_OBJECT
private slots:
    void aFirstTimeUserFindsTheLeak();
};

void RealProgramWindowTest::aFirstTimeUserFindsTheLeak() {
    const QString name = env("REFSCOPE_REAL_NAME");
    const QString leak_type = env("REFSCOPE_REAL_LEAK_TYPE");
    const QString holder = env("REFSCOPE_REAL_LEAK_HOLDER");
    const bool live = !env("REFSCOPE_REAL_LIVE").isEmpty();
    if (name.isEmpty() || leak_type.isEmpty() || (!live && env("REFSCOPE_REAL_SNAPSHOTS").isEmpty())) {
        QSKIP("run by tests/realprograms/test_real_programs_window.py, which runs the program");
    }
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow window;
    window.resize(1280, 800);  // sized before the files open, as a person's window is
    window.show();
    QApplication::setActiveWindow(&window);  // window shortcuts need the active window
    if (live) {
        const QString error = stream_live(window, dir);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // The Connections dock leaves the workspace most of the window (it
        // once took 320 of 800 px for one process, leaving two suspect rows).
        auto* dock = testing::find<QDockWidget>(window, "connectionsDock");
        QVERIFY(dock && dock->isVisible());
        QVERIFY2(dock->height() < window.height() / 4, qPrintable(QString::number(dock->height())));
    } else {
        window.openFiles(env("REFSCOPE_REAL_SNAPSHOTS").split(QLatin1Char(':')));
        QVERIFY(testing::wait_settled(window));
        QVERIFY2(window.loadErrors().isEmpty(), qPrintable(window.loadErrors().join(QLatin1Char('\n'))));
    }
    // The first snapshot is the baseline, the newest is shown.
    SnapshotTimeline* timeline = window.timeline();
    QCOMPARE(timeline->count(), 3);
    QCOMPARE(timeline->baseline(), timeline->at(0));
    QCOMPARE(timeline->current(), timeline->at(2));
    Workspace* w = window.workspace();

    // The first Leak Suspects row is the planted leak, its key columns in
    // view (Retained with its unit).
    QVERIFY(window.selectTopSuspect());
    QVERIFY(testing::wait_settled(window));
    w->showPanel(Workspace::Panel::Suspects);
    QTableView* suspects = w->suspectsPanel()->view();
    QVERIFY(suspects->model()->rowCount() > 0);
    QStringList ranked;
    for (int r = 0; r < std::min(5, suspects->model()->rowCount()); ++r) {
        ranked << suspects->model()->index(r, SuspectsModel::TypeColumn).data().toString();
    }
    QVERIFY2(ranked.front() == leak_type, qPrintable(ranked.join(QStringLiteral(", "))));
    const std::vector<int> key_columns{SuspectsModel::TypeColumn, SuspectsModel::ConfidenceColumn,
                                       SuspectsModel::ObjectsColumn, SuspectsModel::RetainedBytesColumn,
                                       SuspectsModel::ScoreColumn};
    QTRY_VERIFY2(testing::columns_in_viewport(*suspects, key_columns), qPrintable(name));
    const QString retained = suspects->model()->index(0, SuspectsModel::RetainedBytesColumn).data().toString();
    QVERIFY2(retained.endsWith(QLatin1Char('B')), qPrintable(retained));
    QVERIFY(suspects->viewport()->rect().intersects(suspects->visualRect(suspects->model()->index(0, 0))));

    // The Path panel says where it accumulates.
    const uint32_t leaked = w->selectedObject();
    QVERIFY(leaked != kNoNode);
    QVERIFY2(w->pathText().contains(holder), qPrintable(w->pathText()));

    // The graph opens on it at a readable zoom (text as tall as the UI font).
    w->showPanel(Workspace::Panel::Graph);
    QVERIFY(testing::wait_settled(window));
    GraphWidget* graph = w->graphWidget();
    QVERIFY(graph->isVisible());
    const GraphNodeItem* node = graph->scene()->nodeItemFor(leaked);
    QVERIFY2(node, "the selection is not in the graph");
    GraphView* view = graph->view();
    QVERIFY2(view->zoom() >= view->readableZoom() - 1e-9,
             qPrintable(QStringLiteral("zoom %1, readable %2").arg(view->zoom()).arg(view->readableZoom())));
    QVERIFY(view->viewport()->rect().adjusted(-2, -2, 2, 2).contains(view->mapFromScene(node->pos())));
    QVERIFY(window.grab().save(testing::output_file(qPrintable(QStringLiteral("real-%1-graph.png").arg(name))), "PNG"));

    // Following a link of the path (the object that holds the leaked one)
    // selects it everywhere; Back (Alt+Left) returns.
    w->showPanel(Workspace::Panel::Path);
    QTextBrowser* browser = w->pathPanel()->browser();
    const auto links = node_links(*browser);
    QVERIFY2(links.size() >= 2, qPrintable(browser->toHtml()));
    QCOMPARE(links.back().first, leaked);
    const uint32_t parent = links[links.size() - 2].first;
    click_link(*browser, links[links.size() - 2].second);
    QCOMPARE(w->selectedObject(), parent);
    QCOMPARE(w->pathPanel()->object(), parent);
    QVERIFY(testing::wait_settled(window));
    QTest::keyClick(&window, Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(w->selectedObject(), leaked);
    QCOMPARE(w->pathPanel()->object(), leaked);
    QVERIFY(testing::wait_settled(window));

    // Growth (Alt+0), in objects (the panel's switch): the leaking type's
    // line, chosen with its suspect, rises at each snapshot.
    QTest::keyClick(&window, Qt::Key_0, Qt::AltModifier);
    GrowthPanel* growth = w->growthPanel();
    QTRY_VERIFY(growth->isVisible());
    QTest::mouseClick(testing::find<QToolButton>(window, "growthObjects"), Qt::LeftButton);
    QVERIFY(testing::wait_settled(window));
    GrowthChart* chart = growth->chart();
    QVERIFY(chart->hasChart());
    const GrowthSeries& series = growth->series();
    QCOMPARE(series.measure, GrowthMeasure::Objects);
    QCOMPARE(series.samples.size(), size_t{3});
    const GrowthLine* line = series.chosenLine();
    QVERIFY2(line && QString::fromStdString(line->type) == leak_type, qPrintable(growth->chosenType()));
    const size_t index = static_cast<size_t>(line - series.lines.data());
    for (size_t s = 1; s < 3; ++s) QVERIFY(line->objects[s] > line->objects[s - 1]);
    // Drawn visibly higher at each snapshot, its legend entry in view: the
    // axis fits the chosen type (Fit Chosen, on by default), not the
    // libraries' own growth (str, dict, tuple by the thousand), under which
    // the leak's rise was below a pixel in three of the four programs.
    QVERIFY(chart->fitChosen());
    const QPointF first = chart->pointPosition(index, 0);
    const QPointF middle = chart->pointPosition(index, 1);
    const QPointF last = chart->pointPosition(index, 2);
    QVERIFY2(middle.y() < first.y() && last.y() < middle.y(),
             qPrintable(QStringLiteral("%1 %2 %3").arg(first.y()).arg(middle.y()).arg(last.y())));
    QVERIFY2(first.y() - last.y() > chart->height() / 5.0,
             qPrintable(QStringLiteral("the leak's line rises %1 px of a %2 px chart")
                            .arg(first.y() - last.y())
                            .arg(chart->height())));
    QVERIFY(QRectF(chart->rect()).contains(chart->legendEntry(index)));
    QVERIFY(window.grab().save(testing::output_file(qPrintable(QStringLiteral("real-%1-growth.png").arg(name))), "PNG"));

    // What the user sees first: the suspects with the path, kept to look at.
    QVERIFY(window.selectTopSuspect());
    QVERIFY(testing::wait_settled(window));
    QVERIFY(window.grab().save(testing::output_file(qPrintable(QStringLiteral("real-%1.png").arg(name))), "PNG"));
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    RealProgramWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "real_program_window_test.moc"

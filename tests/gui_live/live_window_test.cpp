// The real MainWindow with live processes, headless: real sockets, real
// Python targets running the probe. A target connects and appears in the
// Connections panel; Take Snapshot opens the saved file in the window
// (timeline, summary), a second is compared with the first, Mark as
// Baseline, automatic snapshots; a target killed in the middle of a
// snapshot shows as gone with the discard in the log while the complete
// snapshots stay open; garbage and wrong-token clients are logged while the
// good connection is served; the Attach dialog lists a running target and
// attaches it through the real `python -m refscope attach`, or says why it
// cannot; File ▸ Open Session reopens what was saved; the command line.
#include <unistd.h>

#include <atomic>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QLineEdit>
#include <QtTest>

#include "live_test_support.h"
#include "models/type_summary_model.h"
#include "session/attach_job.h"
#include "session/live_process_model.h"
#include "session/live_session.h"
#include "session/snapshot_timeline.h"
#include "window/attach_dialog.h"
#include "window/command_line.h"
#include "window/connections_panel.h"
#include "window/empty_state.h"
#include "window/growth_panel.h"
#include "window/live_controls.h"
#include "window/main_window.h"
#include "window/summary_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;
using refscope::testing::PythonTarget;
using refscope::testing::program;
using refscope::testing::wait_settled;

namespace {

QStringList busy_arguments(const char* heap = "2000") {
    return {QStringLiteral("--workers"), QStringLiteral("0"), QStringLiteral("--heap"), QLatin1String(heap)};
}

// Listening in `dir`/session.
bool listen(MainWindow& window, const QTemporaryDir& dir) {
    window.live()->setSessionDir(dir.filePath(QStringLiteral("session")));
    return window.live()->startListening(/*quiet=*/true);
}

bool wait_connected(MainWindow& window, PythonTarget& target, int rows = 1) {
    LiveSession* session = window.live()->session();
    return QTest::qWaitFor([&] {
        return int(session->processes().size()) >= rows && session->processes().back().pid == target.pid();
    }, 20'000);
}

QPushButton* button(MainWindow& window, const char* name) { return testing::find<QPushButton>(window, name); }

// Clicks Take Snapshot and waits until the window shows `count` snapshots, settled.
bool snapshot_shown(MainWindow& window, int count, const char* which = "takeSnapshot") {
    button(window, which)->click();
    if (!QTest::qWaitFor([&] { return window.timeline()->count() >= count; }, 30'000)) return false;
    return wait_settled(window);
}

}  // namespace

class LiveWindowTest : public QObject {
    Q_OBJECT

private slots:
    void emptyStateConnectStartsListening();
    void snapshotsJoinTheTimelineAndCompare();
    void automaticSnapshotsOpenInTheWindow();
    void twoProcessesAreComparedEachWithItself();
    void targetKilledMidSnapshotShowsGone();
    void badClientsAreLoggedGoodOneServed();
    void attachDialogAttachesARealProcess();
    void openSessionReopensSavedSnapshots();
    void commandLineOptions();
    void whyAProcessCannotBeAttached();
};

void LiveWindowTest::emptyStateConnectStartsListening() {
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    window.live()->setSessionDir(dir.filePath(QStringLiteral("session")));
    auto* live_menu = window.findChild<QMenu*>(QStringLiteral("liveMenu"));
    QVERIFY(live_menu && window.menuBar()->actions().contains(live_menu->menuAction()));
    auto* empty = testing::find<EmptyState>(window, "emptyState");
    QVERIFY(empty && empty->isVisible());
    empty->connectButton()->click();
    LiveSession* session = window.live()->session();
    QVERIFY(session->isListening());
    QVERIFY(window.live()->dock()->isVisible());
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("session"))).isDir());
    auto* address = testing::find<QLabel>(window, "liveAddress");
    QVERIFY(address->text().contains(session->address()));
    button(window, "copyLiveCommands")->click();
    const QString commands = QApplication::clipboard()->text();
    QVERIFY2(commands.contains(QStringLiteral("REFSCOPE_CONNECT=") + session->address()), qPrintable(commands));
    QVERIFY(commands.contains(QStringLiteral("REFSCOPE_TOKEN_FILE=") + session->tokenFile()));
    QVERIFY(commands.contains(QLatin1String("-m refscope attach PID")));
    // Nothing connected: the snapshot commands are off.
    QVERIFY(!button(window, "takeSnapshot")->isEnabled());
    // Stop from the panel.
    button(window, "liveListen")->click();
    QVERIFY(!session->isListening());
}

void LiveWindowTest::snapshotsJoinTheTimelineAndCompare() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    QVERIFY(listen(window, dir));
    LiveSession* session = window.live()->session();
    QAbstractItemModelTester tester(window.live()->panel()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    PythonTarget target(program("busy_target.py"), busy_arguments(), session->address(), session->tokenFile());
    QVERIFY2(wait_connected(window, target), qPrintable(target.output()));
    auto* table = testing::find<QTableView>(window, "liveProcesses");
    QCOMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, LiveProcessModel::Pid).data().toString(), QString::number(target.pid()));
    QVERIFY(table->model()->index(0, LiveProcessModel::CommandLine).data().toString().contains(QLatin1String("busy_target.py")));
    QVERIFY(button(window, "takeSnapshot")->isEnabled());

    // The first snapshot is saved and shown.
    QVERIFY(snapshot_shown(window, 1));
    SnapshotTimeline* timeline = window.timeline();
    QCOMPARE(timeline->count(), 1);
    QVERIFY(timeline->current());
    QCOMPARE(timeline->current()->snapshot().header.pid, uint64_t(target.pid()));
    QVERIFY(QString::fromStdString(timeline->current()->path()).startsWith(dir.filePath(QStringLiteral("session"))));
    auto* pages = qobject_cast<QStackedWidget*>(window.centralWidget());
    QCOMPARE(pages->currentWidget(), static_cast<QWidget*>(window.workspace()));
    QVERIFY(window.workspace()->summaryPanel()->model()->rowCount() > 0);
    QVERIFY2(window.countsText().contains(QLatin1String("objects")), qPrintable(window.countsText()));
    QCOMPARE(table->model()->index(0, LiveProcessModel::Snapshots).data().toString(), QStringLiteral("1"));

    // The second is compared with the first.
    QVERIFY(snapshot_shown(window, 2, "collectSnapshot"));
    const AnalysisPtr first = timeline->at(0);
    const AnalysisPtr second = timeline->at(1);
    QCOMPARE(timeline->baseline(), first);
    QCOMPARE(timeline->current(), second);
    QVERIFY(window.comparisonJob()->result());
    QCOMPARE(window.workspace()->comparison(), window.comparisonJob()->result());
    auto* note = testing::find<QLabel>(window, "comparisonNote");
    QVERIFY2(note && note->text().contains(QLatin1String("since the baseline")), qPrintable(note ? note->text() : QString()));

    // Mark the latest (the second) as the baseline: the third compares with
    // it. A label names the process and its next snapshots.
    button(window, "markBaseline")->click();
    window.live()->panel()->setLabel(QStringLiteral("after warm-up"));
    QVERIFY(table->model()->index(0, LiveProcessModel::CommandLine).data().toString().startsWith(QLatin1String("[after warm-up]")));
    QVERIFY(snapshot_shown(window, 3));
    QCOMPARE(timeline->count(), 3);
    QCOMPARE(timeline->current()->snapshot().header.label, std::string("after warm-up"));
    QCOMPARE(timeline->baseline(), second);
    QCOMPARE(timeline->current(), timeline->at(2));
    QVERIFY(window.comparisonJob()->result());
    QCOMPARE(window.comparisonJob()->result(), window.workspace()->comparison());

    // A picture of the window with its Connections dock, kept in the build folder.
    window.resize(1400, 900);
    QVERIFY(wait_settled(window));
    const QString picture = testing::output_file("live-window.png");
    QVERIFY(window.grab().save(picture, "PNG"));
    qInfo("screenshot: %s", qPrintable(picture));
    // The user guide's (docs/guide/live.md): the window, and the Connections panel alone.
    window.resize(1280, 800);
    QVERIFY(wait_settled(window));
    QVERIFY(testing::save_guide_image(window, "live-window"));
    QVERIFY(testing::save_guide_image(*window.live()->panel(), "live-connections-panel"));

    // Disconnect, like Take Snapshot, acts on the only process without a
    // choice in the table (issue 16, defect D: it stayed disabled until a
    // row was clicked). The process keeps running, shown disconnected; its
    // snapshots stay open.
    table->clearSelection();
    QVERIFY(button(window, "takeSnapshot")->isEnabled());
    QVERIFY(button(window, "disconnectProcess")->isEnabled());
    button(window, "disconnectProcess")->click();
    QVERIFY(QTest::qWaitFor([&] { return !session->process(session->processes().front().connection)->connected; }, 5000));
    QVERIFY(!button(window, "disconnectProcess")->isEnabled());
    QVERIFY(!button(window, "takeSnapshot")->isEnabled());
    QVERIFY(!testing::process_ended(target.pid()));
    QCOMPARE(timeline->count(), 3);
}

// Two live processes share the window's one timeline: each new snapshot is
// compared with its own process's first one, never with the other's.
void LiveWindowTest::twoProcessesAreComparedEachWithItself() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    QVERIFY(listen(window, dir));
    LiveSession* session = window.live()->session();
    PythonTarget a(program("busy_target.py"), busy_arguments(), session->address(), session->tokenFile());
    QVERIFY2(wait_connected(window, a), qPrintable(a.output()));
    const uint64_t a_id = session->processes().back().connection;
    PythonTarget b(program("busy_target.py"), busy_arguments("3000"), session->address(), session->tokenFile());
    QVERIFY2(wait_connected(window, b, 2), qPrintable(b.output()));
    const uint64_t b_id = session->processes().back().connection;
    SnapshotTimeline* timeline = window.timeline();
    const auto snapshot_of = [&](uint64_t id, int count) {
        if (session->takeSnapshot(id, false) == 0) return false;
        if (!QTest::qWaitFor([&] { return timeline->count() >= count; }, 30'000)) return false;
        return wait_settled(window);
    };
    const auto pid_of = [](const AnalysisPtr& analysis) {
        return analysis ? int64_t(analysis->snapshot().header.pid) : int64_t(-1);
    };
    // With two, Disconnect waits for a choice: never both by default.
    testing::find<QTableView>(window, "liveProcesses")->clearSelection();
    QVERIFY(!button(window, "disconnectProcess")->isEnabled());
    QVERIFY(button(window, "takeSnapshot")->isEnabled());
    QVERIFY(snapshot_of(a_id, 1));
    QVERIFY(snapshot_of(b_id, 2));
    // B's first: nothing of its own to compare with, and never A's.
    QCOMPARE(pid_of(timeline->current()), int64_t(b.pid()));
    QVERIFY(!timeline->baseline() || pid_of(timeline->baseline()) == b.pid());
    QVERIFY(snapshot_of(a_id, 3));
    QCOMPARE(pid_of(timeline->current()), int64_t(a.pid()));
    QCOMPARE(pid_of(timeline->baseline()), int64_t(a.pid()));
    QVERIFY(snapshot_of(b_id, 4));
    QCOMPARE(pid_of(timeline->current()), int64_t(b.pid()));
    QCOMPARE(pid_of(timeline->baseline()), int64_t(b.pid()));
    QVERIFY(timeline->baseline() != timeline->current());
    QVERIFY(window.comparisonJob()->result());
    QCOMPARE(window.workspace()->comparison(), window.comparisonJob()->result());
}

void LiveWindowTest::automaticSnapshotsOpenInTheWindow() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    QVERIFY(listen(window, dir));
    LiveSession* session = window.live()->session();
    PythonTarget target(program("busy_target.py"), busy_arguments(), session->address(), session->tokenFile());
    QVERIFY2(wait_connected(window, target), qPrintable(target.output()));
    // At most 3 open: automatic snapshots must not pile up in memory.
    window.live()->setOpenSnapshotLimit(3);
    QSignalSpy saved(session, &LiveSession::snapshotSaved);
    testing::find<QSpinBox>(window, "autoSeconds")->setValue(1);
    testing::find<QCheckBox>(window, "autoSnapshots")->setChecked(true);
    QCOMPARE(session->automaticInterval(), 1);
    QVERIFY(QTest::qWaitFor([&] { return saved.count() >= 5; }, 30'000));
    testing::find<QCheckBox>(window, "autoSnapshots")->setChecked(false);
    QCOMPARE(session->automaticInterval(), 0);
    // A request still in flight is answered and opened too.
    QVERIFY(QTest::qWaitFor([&] { return session->processes().front().requestInFlight == 0; }, 30'000));
    QVERIFY(QTest::qWaitFor([&] { return window.timeline()->findByPath(saved.back().at(1).toString()) != nullptr; }, 30'000));
    QVERIFY(wait_settled(window));
    SnapshotTimeline* timeline = window.timeline();
    QCOMPARE(timeline->count(), 3);
    // The first stays as the baseline, the newest is shown; the files all stay.
    QCOMPARE(QString::fromStdString(timeline->baseline()->path()), saved.front().at(1).toString());
    QCOMPARE(QString::fromStdString(timeline->current()->path()), saved.back().at(1).toString());
    for (const QList<QVariant>& s : saved) QVERIFY(QFileInfo(s.at(1).toString()).isFile());
    QVERIFY(window.comparisonJob()->result());
    // The growth chart has a point per snapshot taken, the closed ones too.
    QCOMPARE(window.workspace()->growthPanel()->series().samples.size(), size_t(saved.count()));
}

void LiveWindowTest::targetKilledMidSnapshotShowsGone() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    std::atomic<qint64> kill_pid{0};
    // Holds the listener's loop when the doomed snapshot starts arriving
    // until the kernel has ended the target: the stream is certainly cut.
    window.live()->session()->setSnapshotStartedHook([&](uint64_t, int64_t pid) {
        if (kill_pid.load() != 0 && pid == kill_pid.load()) testing::kill9_and_wait(pid);
    });
    QVERIFY(listen(window, dir));
    LiveSession* session = window.live()->session();
    PythonTarget target(program("busy_target.py"), busy_arguments("40000"), session->address(), session->tokenFile());
    QVERIFY2(wait_connected(window, target), qPrintable(target.output()));
    QVERIFY(snapshot_shown(window, 1));
    QSignalSpy disconnected(session, &LiveSession::disconnected);
    kill_pid = target.pid();
    button(window, "takeSnapshot")->click();
    QVERIFY(QTest::qWaitFor([&] { return !disconnected.isEmpty(); }, 30'000));
    QVERIFY(wait_settled(window));
    auto* table = testing::find<QTableView>(window, "liveProcesses");
    QCOMPARE(table->model()->index(0, LiveProcessModel::State).data().toString(), QStringLiteral("gone: process exited"));
    const QString log = testing::find<QPlainTextEdit>(window, "liveLog")->toPlainText();
    QVERIFY2(log.contains(QLatin1String("warning: discarded snapshot")) && log.contains(QLatin1String("partial snapshot discarded")),
             qPrintable(log));
    // The complete snapshot stays open; nothing else was opened.
    QCOMPARE(window.timeline()->count(), 1);
    QVERIFY(window.loadErrors().isEmpty());
    QVERIFY(!button(window, "takeSnapshot")->isEnabled());
}

void LiveWindowTest::badClientsAreLoggedGoodOneServed() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    QVERIFY(listen(window, dir));
    LiveSession* session = window.live()->session();
    PythonTarget good(program("busy_target.py"), busy_arguments(), session->address(), session->tokenFile());
    QVERIFY2(wait_connected(window, good), qPrintable(good.output()));
    QSignalSpy refused(session, &LiveSession::refused);
    const int garbage = testing::garbage_client(session->address());
    QVERIFY(garbage >= 0);
    const auto close_garbage = qScopeGuard([garbage] { ::close(garbage); });
    PythonTarget impostor(program("busy_target.py"), busy_arguments(), session->address(), {},
                          QStringLiteral("ffeeddccbbaa99887766554433221100"));
    QVERIFY(QTest::qWaitFor([&] { return !refused.isEmpty(); }, 20'000));
    auto* log = testing::find<QPlainTextEdit>(window, "liveLog");
    QVERIFY(QTest::qWaitFor([&] { return log->toPlainText().contains(QLatin1String("token")); }, 5000));
    // The garbage is dropped with a warning too.
    QVERIFY(QTest::qWaitFor([&] { return log->toPlainText().contains(QLatin1String("warning: dropped")); }, 10'000));
    QVERIFY(log->toPlainText().contains(QLatin1String("warning: refused")));
    QCOMPARE(testing::find<QTableView>(window, "liveProcesses")->model()->rowCount(), 1);
    QVERIFY(snapshot_shown(window, 1));
    QCOMPARE(window.timeline()->current()->snapshot().header.pid, uint64_t(good.pid()));
}

void LiveWindowTest::attachDialogAttachesARealProcess() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    MainWindow window;
    window.show();
    window.live()->setSessionDir(dir.filePath(QStringLiteral("session")));
    PythonTarget target(program("busy_target.py"), {QStringLiteral("--workers"), QStringLiteral("1"), QStringLiteral("--no-import")});
    QVERIFY2(target.waitReady(), qPrintable(target.output()));
    window.live()->showAttachDialog();  // starts listening too
    QVERIFY(window.live()->session()->isListening());
    AttachDialog* dialog = window.live()->attachDialog();
    QVERIFY(dialog && dialog->isVisible());
    QTreeWidget* list = dialog->processList();
    QTreeWidgetItem* row = nullptr;
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        if (list->topLevelItem(i)->text(0) == QString::number(target.pid())) row = list->topLevelItem(i);
    }
    QVERIFY2(row, "the target is listed");
    QVERIFY(row->flags() & Qt::ItemIsEnabled);
    QVERIFY(row->text(1).startsWith(QLatin1String("3.")));
    QVERIFY(row->text(3).contains(QLatin1String("busy_target.py")));
    // The filter narrows the list to it.
    dialog->filterField()->setText(QString::number(target.pid()));
    int shown = 0;
    for (int i = 0; i < list->topLevelItemCount(); ++i) shown += list->topLevelItem(i)->isHidden() ? 0 : 1;
    QVERIFY(shown >= 1 && !row->isHidden());
    QVERIFY(dialog->grab().save(testing::output_file("live-attach-dialog.png"), "PNG"));
    QVERIFY(testing::save_guide_image(*dialog, "live-attach-dialog"));
    dialog->filterField()->setText(QStringLiteral("no-such-program-xyz"));
    QVERIFY(row->isHidden());
    dialog->filterField()->clear();

    // A pid that does not exist: the attach command's own message.
    QSignalSpy finished(dialog->job(), &AttachJob::finished);
    dialog->attachTo(999'999'999);
    QVERIFY(dialog->cancelButton()->isVisible());
    QVERIFY(finished.wait(30'000));
    QVERIFY2(dialog->messageLabel()->text().contains(QLatin1String("Could not attach")) &&
                 dialog->messageLabel()->text().contains(QLatin1String("999999999")),
             qPrintable(dialog->messageLabel()->text()));
    QVERIFY(dialog->isVisible());

    // The real attach.
    row->setSelected(true);
    dialog->attachButton()->click();
    QVERIFY(finished.wait(60'000));
    const auto outcome = finished.back().front().value<AttachJob::Outcome>();
    if (!outcome.ok && (outcome.code == QLatin1String("permission") || outcome.code.startsWith(QLatin1String("ptrace")) ||
                        outcome.code == QLatin1String("traced") || outcome.code == QLatin1String("no-gdb"))) {
        QSKIP(qPrintable(QStringLiteral("attach cannot work on this machine: ") + outcome.message));
    }
    QVERIFY2(outcome.ok, qPrintable(outcome.message));
    QVERIFY(!window.live()->attachDialog() || !window.live()->attachDialog()->isVisible());
    LiveSession* session = window.live()->session();
    QVERIFY(QTest::qWaitFor([&] { return !session->processes().empty(); }, 10'000));
    QCOMPARE(session->processes().front().pid, target.pid());
    QVERIFY(session->processes().front().attached);
    QVERIFY(testing::find<QTableView>(window, "liveProcesses")
                ->model()->index(0, LiveProcessModel::State).data().toString().contains(QLatin1String("attached")));
    QVERIFY(snapshot_shown(window, 1));
}

void LiveWindowTest::openSessionReopensSavedSnapshots() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    QStringList saved;
    {
        MainWindow window;
        window.show();
        QVERIFY(listen(window, dir));
        LiveSession* session = window.live()->session();
        PythonTarget target(program("busy_target.py"), busy_arguments(), session->address(), session->tokenFile());
        QVERIFY2(wait_connected(window, target), qPrintable(target.output()));
        QVERIFY(snapshot_shown(window, 1));
        QVERIFY(snapshot_shown(window, 2));
        for (const AnalysisPtr& a : window.timeline()->snapshots()) saved << QString::fromStdString(a->path());
    }
    MainWindow window;
    window.show();
    QString error;
    QVERIFY(!window.live()->openSession(dir.filePath(QStringLiteral("nothing-here")), &error));
    QVERIFY(error.contains(QLatin1String("is not a folder")));
    QVERIFY(window.live()->openSession(dir.filePath(QStringLiteral("session")), &error));
    QVERIFY(QTest::qWaitFor([&] { return window.timeline()->count() == 2; }, 30'000));
    QVERIFY(wait_settled(window));
    QStringList reopened;
    for (const AnalysisPtr& a : window.timeline()->snapshots()) reopened << QString::fromStdString(a->path());
    QCOMPARE(reopened, saved);
    QCOMPARE(window.timeline()->baseline(), window.timeline()->at(0));
    QVERIFY(window.comparisonJob()->result());
}

void LiveWindowTest::commandLineOptions() {
    QCommandLineParser parser;
    QString error;
    const auto options = parse_command_line(
        parser, {QStringLiteral("refscope"), QStringLiteral("--listen"), QStringLiteral("--session-dir"), QStringLiteral("/tmp/s")},
        &error);
    QVERIFY2(options, qPrintable(error));
    QVERIFY(options->listen);
    QCOMPARE(options->sessionDir, QStringLiteral("/tmp/s"));
    QCommandLineParser plain_parser;
    const auto plain = parse_command_line(plain_parser, {QStringLiteral("refscope")}, &error);
    QVERIFY(plain && !plain->listen && plain->sessionDir.isEmpty());
}

void LiveWindowTest::whyAProcessCannotBeAttached() {
    QVERIFY(AttachDialog::whyNotAttachable(true, QStringLiteral("me"), QStringLiteral("3.12")).isEmpty());
    QVERIFY(AttachDialog::whyNotAttachable(true, QStringLiteral("me"), QString()).isEmpty());  // unknown: let attach tell
    QCOMPARE(AttachDialog::whyNotAttachable(false, QStringLiteral("alice"), QStringLiteral("3.11")),
             QStringLiteral("runs as alice: only alice or root can attach to it"));
    QVERIFY(AttachDialog::whyNotAttachable(true, QStringLiteral("me"), QStringLiteral("3.8")).contains(QLatin1String("3.9 to 3.13")));
    QVERIFY(AttachDialog::whyNotAttachable(true, QStringLiteral("me"), QStringLiteral("3.14")).contains(QLatin1String("3.9 to 3.13")));
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    LiveWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "live_window_test.moc"

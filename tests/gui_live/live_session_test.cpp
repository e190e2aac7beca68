// The app's live session layer (app/gui/session: LiveSession,
// LiveProcessModel, session_snapshot_files) against real sockets and real
// Python processes running the probe: connecting, snapshots one at a time,
// automatic snapshots that never pile up, a target killed in the middle of a
// snapshot, garbage and wrong-token clients beside a good one. Attaching is
// attach_job_test.cpp.
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "live_test_support.h"
#include "session/live_process_model.h"
#include "session/live_session.h"
#include "session/session_folder_files.h"

using namespace refscope;
using namespace refscope::app;
using refscope::testing::PythonTarget;
using refscope::testing::program;
using refscope::testing::start_session;

namespace {

// A busy_target connected at start-up; waits until the session shows it.
uint64_t connect_target(LiveSession& session, PythonTarget& target) {
    const auto before = session.processes().size();
    if (!QTest::qWaitFor([&] { return session.processes().size() > before; }, 20'000)) return 0;
    const LiveProcess& p = session.processes().back();
    return p.pid == target.pid() ? p.connection : 0;
}

}  // namespace

class LiveSessionTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // never the user's data folder
    void startFailureIsOneSentence();
    void defaultFolderWithoutSnapshotsIsRemoved();
    void connectsAndSnapshotsOneAtATime();
    void automaticSnapshotsNeverPileUp();
    void targetKilledMidSnapshot();
    void unansweredRequestIsLoggedAndDisconnectGivesUp();
    void garbageAndWrongTokenBesideAGoodConnection();
    void stopMarksProcessesGoneAndRestartClears();
    void sessionFolderFilesInOrder();
    void snapshotSavedJustBeforeStopIsReported();
    void durationText();
};

void LiveSessionTest::startFailureIsOneSentence() {
    QTemporaryDir dir;
    QFile file(dir.filePath(QStringLiteral("not-a-folder")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    LiveSession session;
    QSignalSpy listening(&session, &LiveSession::listeningChanged);
    LiveSession::Options options;
    options.sessionDir = file.fileName() + QStringLiteral("/session");
    QVERIFY(!session.start(options));
    QVERIFY(!session.isListening());
    QVERIFY2(session.errorString().startsWith(QLatin1String("Cannot listen for processes: ")),
             qPrintable(session.errorString()));
    QVERIFY(!session.errorString().contains(QLatin1Char('\n')));
    QCOMPARE(listening.count(), 0);
    QVERIFY(session.address().isEmpty());
    // The default folder is a new timestamped one in refscope/sessions under
    // the user's data folder (not refscope/refscope/sessions: issue 16).
    QCOMPARE(QFileInfo(LiveSession::defaultSessionDir()).path(),
             QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/refscope/sessions"));
    QVERIFY(!QFileInfo::exists(LiveSession::defaultSessionDir()));
}

void LiveSessionTest::defaultFolderWithoutSnapshotsIsRemoved() {
    LiveSession session;
    QVERIFY(session.start());
    const QString folder = session.sessionDir();
    QVERIFY2(folder.contains(QLatin1String("/sessions/")), qPrintable(folder));
    QVERIFY(QFileInfo(folder).isDir());
    session.stop();
    QVERIFY(!QFileInfo::exists(folder));
    // A folder given by the caller stays, even empty.
    QTemporaryDir dir;
    QVERIFY(start_session(session, dir));
    session.stop();
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("session"))).isDir());
}

void LiveSessionTest::connectsAndSnapshotsOneAtATime() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    LiveSession session;
    LiveProcessModel model(&session);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(start_session(session, dir));
    QVERIFY(session.address().startsWith(QLatin1String("unix:")));
    QVERIFY(QFileInfo(session.tokenFile()).isFile());
    QVERIFY(session.runCommand().contains(QStringLiteral("REFSCOPE_CONNECT=") + session.address()));
    QVERIFY(session.runCommand().contains(QStringLiteral("REFSCOPE_TOKEN_FILE=") + session.tokenFile()));
    QVERIFY(session.attachCommand().contains(QStringLiteral("-m refscope attach PID --address ") + session.address()));

    QSignalSpy connected(&session, &LiveSession::connected);
    PythonTarget target(program("busy_target.py"), {QStringLiteral("--workers"), QStringLiteral("0")},
                        session.address(), session.tokenFile());
    const uint64_t id = connect_target(session, target);
    QVERIFY2(id != 0, qPrintable(target.output()));
    QCOMPARE(connected.count(), 1);
    const LiveProcess* p = session.process(id);
    QVERIFY(p->connected);
    QVERIFY(!p->attached);
    QVERIFY2(p->pythonVersion.startsWith(QLatin1String("3.")), qPrintable(p->pythonVersion));
    QVERIFY(p->commandLine().contains(QLatin1String("busy_target.py")));
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, LiveProcessModel::Pid).data().toString(), QString::number(target.pid()));
    QCOMPARE(model.index(0, LiveProcessModel::State).data().toString(), QStringLiteral("connected"));
    QCOMPARE(model.index(0, 0).data(LiveProcessModel::ConnectionRole).toULongLong(), id);

    QSignalSpy saved(&session, &LiveSession::snapshotSaved);
    const uint64_t request = session.takeSnapshot(id, /*collect=*/true, QStringLiteral("first"));
    QVERIFY(request != 0);
    // One request in flight per process: the second is refused, not queued.
    QCOMPARE(session.takeSnapshot(id, false), uint64_t{0});
    QCOMPARE(session.takeSnapshotOfAll(false), 0);
    QVERIFY(model.index(0, LiveProcessModel::State).data().toString().contains(QLatin1String("in progress")));
    QVERIFY(saved.wait(30'000));
    QCOMPARE(saved.front().at(0).toULongLong(), id);
    const QString path = saved.front().at(1).toString();
    QVERIFY2(QFileInfo(path).isFile(), qPrintable(path));
    QVERIFY(path.startsWith(dir.filePath(QStringLiteral("session"))));
    QCOMPARE(session.process(id)->snapshotsSaved, 1);
    QCOMPARE(session.process(id)->latestSnapshot, path);
    QCOMPARE(session.process(id)->requestInFlight, uint64_t{0});
    QCOMPARE(model.index(0, LiveProcessModel::Snapshots).data().toString(), QStringLiteral("1"));
    // Free again: the next request goes out.
    QCOMPARE(session.takeSnapshotOfAll(false), 1);
    QVERIFY(saved.wait(30'000));
    QCOMPARE(session.process(id)->snapshotsSaved, 2);
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("session/session.jsonl"))).isFile());
}

void LiveSessionTest::automaticSnapshotsNeverPileUp() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    LiveSession session;
    // The first snapshot is held in the loop for 2.5 s (a slow snapshot):
    // the timer fires twice meanwhile and must not send more requests.
    std::atomic<int> held{0};
    session.setSnapshotStartedHook([&](uint64_t, int64_t) {
        if (held.fetch_add(1) == 0) QThread::msleep(2500);
    });
    QVERIFY(start_session(session, dir));
    PythonTarget target(program("busy_target.py"), {QStringLiteral("--workers"), QStringLiteral("0")},
                        session.address(), session.tokenFile());
    const uint64_t id = connect_target(session, target);
    QVERIFY2(id != 0, qPrintable(target.output()));
    QSignalSpy started(&session, &LiveSession::snapshotStarted);
    QSignalSpy saved(&session, &LiveSession::snapshotSaved);
    session.setAutomaticSnapshots(1);
    QCOMPARE(session.automaticInterval(), 1);
    QVERIFY(QTest::qWaitFor([&] { return session.process(id)->requestInFlight != 0; }, 5000));
    const uint64_t first = session.process(id)->requestInFlight;
    // Two more ticks while the first is held: still the same request.
    QTest::qWait(2100);
    // (The hold began after the request went out, so it still lasts.)
    QVERIFY(saved.isEmpty());
    QCOMPARE(session.process(id)->requestInFlight, first);
    QVERIFY(QTest::qWaitFor([&] { return saved.count() >= 3; }, 20'000));
    session.setAutomaticSnapshots(0);
    // Every request was answered before the next went out: the requests
    // the snapshots answer are consecutive, without a skipped one.
    QVERIFY(started.count() >= 3);
    for (int i = 1; i < started.count(); ++i) {
        QCOMPARE(started.at(i).at(1).toULongLong(), started.at(i - 1).at(1).toULongLong() + 1);
    }
    QCOMPARE(started.front().at(1).toULongLong(), first);

    // While the gate says the app is busy (the window still loading the
    // last snapshots), ticks are skipped; once it is ready they resume.
    QTRY_COMPARE_WITH_TIMEOUT(session.process(id)->requestInFlight, uint64_t{0}, 20'000);
    bool ready = false;
    session.setAutomaticSnapshotGate([&ready] { return ready; });
    const int saved_before = int(saved.count());
    session.setAutomaticSnapshots(1);
    QTest::qWait(2300);
    QCOMPARE(session.process(id)->requestInFlight, uint64_t{0});
    QCOMPARE(int(saved.count()), saved_before);
    ready = true;
    QVERIFY(QTest::qWaitFor([&] { return int(saved.count()) > saved_before; }, 20'000));
    session.setAutomaticSnapshots(0);
}

// A process whose main thread keeps the GIL inside a C call (here ctypes'
// PyDLL, which does not release it) cannot be walked: the request is logged
// as unanswered after noAnswerNoticeMs, is answered once the call returns,
// and Disconnect gives up on it without harming the process.
void LiveSessionTest::unansweredRequestIsLoggedAndDisconnectGivesUp() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    const QString script = dir.filePath(QStringLiteral("gil_holder.py"));
    {
        QFile file(script);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("import ctypes, json, os, sys, time\n"
                   "import refscope  # connects at start-up\n"
                   "trigger = sys.argv[1]\n"
                   "print(json.dumps({'event': 'ready', 'pid': os.getpid()}), flush=True)\n"
                   "for round in range(2):\n"
                   "    while not os.path.exists(trigger + str(round)):\n"
                   "        time.sleep(0.01)\n"
                   "    ctypes.PyDLL(None).usleep(3000000)  # 3 s in C with the GIL held\n"
                   "    print(json.dumps({'event': 'released', 'round': round}), flush=True)\n"
                   "while True:\n"
                   "    time.sleep(0.05)\n");
    }
    const QString trigger = dir.filePath(QStringLiteral("hold-"));
    const auto hold_gil = [&](int round) {
        QFile file(trigger + QString::number(round));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        QTest::qWait(300);  // the target polls every 10 ms: it is inside usleep now
    };

    LiveSession session;
    LiveSession::Options options;
    options.sessionDir = dir.filePath(QStringLiteral("session"));
    options.noAnswerNoticeMs = 600;
    QVERIFY(session.start(options));
    PythonTarget target(script, {trigger}, session.address(), session.tokenFile());
    const uint64_t id = connect_target(session, target);
    QVERIFY2(id != 0, qPrintable(target.output()));
    QSignalSpy log(&session, &LiveSession::logLine);
    QSignalSpy saved(&session, &LiveSession::snapshotSaved);
    const auto unanswered_notices = [&] {
        int n = 0;
        for (const QList<QVariant>& line : log) {
            if (line.at(0).toString().contains(QLatin1String("has not begun to answer")) && line.at(1).toBool()) ++n;
        }
        return n;
    };

    // Answered late: logged once, still in flight, then saved.
    hold_gil(0);
    const uint64_t request = session.takeSnapshot(id, false);
    QVERIFY(request != 0);
    QVERIFY(QTest::qWaitFor([&] { return unanswered_notices() == 1; }, 2500));
    QVERIFY2(saved.isEmpty(), "the snapshot came while the GIL was held");
    QCOMPARE(session.process(id)->requestInFlight, request);
    QVERIFY2(session.process(id)->lastMessage.contains(QLatin1String("no answer")),
             qPrintable(session.process(id)->lastMessage));
    QVERIFY(saved.wait(20'000));
    QCOMPARE(session.process(id)->requestInFlight, uint64_t{0});
    QCOMPARE(unanswered_notices(), 1);

    // A snapshot that starts in time is not reported, however long it takes.
    QVERIFY(session.takeSnapshot(id, false) != 0);
    QVERIFY(saved.wait(20'000));
    QTest::qWait(800);
    QCOMPARE(unanswered_notices(), 1);

    // Given up: Disconnect ends the request; the process keeps running.
    hold_gil(1);
    QVERIFY(session.takeSnapshot(id, false) != 0);
    QVERIFY(QTest::qWaitFor([&] { return unanswered_notices() == 2; }, 2500));
    QSignalSpy disconnected(&session, &LiveSession::disconnected);
    session.disconnectProcess(id);
    QVERIFY(disconnected.wait(5000));
    QCOMPARE(disconnected.front().at(0).toULongLong(), id);
    QVERIFY(!session.process(id)->connected);
    QCOMPARE(session.process(id)->requestInFlight, uint64_t{0});
    QVERIFY(QTest::qWaitFor([&] { return target.output().contains(QLatin1String("\"round\": 1")); }, 10'000));
    QTest::qWait(300);
    QVERIFY2(!testing::process_ended(target.pid()), qPrintable(target.output()));
    QCOMPARE(saved.count(), 2);
}

void LiveSessionTest::targetKilledMidSnapshot() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    LiveSession session;
    // The second snapshot, once it starts arriving, finds its process killed:
    // the loop is held in the callback (as SIGSTOP holds `refscope-cli
    // listen` in tests/live) until the kernel has ended the process, so the
    // stream is certainly cut (the heap's snapshot is far larger than a
    // socket buffer).
    std::atomic<qint64> kill_pid{0};
    session.setSnapshotStartedHook([&](uint64_t, int64_t pid) {
        if (kill_pid.load() != 0 && pid == kill_pid.load()) testing::kill9_and_wait(pid);
    });
    QVERIFY(start_session(session, dir));
    PythonTarget target(program("busy_target.py"),
                        {QStringLiteral("--workers"), QStringLiteral("0"), QStringLiteral("--heap"), QStringLiteral("40000")},
                        session.address(), session.tokenFile());
    const uint64_t id = connect_target(session, target);
    QVERIFY2(id != 0, qPrintable(target.output()));
    QSignalSpy saved(&session, &LiveSession::snapshotSaved);
    QSignalSpy discarded(&session, &LiveSession::snapshotDiscarded);
    QSignalSpy disconnected(&session, &LiveSession::disconnected);
    QSignalSpy log(&session, &LiveSession::logLine);
    QVERIFY(session.takeSnapshot(id, false) != 0);
    QVERIFY(saved.wait(30'000));
    const QString complete = saved.front().at(1).toString();

    kill_pid = target.pid();
    QVERIFY(session.takeSnapshot(id, false) != 0);
    QVERIFY(QTest::qWaitFor([&] { return !disconnected.isEmpty(); }, 30'000));
    QCOMPARE(saved.count(), 1);
    QCOMPARE(discarded.count(), 1);
    const QString message = discarded.front().at(1).toString();
    QVERIFY2(message.contains(QLatin1String("went away in the middle")) && message.contains(QLatin1String("discarded")),
             qPrintable(message));
    QVERIFY(disconnected.front().at(2).toBool());  // the process is gone, not only the connection
    const LiveProcess* p = session.process(id);
    QVERIFY(!p->connected);
    QVERIFY(p->processExited);
    QCOMPARE(p->requestInFlight, uint64_t{0});
    QCOMPARE(p->snapshotsSaved, 1);
    bool logged = false;
    for (const QList<QVariant>& line : log) {
        if (line.at(0).toString().contains(QLatin1String("discarded")) && line.at(1).toBool()) logged = true;
    }
    QVERIFY(logged);
    // The complete one is kept; nothing partial is left behind.
    QVERIFY(QFileInfo(complete).isFile());
    const QDir folder(dir.filePath(QStringLiteral("session")));
    QCOMPARE(folder.entryList({QStringLiteral("*.partial")}, QDir::Files | QDir::Hidden).size(), 0);
    QCOMPARE(folder.entryList({QStringLiteral("*.rscope")}, QDir::Files).size(), 1);
    LiveProcessModel model(&session);
    QVERIFY(model.index(0, LiveProcessModel::State).data().toString().startsWith(QLatin1String("gone")));
    // A command for a gone process is refused.
    QCOMPARE(session.takeSnapshot(id, false), uint64_t{0});
}

void LiveSessionTest::garbageAndWrongTokenBesideAGoodConnection() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    LiveSession session;
    LiveSession::Options options;
    options.sessionDir = dir.filePath(QStringLiteral("session"));
    options.handshakeTimeoutMs = 1000;
    QVERIFY(session.start(options));
    PythonTarget good(program("busy_target.py"), {QStringLiteral("--workers"), QStringLiteral("0")},
                      session.address(), session.tokenFile());
    const uint64_t id = connect_target(session, good);
    QVERIFY2(id != 0, qPrintable(good.output()));

    QSignalSpy refused(&session, &LiveSession::refused);
    QSignalSpy log(&session, &LiveSession::logLine);
    // Garbage on the socket.
    const int garbage = testing::garbage_client(session.address());
    QVERIFY(garbage >= 0);
    const auto close_garbage = qScopeGuard([garbage] { ::close(garbage); });
    // A probe with a wrong token.
    PythonTarget impostor(program("busy_target.py"), {QStringLiteral("--workers"), QStringLiteral("0")},
                          session.address(), {}, QStringLiteral("00112233445566778899aabbccddeeff"));
    QVERIFY(QTest::qWaitFor([&] { return !refused.isEmpty(); }, 20'000));
    bool token_refused = false;
    for (const QList<QVariant>& r : refused) token_refused |= r.at(1).toString().contains(QLatin1String("token"));
    QVERIFY2(token_refused, qPrintable(refused.front().at(1).toString()));
    // The receiver hangs up on the garbage.
    QVERIFY(QTest::qWaitFor([&] {
        char byte;
        return ::recv(garbage, &byte, 1, MSG_DONTWAIT) == 0;
    }, 10'000));
    int warnings = 0;
    for (const QList<QVariant>& line : log) warnings += line.at(1).toBool() ? 1 : 0;
    QVERIFY(warnings >= 2);
    // Neither became a process, and the good one is still served.
    QCOMPARE(session.processes().size(), size_t{1});
    QSignalSpy saved(&session, &LiveSession::snapshotSaved);
    QVERIFY(session.takeSnapshot(id, false) != 0);
    QVERIFY(saved.wait(30'000));
}

void LiveSessionTest::stopMarksProcessesGoneAndRestartClears() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    LiveSession session;
    LiveProcessModel model(&session);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(start_session(session, dir));
    const QString token_file = session.tokenFile();
    PythonTarget target(program("busy_target.py"), {QStringLiteral("--workers"), QStringLiteral("0")},
                        session.address(), session.tokenFile());
    const uint64_t id = connect_target(session, target);
    QVERIFY(id != 0);
    QSignalSpy listening(&session, &LiveSession::listeningChanged);
    QSignalSpy disconnected(&session, &LiveSession::disconnected);
    session.stop();
    QCOMPARE(listening.count(), 1);
    QCOMPARE(disconnected.count(), 1);  // the end of the connection, reported once
    QVERIFY(!session.isListening());
    QVERIFY(!QFileInfo::exists(token_file));  // the private directory is gone
    QVERIFY(!session.process(id)->connected);
    QCOMPARE(session.process(id)->goneReason, QStringLiteral("listener stopped"));
    QTest::qWait(100);  // nothing of the stopped run arrives later
    QCOMPARE(disconnected.count(), 1);
    QCOMPARE(model.rowCount(), 1);
    session.stop();  // idempotent
    QCOMPARE(disconnected.count(), 1);
    QVERIFY(start_session(session, dir));
    QCOMPARE(model.rowCount(), 0);
    // A new run numbers its connections from 1 again: a process that
    // connects now is a new record, not the old one's.
    PythonTarget second(program("busy_target.py"), {QStringLiteral("--workers"), QStringLiteral("0")},
                        session.address(), session.tokenFile());
    const uint64_t second_id = connect_target(session, second);
    QVERIFY(second_id != 0);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(session.process(second_id)->pid, int64_t(second.pid()));
    QVERIFY(session.process(second_id)->connected);
}

void LiveSessionTest::sessionFolderFilesInOrder() {
    QTemporaryDir dir;
    QString error;
    QVERIFY(session_snapshot_files(dir.filePath(QStringLiteral("missing")), &error).isEmpty());
    QVERIFY(error.contains(QLatin1String("is not a folder")));
    QVERIFY(session_snapshot_files(dir.path(), &error).isEmpty());
    QVERIFY(error.contains(QLatin1String("holds no snapshot")));
    const auto touch = [&](const QString& name) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
    };
    touch(QStringLiteral("pid7-0002.rscope"));
    touch(QStringLiteral("pid7-0001.rscope"));
    touch(QStringLiteral("extra.rscope"));
    touch(QStringLiteral(".pid7-0003.rscope.partial"));
    QFile index(dir.filePath(QStringLiteral("session.jsonl")));
    QVERIFY(index.open(QIODevice::WriteOnly));
    index.write("{\"event\":\"connected\",\"pid\":7}\n"
                "{\"event\":\"snapshot\",\"file\":\"pid7-0001.rscope\"}\n"
                "{\"event\":\"snapshot\",\"file\":\"../escape.rscope\"}\n"
                "{\"event\":\"snapshot\",\"file\":\"pid7-0002.rscope\"}\n"
                "{\"event\":\"snapshot\",\"file\":\"gone.rscope\"}\n"
                "{\"event\":\"snap");   // a crash cut the last line
    index.close();
    const QStringList files = session_snapshot_files(dir.path(), &error);
    QCOMPARE(files, (QStringList{dir.filePath(QStringLiteral("pid7-0001.rscope")),
                                 dir.filePath(QStringLiteral("pid7-0002.rscope")),
                                 dir.filePath(QStringLiteral("extra.rscope"))}));

    // An index that is not a regular file (a FIFO would block the open
    // forever) is not read; the snapshots are still found by name.
    QVERIFY(QFile::remove(dir.filePath(QStringLiteral("session.jsonl"))));
    QCOMPARE(::mkfifo(QFile::encodeName(dir.filePath(QStringLiteral("session.jsonl"))).constData(), 0600), 0);
    QCOMPARE(session_snapshot_files(dir.path(), &error),
             (QStringList{dir.filePath(QStringLiteral("extra.rscope")), dir.filePath(QStringLiteral("pid7-0001.rscope")),
                          dir.filePath(QStringLiteral("pid7-0002.rscope"))}));
}

// A snapshot saved a moment before stop() (its event still queued for the
// GUI thread) is reported, not dropped with the run.
void LiveSessionTest::snapshotSavedJustBeforeStopIsReported() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    LiveSession session;
    QVERIFY(start_session(session, dir));
    PythonTarget target(program("busy_target.py"), {QStringLiteral("--workers"), QStringLiteral("0")},
                        session.address(), session.tokenFile());
    const uint64_t id = connect_target(session, target);
    QVERIFY2(id != 0, qPrintable(target.output()));
    QSignalSpy saved(&session, &LiveSession::snapshotSaved);
    QVERIFY(session.takeSnapshot(id, false) != 0);
    // Without running the event loop: wait for the file itself, then stop.
    const QDir folder(dir.filePath(QStringLiteral("session")));
    QElapsedTimer clock;
    clock.start();
    while (folder.entryList({QStringLiteral("*.rscope")}, QDir::Files).isEmpty() && clock.elapsed() < 30'000) {
        QThread::msleep(5);
    }
    QVERIFY(!folder.entryList({QStringLiteral("*.rscope")}, QDir::Files).isEmpty());
    QVERIFY(saved.isEmpty());
    session.stop();
    QCOMPARE(saved.count(), 1);
    QCOMPARE(session.process(id)->snapshotsSaved, 1);
    QVERIFY(!session.process(id)->connected);
}

void LiveSessionTest::durationText() {
    QCOMPARE(LiveProcessModel::durationText(7), QStringLiteral("0:07"));
    QCOMPARE(LiveProcessModel::durationText(245), QStringLiteral("4:05"));
    QCOMPARE(LiveProcessModel::durationText(3723), QStringLiteral("1:02:03"));
    QCOMPARE(LiveProcessModel::durationText(-5), QStringLiteral("0:00"));
}

QTEST_GUILESS_MAIN(LiveSessionTest)
#include "live_session_test.moc"

// Attaching to a running Python process from the app (app/gui/session:
// AttachJob runs `python -m refscope attach`): a real attach to a real
// process, cancelling a command that hangs or a target whose main thread is
// asleep in C, and every way an attach can fail, each with one clear
// sentence.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "live_test_support.h"
#include "session/attach_job.h"
#include "session/live_session.h"

using namespace refscope;
using namespace refscope::app;
using refscope::testing::PythonTarget;
using refscope::testing::program;
using refscope::testing::start_session;

namespace {

// An executable shell script `dir`/NAME with `body`, standing in for the
// attach command's Python.
QString write_script(const QTemporaryDir& dir, const char* name, const QByteArray& body) {
    const QString path = dir.filePath(QLatin1String(name));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write("#!/bin/sh\n" + body + "\n");
    file.close();
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

AttachJob::Outcome run_attach(int64_t pid, const QString& address, const QString& token_file, int ms = 60'000) {
    AttachJob job;
    QSignalSpy finished(&job, &AttachJob::finished);
    if (!job.start(pid, address, token_file, QStringLiteral("test"))) return {};
    if (!finished.wait(ms)) return {false, pid, QStringLiteral("test-timeout"), QStringLiteral("no outcome")};
    return finished.front().front().value<AttachJob::Outcome>();
}

}  // namespace

class AttachJobTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // never the user's data folder
    void attachOutcomes();
    void attachCancelKillsTheCommand();
    void attachRealProcess();
    void cancelledAttachNeverConnects();
};

void AttachJobTest::attachOutcomes() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    LiveSession session;
    QVERIFY(start_session(session, dir));
    // A pid that does not exist: the attach command's own sentence.
    const AttachJob::Outcome gone = run_attach(999'999'999, session.address(), session.tokenFile());
    QVERIFY(!gone.ok);
    QCOMPARE(gone.code, QStringLiteral("gone"));
    QVERIFY2(gone.message.contains(QLatin1String("999999999")), qPrintable(gone.message));

    const testing::ScopedEnvironment restore({"REFSCOPE_PYTHON", "REFSCOPE_PYTHON_PACKAGE_DIR"});
    const ProbeLocation probe = testing::test_probe();
    qputenv("REFSCOPE_PYTHON", probe.python.toLocal8Bit());
    qputenv("REFSCOPE_PYTHON_PACKAGE_DIR", probe.packageDir.toLocal8Bit());

    // No probe where the app looks: a clear error, no command run.
    qputenv("REFSCOPE_PYTHON_PACKAGE_DIR", dir.filePath(QStringLiteral("nowhere")).toLocal8Bit());
    const AttachJob::Outcome no_probe = run_attach(1, session.address(), session.tokenFile());
    QCOMPARE(no_probe.code, QStringLiteral("no-probe-built"));
    QVERIFY2(no_probe.message.contains(QLatin1String("no refscope probe in")), qPrintable(no_probe.message));
    qputenv("REFSCOPE_PYTHON_PACKAGE_DIR", probe.packageDir.toLocal8Bit());

    qputenv("REFSCOPE_PYTHON", dir.filePath(QStringLiteral("no-such-python")).toLocal8Bit());
    const AttachJob::Outcome no_python = run_attach(1, session.address(), session.tokenFile());
    QCOMPARE(no_python.code, QStringLiteral("no-probe-built"));
    QVERIFY2(no_python.message.contains(QLatin1String("does not exist or cannot be run")), qPrintable(no_python.message));

    // A command that crashes, and one that says nothing useful.
    qputenv("REFSCOPE_PYTHON", write_script(dir, "crashing", "kill -SEGV $$").toLocal8Bit());
    const AttachJob::Outcome crashed = run_attach(1, session.address(), session.tokenFile());
    QCOMPARE(crashed.code, QStringLiteral("crashed"));
    QVERIFY2(crashed.message.contains(QLatin1String("crashed")), qPrintable(crashed.message));
    qputenv("REFSCOPE_PYTHON", write_script(dir, "mute", "echo 'Traceback: something broke' >&2; exit 1").toLocal8Bit());
    const AttachJob::Outcome mute = run_attach(1, session.address(), session.tokenFile());
    QCOMPARE(mute.code, QStringLiteral("no-outcome"));
    QVERIFY2(mute.message.contains(QLatin1String("something broke")), qPrintable(mute.message));
}

void AttachJobTest::attachCancelKillsTheCommand() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    const QString pid_file = dir.filePath(QStringLiteral("pid"));
    // Records its pid, then hangs as a stuck attach would.
    const QString hanging = write_script(dir, "hanging", "echo $$ > '" + pid_file.toLocal8Bit() + "'; exec sleep 60");
    const testing::ScopedEnvironment restore({"REFSCOPE_PYTHON", "REFSCOPE_PYTHON_PACKAGE_DIR"});
    qputenv("REFSCOPE_PYTHON_PACKAGE_DIR", testing::test_probe().packageDir.toLocal8Bit());
    qputenv("REFSCOPE_PYTHON", hanging.toLocal8Bit());
    AttachJob job;
    QSignalSpy finished(&job, &AttachJob::finished);
    QVERIFY(job.start(1, QStringLiteral("unix:/nowhere"), QStringLiteral("/nowhere")));
    QVERIFY(job.isRunning());
    QVERIFY(!job.start(2, QStringLiteral("unix:/nowhere"), QStringLiteral("/nowhere")));  // one at a time
    QVERIFY(QTest::qWaitFor([&] { return QFileInfo(pid_file).size() > 0; }, 10'000));
    QFile f(pid_file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const qint64 pid = f.readAll().trimmed().toLongLong();
    QVERIFY(pid > 0);
    job.cancel();
    QVERIFY(finished.wait(5000));
    QCOMPARE(finished.front().front().value<AttachJob::Outcome>().code, QStringLiteral("cancelled"));
    QVERIFY(!job.isRunning());
    QVERIFY(testing::process_ended(pid));
}

void AttachJobTest::attachRealProcess() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    LiveSession session;
    QVERIFY(start_session(session, dir));
    PythonTarget target(program("busy_target.py"), {QStringLiteral("--workers"), QStringLiteral("1"), QStringLiteral("--no-import")});
    QVERIFY2(target.waitReady(), qPrintable(target.output()));
    const AttachJob::Outcome outcome = run_attach(target.pid(), session.address(), session.tokenFile());
    if (!outcome.ok && (outcome.code == QLatin1String("permission") || outcome.code.startsWith(QLatin1String("ptrace")) ||
                        outcome.code == QLatin1String("traced") || outcome.code == QLatin1String("no-gdb"))) {
        QSKIP(qPrintable(QStringLiteral("attach cannot work on this machine: ") + outcome.message));
    }
    QVERIFY2(outcome.ok, qPrintable(outcome.code + QStringLiteral(": ") + outcome.message));
    QCOMPARE(outcome.pid, target.pid());
    QVERIFY(QTest::qWaitFor([&] { return !session.processes().empty(); }, 10'000));
    const LiveProcess& p = session.processes().front();
    QCOMPARE(p.pid, target.pid());
    QVERIFY(p.attached);
    QCOMPARE(p.label, QStringLiteral("test"));
}

// Cancel while the target's main thread sleeps in C (the scheduled call
// cannot run yet): the attach command says the process will not connect,
// leaves nothing behind, and when the sleep ends nothing connects.
void AttachJobTest::cancelledAttachNeverConnects() {
    REQUIRE_PROBE();
    QTemporaryDir dir;
    QTemporaryDir workdirs;  // the attach command's TMPDIR: where its private folder goes
    const testing::ScopedEnvironment restore({"TMPDIR"});
    qputenv("TMPDIR", QFile::encodeName(workdirs.path()));
    LiveSession session;
    QVERIFY(start_session(session, dir));
    PythonTarget target(program("sleepy_target.py"), {QStringLiteral("6")});
    QVERIFY2(target.waitReady(), qPrintable(target.output()));
    AttachJob job;
    QSignalSpy finished(&job, &AttachJob::finished);
    QVERIFY(job.start(target.pid(), session.address(), session.tokenFile(), QStringLiteral("test"), 30));
    // gdb has run once its commands file exists and a moment has passed (a
    // cancel while it runs is honoured when it is done: same outcome).
    const auto gdb_started = [&] {
        for (const QString& d : QDir(workdirs.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (QFileInfo::exists(workdirs.filePath(d + QStringLiteral("/commands.gdb")))) return true;
        }
        return false;
    };
    QVERIFY(QTest::qWaitFor(gdb_started, 20'000) || !finished.isEmpty());
    QTest::qWait(500);
    job.cancel();
    QVERIFY(finished.count() == 1 || finished.wait(90'000));
    const AttachJob::Outcome outcome = finished.front().front().value<AttachJob::Outcome>();
    if (outcome.code == QLatin1String("permission") || outcome.code.startsWith(QLatin1String("ptrace")) ||
        outcome.code == QLatin1String("traced") || outcome.code == QLatin1String("no-gdb")) {
        QSKIP(qPrintable(QStringLiteral("attach cannot work on this machine: ") + outcome.message));
    }
    QCOMPARE(outcome.code, QStringLiteral("cancelled"));
    QVERIFY2(outcome.message.contains(QLatin1String("will not connect")), qPrintable(outcome.message));
    QVERIFY(!job.isRunning());
    // (The session's own private socket folder is there too: TMPDIR.)
    const QStringList left = QDir(workdirs.path()).entryList({QStringLiteral("refscope-attach-*")},
                                                             QDir::AllEntries | QDir::Hidden);
    QVERIFY2(left.isEmpty(), qPrintable(left.join(QLatin1Char(' '))));
    QVERIFY(QTest::qWaitFor([&] { return target.output().contains(QLatin1String("awake")); }, 30'000));
    QTest::qWait(1500);
    QVERIFY(session.processes().empty());
    QVERIFY(!testing::process_ended(target.pid()));
}

QTEST_GUILESS_MAIN(AttachJobTest)
#include "attach_job_test.moc"

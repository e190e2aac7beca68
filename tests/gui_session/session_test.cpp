// The session layer on real files and built snapshots: SnapshotLoader (good,
// corrupt, truncated and missing files, queue order, progress, cancel,
// destruction while loading), SnapshotTimeline, Comparison/ComparisonJob and
// the LatestRequestWorker behind ComparisonJob, FilterJob and ModelBuildJob.
#include <sys/stat.h>


#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <memory>
#include <thread>

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "refscope/analysis/snapshot_diff.h"
#include "refscope/format/snapshot_io.h"
#include "session/comparison.h"
#include "session/latest_request_worker.h"
#include "session/snapshot_loader.h"
#include "session/snapshot_timeline.h"
#include "session_fixtures.h"

using namespace refscope;
using namespace refscope::app;

namespace {

QString data_file(const char* name) { return QStringLiteral(REFSCOPE_TEST_DATA_DIR "/") + QLatin1String(name); }

// Every signal of a loader, in the order it was emitted, as "kind:path".
class LoaderRecorder {
public:
    explicit LoaderRecorder(SnapshotLoader& loader) {
        QObject::connect(&loader, &SnapshotLoader::started, [this](const QString& path, int) {
            events << QStringLiteral("started:") + path;
        });
        QObject::connect(&loader, &SnapshotLoader::progress, [this](const QString& path, const QString& stage, int percent) {
            progress << Progress{path, stage, percent, clock.elapsed()};
        });
        QObject::connect(&loader, &SnapshotLoader::loaded, [this](const AnalysisPtr& analysis) {
            events << QStringLiteral("loaded:") + QString::fromStdString(analysis->path());
            analyses.push_back(analysis);
        });
        QObject::connect(&loader, &SnapshotLoader::failed, [this](const QString& path, const QString& message) {
            events << QStringLiteral("failed:") + path;
            messages << message;
        });
        QObject::connect(&loader, &SnapshotLoader::cancelled, [this](const QString& path) {
            events << QStringLiteral("cancelled:") + path;
        });
        QObject::connect(&loader, &SnapshotLoader::idle, [this] { events << QStringLiteral("idle"); });
        clock.start();
    }
    // The events without "started:" (whose timing relative to cancel varies).
    QStringList ends() const {
        QStringList result;
        for (const QString& e : events) {
            if (!e.startsWith(QLatin1String("started:"))) result << e;
        }
        return result;
    }
    bool waitIdle(int ms = 60'000) {
        // qWaitFor sleeps between rounds of events: no core taken from the worker.
        return QTest::qWaitFor([this] { return events.contains(QStringLiteral("idle")); }, ms);
    }

    struct Progress {
        QString path, stage;
        int percent;
        qint64 at_ms;
    };
    QElapsedTimer clock;
    QStringList events;
    QStringList messages;
    QList<Progress> progress;
    std::vector<AnalysisPtr> analyses;
};

// The message format::read_snapshot_file gives for `path`.
QString reader_message(const QString& path) {
    try {
        format::read_snapshot_file(path.toStdString());
    } catch (const format::ReadError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace

class SessionTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void loadsGoodFile_data();
    void loadsGoodFile();
    void reportsReaderErrors_data();
    void reportsReaderErrors();
    void queueKeepsOrderAndEndsIdleOnce();
    void progressIsMonotonicAndThrottled();
    void cancelMidQueue();
    void refusesNamedPipes();
    void cancelWhenIdleDoesNothing();
    void destroyWhileLoading();

    void timelineOrdersByProcessAndSequence();
    void timelineBaselineRoles();
    void timelineRemoveAndFindByPath();

    void comparisonOfTwoSnapshots();
    void comparisonOfThreeSnapshots();
    void comparisonMismatch();
    void comparisonJobDeliversNewestOnly();
    void comparisonJobReportsMismatch();

    void latestRequestWorkerDeliversNewestOnly();
    void latestRequestWorkerCancelAndNoDelivery();
    void latestRequestWorkerDestroyedDropsDeliveries();

private:
    QTemporaryDir dir_;
    QString big_file_;
};

void SessionTest::initTestCase() {
    QVERIFY(dir_.isValid());
    big_file_ = dir_.filePath(QStringLiteral("big.rscope"));
    // Big enough that loading takes a while (several progress steps), small
    // enough for the ASan build.
    QVERIFY(testing::write_synthetic_heap(big_file_, 400'000));
}

// Both pinned formats (1.0 and 1.3, docs/format.md "Versioning") open.
void SessionTest::loadsGoodFile_data() {
    QTest::addColumn<QString>("good");
    QTest::newRow("format 1.0") << data_file("good-v1.rscope");
    QTest::newRow("format 1.3") << data_file("good-v1.3.rscope");
}

void SessionTest::loadsGoodFile() {
    QFETCH(QString, good);
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    QVERIFY(!loader.isBusy());
    loader.load({good});
    QVERIFY(loader.isBusy());
    QVERIFY(record.waitIdle());
    QCOMPARE(record.events, (QStringList{"started:" + good, "loaded:" + good, "idle"}));
    QVERIFY(!loader.isBusy());
    QCOMPARE(record.analyses.size(), size_t{1});
    const AnalysisPtr& a = record.analyses.front();
    const Snapshot expected = format::read_snapshot_file(good.toStdString());
    QCOMPARE(a->snapshot().node_count(), expected.node_count());
    QCOMPARE(a->snapshot().edge_count(), expected.edge_count());
    // Every stage ran: the window shows retained sizes and suspects.
    QVERIFY(a->dominators() != nullptr);
    QVERIFY(a->cycles() != nullptr);
    QVERIFY(a->suspects() != nullptr);
}

void SessionTest::reportsReaderErrors_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected_fragment");
    QTest::newRow("bad magic") << data_file("bad-magic.rscope") << "not a refscope snapshot";
    QTest::newRow("truncated") << data_file("truncated.rscope") << "the input ends after";
    QTest::newRow("bad checksum") << data_file("bad-checksum.rscope") << "checksum mismatch";
    QTest::newRow("corrupt ids") << data_file("corrupt-ids.rscope") << "out of range";
    QTest::newRow("newer version") << data_file("newer-version.rscope") << "open it with refscope 2.0.0 or later";
    QTest::newRow("absurd count") << data_file("absurd-count.rscope") << "exceeds the limit";
    QTest::newRow("missing") << dir_.filePath(QStringLiteral("no-such-file.rscope")) << "No such file";
    QTest::newRow("directory") << dir_.path() << "is a directory";
}

void SessionTest::reportsReaderErrors() {
    QFETCH(QString, path);
    QFETCH(QString, expected_fragment);
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    loader.load({path});
    QVERIFY(record.waitIdle());
    QCOMPARE(record.ends(), (QStringList{"failed:" + path, "idle"}));
    QCOMPARE(record.messages.size(), 1);
    // The reader's own message, unchanged.
    QCOMPARE(record.messages.front(), reader_message(path));
    QVERIFY2(record.messages.front().contains(expected_fragment), qPrintable(record.messages.front()));
}

void SessionTest::queueKeepsOrderAndEndsIdleOnce() {
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    const QString good = data_file("good-v1.rscope");
    const QString bad = data_file("truncated.rscope");
    const QString missing = dir_.filePath(QStringLiteral("missing.rscope"));
    loader.load({good, bad});
    loader.load({missing, good});
    QVERIFY(record.waitIdle());
    // Let anything stray arrive.
    QTest::qWait(50);
    QCOMPARE(record.ends(),
             (QStringList{"loaded:" + good, "failed:" + bad, "failed:" + missing, "loaded:" + good, "idle"}));
    QCOMPARE(record.events.count(QStringLiteral("idle")), 1);
    // Each load is its own analysis.
    QCOMPARE(record.analyses.size(), size_t{2});
    QVERIFY(record.analyses[0] != record.analyses[1]);
}

void SessionTest::progressIsMonotonicAndThrottled() {
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    loader.load({big_file_});
    QVERIFY(record.waitIdle());
    QCOMPARE(record.ends(), (QStringList{"loaded:" + big_file_, "idle"}));
    QVERIFY(!record.progress.isEmpty());
    int last = -1;
    for (const auto& p : record.progress) {
        QCOMPARE(p.path, big_file_);
        QVERIFY(!p.stage.isEmpty());
        QVERIFY2(p.percent >= last, "progress went backwards");
        QVERIFY(p.percent >= 0 && p.percent <= 100);
        last = p.percent;
    }
    // Throttled: at most one signal per interval (plus the first).
    const qint64 span = record.progress.back().at_ms - record.progress.front().at_ms;
    QVERIFY2(record.progress.size() <= span / SnapshotLoader::kProgressInterval.count() + 2,
             qPrintable(QStringLiteral("%1 signals in %2 ms").arg(record.progress.size()).arg(span)));
}

void SessionTest::cancelMidQueue() {
    // A gate in front of the real pipeline holds the first load until the
    // test has cancelled: the cancel lands mid-load every time, whatever the
    // machine's speed. The pipeline then sees the cancel flag and stops.
    std::mutex gate_mutex;
    std::condition_variable gate_changed;
    bool gate_open = false;
    const QString good = data_file("good-v1.rscope");
    SnapshotLoader loader;
    loader.setLoadFunction([&](const std::string& path, const analysis::AnalysisOptions& options) {
        if (path == big_file_.toStdString()) {
            std::unique_lock lock(gate_mutex);
            gate_changed.wait(lock, [&] { return gate_open; });
        }
        return analysis::SnapshotAnalysis::load(path, options);
    });
    LoaderRecorder record(loader);
    QSignalSpy started(&loader, &SnapshotLoader::started);
    loader.load({big_file_, good, big_file_});
    QVERIFY(started.wait(10'000));
    QCOMPARE(started.front().front().toString(), big_file_);
    QCOMPARE(loader.queuedCount(), 2);

    loader.cancel();
    // The queued ones are cancelled at once; the running one is not over yet.
    QCOMPARE(record.ends(), (QStringList{"cancelled:" + good, "cancelled:" + big_file_}));
    QCOMPARE(loader.queuedCount(), 0);
    QVERIFY(loader.isBusy());

    {
        std::lock_guard lock(gate_mutex);
        gate_open = true;
    }
    gate_changed.notify_all();
    QVERIFY(record.waitIdle());
    QCOMPARE(record.ends(),
             (QStringList{"cancelled:" + good, "cancelled:" + big_file_, "cancelled:" + big_file_, "idle"}));
    QVERIFY(record.analyses.empty());
    QVERIFY(!loader.isBusy());

    // The loader works on after a cancel.
    loader.load({good});
    record.events.clear();
    QVERIFY(record.waitIdle());
    QCOMPARE(record.ends(), (QStringList{"loaded:" + good, "idle"}));
}

void SessionTest::refusesNamedPipes() {
    // open() on a FIFO waits for a writer: the loader must not.
    const QString fifo = dir_.filePath(QStringLiteral("pipe.rscope"));
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    loader.load({fifo});
    QVERIFY(record.waitIdle(10'000));
    QCOMPARE(record.ends(), (QStringList{"failed:" + fifo, "idle"}));
    QVERIFY2(record.messages.front().contains(QLatin1String("not a regular file")), qPrintable(record.messages.front()));
}

void SessionTest::cancelWhenIdleDoesNothing() {
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    loader.cancel();
    loader.load({});
    QTest::qWait(30);
    QVERIFY(record.events.isEmpty());
    QVERIFY(!loader.isBusy());
}

void SessionTest::destroyWhileLoading() {
    bool destroying = false;
    int signals_while_destroying = 0;
    QElapsedTimer timer;
    auto loader = std::make_unique<SnapshotLoader>();
    QSignalSpy started(loader.get(), &SnapshotLoader::started);
    const auto count = [&] { signals_while_destroying += destroying ? 1 : 0; };
    QObject::connect(loader.get(), &SnapshotLoader::loaded, count);
    QObject::connect(loader.get(), &SnapshotLoader::failed, count);
    QObject::connect(loader.get(), &SnapshotLoader::cancelled, count);
    QObject::connect(loader.get(), &SnapshotLoader::idle, count);
    loader->load({big_file_, big_file_, big_file_});
    QVERIFY(started.wait(10'000));
    destroying = true;
    timer.start();
    loader.reset();  // cancels and joins
    // The worker stopped at the next stage boundary: well under a full load
    // of three files.
    QVERIFY2(timer.elapsed() < 20'000, qPrintable(QString::number(timer.elapsed())));
    // Events the worker posted before it stopped died with the loader: no
    // signal is emitted during or after destruction.
    QCoreApplication::processEvents();
    QCOMPARE(signals_while_destroying, 0);
}

void SessionTest::timelineOrdersByProcessAndSequence() {
    SnapshotTimeline timeline;
    QSignalSpy changed(&timeline, &SnapshotTimeline::snapshotsChanged);
    const AnalysisPtr b2 = testing::analyse(testing::make_registry_snapshot(20, 2, 200));
    const AnalysisPtr a3 = testing::analyse(testing::make_registry_snapshot(30, 3, 100));
    const AnalysisPtr a1 = testing::analyse(testing::make_registry_snapshot(10, 1, 100));
    const AnalysisPtr b1 = testing::analyse(testing::make_registry_snapshot(10, 1, 200));
    timeline.setAutoBaseline(false);
    for (const AnalysisPtr& a : {b2, a3, a1, b1}) timeline.add(a);
    QCOMPARE(changed.count(), 4);
    // pid 100 before pid 200 (key order), each by sequence.
    QCOMPARE(timeline.snapshots(), (std::vector<AnalysisPtr>{a1, a3, b1, b2}));
    QCOMPARE(timeline.current(), b1);  // the last added
    QCOMPARE(timeline.sameProcess(a3), (std::vector<AnalysisPtr>{a1, a3}));
    QCOMPARE(SnapshotTimeline::processLabel(a1->snapshot()), QStringLiteral("pid 100 (app.py)"));
    QCOMPARE(SnapshotTimeline::snapshotLabel(*a3).left(20), QStringLiteral("#3 after 30 logins, "));
    QVERIFY(SnapshotTimeline::snapshotLabel(*a3).endsWith(QLatin1String("(in memory)")));
    // Adding the same analysis twice changes nothing.
    timeline.add(a1);
    QCOMPARE(timeline.count(), 4);
}

void SessionTest::timelineBaselineRoles() {
    SnapshotTimeline timeline;
    QSignalSpy comparison(&timeline, &SnapshotTimeline::comparisonChanged);
    const AnalysisPtr s1 = testing::analyse(testing::make_registry_snapshot(10, 1));
    const AnalysisPtr s2 = testing::analyse(testing::make_registry_snapshot(20, 2));
    const AnalysisPtr s3 = testing::analyse(testing::make_registry_snapshot(30, 3));
    const AnalysisPtr other = testing::analyse(testing::make_registry_snapshot(5, 1, 999));

    // Newest first: the second snapshot of the process makes the oldest the
    // baseline and keeps the newest current.
    timeline.add(s3);
    QVERIFY(!timeline.baseline());
    timeline.add(s1);
    QCOMPARE(timeline.baseline(), s1);
    QCOMPARE(timeline.current(), s3);
    timeline.add(s2);  // a baseline exists: the new one simply becomes current
    QCOMPARE(timeline.current(), s2);
    QCOMPARE(timeline.baseline(), s1);
    // Another process does not touch the roles.
    timeline.add(other);
    QCOMPARE(timeline.current(), other);
    QCOMPARE(timeline.baseline(), s1);

    timeline.setCurrent(s3);
    timeline.setMiddle(s2);
    QCOMPARE(timeline.middle(), s2);
    // A snapshot is never compared with itself.
    comparison.clear();
    timeline.setCurrent(s2);
    QVERIFY(!timeline.middle());
    QCOMPARE(timeline.baseline(), s1);
    QCOMPARE(comparison.count(), 1);
    timeline.setBaseline(s2);
    QVERIFY(!timeline.baseline());
    // A middle without a baseline means nothing.
    timeline.setCurrent(s3);
    timeline.setMiddle(s2);
    QVERIFY(!timeline.middle());
    // Snapshots that are not open are ignored.
    const AnalysisPtr stranger = testing::analyse(testing::make_registry_snapshot(1, 1));
    timeline.setBaseline(stranger);
    QVERIFY(!timeline.baseline());
    timeline.setCurrent(stranger);
    QCOMPARE(timeline.current(), s3);
}

void SessionTest::timelineRemoveAndFindByPath() {
    SnapshotTimeline timeline;
    timeline.setAutoBaseline(false);
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    loader.load({data_file("good-v1.rscope"), big_file_});
    QVERIFY(record.waitIdle());
    QCOMPARE(record.analyses.size(), size_t{2});
    for (const AnalysisPtr& a : record.analyses) timeline.add(a);
    // Found through another spelling of the same path.
    const QString dotted = QStringLiteral(REFSCOPE_TEST_DATA_DIR "/../data/good-v1.rscope");
    QCOMPARE(timeline.findByPath(dotted), record.analyses[0]);
    QVERIFY(!timeline.findByPath(dir_.filePath(QStringLiteral("nothing.rscope"))));

    const AnalysisPtr s1 = testing::analyse(testing::make_registry_snapshot(10, 1));
    const AnalysisPtr s2 = testing::analyse(testing::make_registry_snapshot(20, 2));
    timeline.add(s1);
    timeline.add(s2);
    timeline.setBaseline(s1);
    QSignalSpy current(&timeline, &SnapshotTimeline::currentChanged);
    // Removing the current snapshot moves to its process' newest other one.
    timeline.remove(s2);
    QCOMPARE(timeline.current(), s1);
    QVERIFY(!timeline.baseline());  // was s1, now current
    QCOMPARE(current.count(), 1);
    timeline.remove(s1);
    QVERIFY(timeline.current() != nullptr);
    QCOMPARE(timeline.count(), 2);
    timeline.clear();
    QVERIFY(timeline.isEmpty());
    QVERIFY(!timeline.current());
}

void SessionTest::comparisonOfTwoSnapshots() {
    const AnalysisPtr before = testing::analyse(testing::make_registry_snapshot(10, 1));
    const AnalysisPtr after = testing::analyse(testing::make_registry_snapshot(60, 2));
    const ComparisonPtr c = analysis::Comparison::compute(before, nullptr, after);
    QCOMPARE(c->baseline(), before);
    QCOMPARE(c->current(), after);
    QVERIFY(!c->survivors());
    // 50 new sessions, each with a key and a token string.
    QCOMPARE(c->diff().totals.new_objects, uint64_t{150});
    QCOMPARE(c->diff().totals.freed_objects, uint64_t{0});
    QCOMPARE(c->new_column().size(), after->snapshot().node_count());
    uint64_t marked = 0;
    for (uint8_t b : c->new_column()) marked += b;
    QCOMPARE(marked, uint64_t{150});
    // The growth is leak evidence against app.Session (and the registry dict
    // where it accumulates).
    const analysis::SuspectGroup* session = c->suspects().find("app.Session");
    QVERIFY(session != nullptr);
    QVERIFY(session->kinds & analysis::kSuspectGrowth);
    QCOMPARE(session->growth_objects, int64_t{50});
    QVERIFY(comparisonDescription(*c).contains(QLatin1String("against #1 after 10 logins")));
}

void SessionTest::comparisonOfThreeSnapshots() {
    const AnalysisPtr s1 = testing::analyse(testing::make_registry_snapshot(10, 1));
    const AnalysisPtr s2 = testing::analyse(testing::make_registry_snapshot(30, 2));
    const AnalysisPtr s3 = testing::analyse(testing::make_registry_snapshot(50, 3));
    const ComparisonPtr c = analysis::Comparison::compute(s1, s2, s3);
    QVERIFY(c->survivors() != nullptr);
    // Allocated between 1 and 2 (20 sessions, keys and tokens), all alive in 3.
    QCOMPARE(c->survivors()->allocated_between, uint64_t{60});
    QCOMPARE(c->survivors()->survivors.size(), size_t{60});
    // The `new` column is the survivors then.
    QCOMPARE(c->new_column().data(), c->survivors()->is_survivor.data());
    const analysis::SuspectGroup* session = c->suspects().find("app.Session");
    QVERIFY(session != nullptr);
    QVERIFY(session->kinds & analysis::kSuspectSurvivor);
}

void SessionTest::comparisonMismatch() {
    const AnalysisPtr s1 = testing::analyse(testing::make_registry_snapshot(10, 1));
    const AnalysisPtr s2 = testing::analyse(testing::make_registry_snapshot(20, 2));
    const AnalysisPtr elsewhere = testing::analyse(testing::make_registry_snapshot(20, 2, 777));
    try {
        analysis::Comparison::compute(s1, nullptr, elsewhere);
        QFAIL("different processes were compared");
    } catch (const analysis::SnapshotMismatchError& e) {
        QCOMPARE(e.reason(), analysis::SnapshotMismatchError::Reason::DifferentProcesses);
        QVERIFY(QString::fromUtf8(e.what()).contains(QLatin1String("different processes")));
    }
    try {
        analysis::Comparison::compute(s2, nullptr, s1);
        QFAIL("snapshots in the wrong order were compared");
    } catch (const analysis::SnapshotMismatchError& e) {
        QCOMPARE(e.reason(), analysis::SnapshotMismatchError::Reason::WrongOrder);
    }
    // An analysis without retained sizes cannot rank suspects.
    analysis::AnalysisOptions lean;
    lean.dominators = lean.cycles = lean.suspects = false;
    const AnalysisPtr bare = analysis::SnapshotAnalysis::analyse(testing::make_registry_snapshot(20, 2), lean);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, analysis::Comparison::compute(s1, nullptr, bare));
}

void SessionTest::comparisonJobDeliversNewestOnly() {
    const AnalysisPtr s1 = testing::analyse(testing::make_registry_snapshot(10, 1));
    const AnalysisPtr s2 = testing::analyse(testing::make_registry_snapshot(20, 2));
    const AnalysisPtr s3 = testing::analyse(testing::make_registry_snapshot(40, 3));
    ComparisonJob job;
    QSignalSpy finished(&job, &ComparisonJob::finished);
    QSignalSpy failed(&job, &ComparisonJob::failed);
    job.start(s1, nullptr, s2);
    job.start(s1, nullptr, s3);  // supersedes the first before it can be delivered
    QVERIFY(job.isRunning());
    QVERIFY(finished.wait(10'000));
    QTest::qWait(50);
    QCOMPARE(finished.count(), 1);
    QCOMPARE(failed.count(), 0);
    QVERIFY(!job.isRunning());
    const auto result = finished.front().front().value<ComparisonPtr>();
    QCOMPARE(result->current(), s3);
    QCOMPARE(job.result(), result);

    // clear() drops a request in flight and the result.
    QSignalSpy cleared(&job, &ComparisonJob::cleared);
    job.start(s2, nullptr, s3);
    job.clear();
    QTest::qWait(100);
    QCOMPARE(finished.count(), 1);
    QCOMPARE(cleared.count(), 1);
    QVERIFY(!job.result());
    // No baseline: nothing to compare.
    job.start(nullptr, nullptr, s3);
    QVERIFY(!job.isRunning());
}

void SessionTest::comparisonJobReportsMismatch() {
    const AnalysisPtr s1 = testing::analyse(testing::make_registry_snapshot(10, 1));
    const AnalysisPtr elsewhere = testing::analyse(testing::make_registry_snapshot(20, 2, 777, "/usr/bin/other"));
    ComparisonJob job;
    QSignalSpy failed(&job, &ComparisonJob::failed);
    job.start(s1, nullptr, elsewhere);
    QVERIFY(failed.wait(10'000));
    const QString message = failed.front().front().toString();
    QVERIFY2(message.startsWith(QLatin1String("snapshots come from different processes: pid 5150")),
             qPrintable(message));
    QVERIFY(!job.result());
}

void SessionTest::latestRequestWorkerDeliversNewestOnly() {
    LatestRequestWorker worker(LatestRequestWorker::Priority::Background);
    QStringList delivered;
    // The first task runs until the test has made it stale.
    std::atomic<bool> first_running = false;
    std::atomic<bool> first_saw_stale = false;
    worker.start([&](const std::atomic<bool>& stale) -> LatestRequestWorker::Delivery {
        first_running = true;
        while (!stale.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        first_saw_stale = true;
        return [&] { delivered << QStringLiteral("first"); };
    });
    QVERIFY(worker.busy());
    QVERIFY(QTest::qWaitFor([&] { return first_running.load(); }, 10'000));
    worker.start([&](const std::atomic<bool>&) -> LatestRequestWorker::Delivery {
        return [&] { delivered << QStringLiteral("second"); };
    });
    QVERIFY(worker.busy());
    QVERIFY(QTest::qWaitFor([&] { return !worker.busy(); }, 10'000));
    QTest::qWait(50);  // a stale delivery would have run by now
    QVERIFY(first_saw_stale);
    QCOMPARE(delivered, QStringList{QStringLiteral("second")});
}

void SessionTest::latestRequestWorkerCancelAndNoDelivery() {
    LatestRequestWorker worker(LatestRequestWorker::Priority::Normal);
    int delivered = 0;
    worker.start([&](const std::atomic<bool>&) -> LatestRequestWorker::Delivery { return [&] { ++delivered; }; });
    worker.cancel();
    QVERIFY(!worker.busy());
    QTest::qWait(100);
    QCOMPARE(delivered, 0);
    // A task with nothing to deliver still ends busy().
    worker.start([](const std::atomic<bool>&) -> LatestRequestWorker::Delivery { return {}; });
    QVERIFY(worker.busy());
    QVERIFY(QTest::qWaitFor([&] { return !worker.busy(); }, 10'000));
    worker.start([&](const std::atomic<bool>&) -> LatestRequestWorker::Delivery { return [&] { ++delivered; }; });
    QVERIFY(QTest::qWaitFor([&] { return delivered == 1; }, 10'000));
    QVERIFY(!worker.busy());
}

void SessionTest::latestRequestWorkerDestroyedDropsDeliveries() {
    int delivered = 0;
    auto held = std::make_shared<int>(0);  // what a delivery holds (a model, a result)
    {
        // Destroyed while a task runs: the task sees `stale`, the worker joins.
        LatestRequestWorker worker(LatestRequestWorker::Priority::Normal);
        std::atomic<bool> running = false;
        worker.start([&, held](const std::atomic<bool>& stale) -> LatestRequestWorker::Delivery {
            running = true;
            while (!stale.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            return [&, held] { ++delivered; };
        });
        QVERIFY(QTest::qWaitFor([&] { return running.load(); }, 10'000));
    }
    QCOMPARE(held.use_count(), 1L);
    {
        // Destroyed with a delivery posted and not yet run.
        LatestRequestWorker worker(LatestRequestWorker::Priority::Normal);
        std::atomic<bool> returned = false;
        worker.start([&, held](const std::atomic<bool>&) -> LatestRequestWorker::Delivery {
            returned = true;
            return [&, held] { ++delivered; };
        });
        while (!returned.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    QTest::qWait(50);
    QCOMPARE(delivered, 0);
    QCOMPARE(held.use_count(), 1L);
}

QTEST_GUILESS_MAIN(SessionTest)
#include "session_test.moc"

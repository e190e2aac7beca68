// The session's snapshot bookkeeping on built snapshots: SnapshotTimeline
// (order by process and sequence, baseline roles, removal, look-up by path),
// Comparison/ComparisonJob (two and three snapshots, mismatches, newest
// request wins) and the LatestRequestWorker behind ComparisonJob, FilterJob
// and ModelBuildJob.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <memory>
#include <thread>
#include <vector>

#include <QSignalSpy>
#include <QtTest>

#include "refscope/analysis/snapshot_analysis.h"
#include "refscope/analysis/snapshot_diff.h"
#include "session/comparison.h"
#include "session/latest_request_worker.h"
#include "session/snapshot_timeline.h"
#include "session_fixtures.h"

using namespace refscope;
using namespace refscope::app;

namespace {

QString data_file(const char* name) { return QStringLiteral(REFSCOPE_TEST_DATA_DIR "/") + QLatin1String(name); }

}  // namespace

class TimelineComparisonTest : public QObject {
    Q_OBJECT

private slots:
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
};

void TimelineComparisonTest::timelineOrdersByProcessAndSequence() {
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

void TimelineComparisonTest::timelineBaselineRoles() {
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

void TimelineComparisonTest::timelineRemoveAndFindByPath() {
    SnapshotTimeline timeline;
    timeline.setAutoBaseline(false);
    // Two snapshots read from files, as the loader reads them.
    std::vector<AnalysisPtr> files;
    for (const char* name : {"good-v1.rscope", "good-v1.3.rscope"}) {
        files.push_back(analysis::SnapshotAnalysis::load(data_file(name).toStdString(), {}));
        timeline.add(files.back());
    }
    // Found through another spelling of the same path.
    const QString dotted = QStringLiteral(REFSCOPE_TEST_DATA_DIR "/../data/good-v1.rscope");
    QCOMPARE(timeline.findByPath(dotted), files[0]);
    QVERIFY(!timeline.findByPath(data_file("nothing.rscope")));

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

void TimelineComparisonTest::comparisonOfTwoSnapshots() {
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

void TimelineComparisonTest::comparisonOfThreeSnapshots() {
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

void TimelineComparisonTest::comparisonMismatch() {
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

void TimelineComparisonTest::comparisonJobDeliversNewestOnly() {
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

void TimelineComparisonTest::comparisonJobReportsMismatch() {
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

void TimelineComparisonTest::latestRequestWorkerDeliversNewestOnly() {
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

void TimelineComparisonTest::latestRequestWorkerCancelAndNoDelivery() {
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

void TimelineComparisonTest::latestRequestWorkerDestroyedDropsDeliveries() {
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

QTEST_GUILESS_MAIN(TimelineComparisonTest)
#include "timeline_comparison_test.moc"

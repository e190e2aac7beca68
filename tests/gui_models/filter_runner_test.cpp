// run_filter and filter_completions over the fixture heap: selections, every
// derived column, errors with the column they point at, completions.
#include <QtTest>

#include "heap_fixture.h"
#include "models/filter_job.h"
#include "models/filter_runner.h"
#include "session/analysis_ptr.h"

using namespace refscope;
using namespace refscope::app;
using refscope::test_fixture::Heap;

class FilterRunnerTest : public QObject {
    Q_OBJECT
private slots:
    void selectsMatchingNodes();
    void derivedColumns();
    void blankTextMeansEverything();
    void syntaxErrorsCarryTheirColumn();
    void missingColumnErrorsPointAtTheTerm();
    void completions();
    void jobDeliversTheNewestResultOnly();
    void jobCancelAndEmptyStates();
};

void FilterRunnerTest::selectsMatchingNodes() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const FilterResult leaky = run_filter(*a, "type:app.Leaky");
    QVERIFY(leaky.ok);
    QVERIFY(leaky.error.isEmpty());
    QCOMPARE(*leaky.nodes, (std::vector<uint32_t>{h.leaky[0], h.leaky[1], h.leaky[2], h.leaked}));
    const FilterResult surplus = run_filter(*a, "unexplained>0");
    QCOMPARE(*surplus.nodes, std::vector<uint32_t>{h.leaked});
    const FilterResult far = run_filter(*a, "type:app.* distance>=3 -unreachable");
    QCOMPARE(*far.nodes, (std::vector<uint32_t>{h.cache}));
}

void FilterRunnerTest::derivedColumns() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    // retained: from the dominator tree (leaked retains itself + payload).
    QCOMPARE(*run_filter(*a, "type:app.Leaky retained>100").nodes, std::vector<uint32_t>{h.leaked});
    // cycle: the Wrapper cycle is the heap's only cycle.
    QCOMPARE(*run_filter(*a, "cycle").nodes, (std::vector<uint32_t>{h.wrapper, h.closure}));
    // suspect: the leak suspects' per-node column (the leaked Leaky has
    // unexplained surplus; the Wrapper cycle is uncollectable).
    const std::vector<uint32_t> suspects = *run_filter(*a, "suspect").nodes;
    QVERIFY(std::find(suspects.begin(), suspects.end(), h.leaked) != suspects.end());
    QVERIFY(std::find(suspects.begin(), suspects.end(), h.cache) == suspects.end());
    // new: from the baseline column given.
    std::vector<uint8_t> is_new(a->snapshot().node_count(), 0);
    is_new[h.leaky[2]] = 1;
    QCOMPARE(*run_filter(*a, "new type:app.*", is_new).nodes, std::vector<uint32_t>{h.leaky[2]});
}

void FilterRunnerTest::blankTextMeansEverything() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    for (const QString& text : {QString(), QString("   "), QString("\t")}) {
        const FilterResult r = run_filter(*a, text);
        QVERIFY(r.ok);
        QVERIFY(!r.nodes);
        QCOMPARE(r.errorColumn, 0);
    }
    // Matching nothing is not "everything".
    const FilterResult none = run_filter(*a, "size>1GB");
    QVERIFY(none.ok);
    QVERIFY(none.nodes);
    QVERIFY(none.nodes->empty());
}

void FilterRunnerTest::syntaxErrorsCarryTheirColumn() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const FilterResult typo = run_filter(*a, "sise>1000");
    QVERIFY(!typo.ok);
    QVERIFY(!typo.nodes);
    QCOMPARE(typo.errorColumn, 1);
    QVERIFY2(typo.error.contains("did you mean 'size'"), qPrintable(typo.error));
    const FilterResult later = run_filter(*a, "type:app.* AND (size>");
    QVERIFY(!later.ok);
    QVERIFY(later.errorColumn > 16);
    // Columns count characters as the line edit does, not UTF-8 bytes.
    const FilterResult unicode = run_filter(*a, QString::fromUtf8("preview:\"\u00e9t\u00e9\" sise>1"));
    QVERIFY(!unicode.ok);
    QCOMPARE(unicode.errorColumn, 15);
}

void FilterRunnerTest::missingColumnErrorsPointAtTheTerm() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const FilterResult r = run_filter(*a, "type:app.* new");
    QVERIFY(!r.ok);
    QCOMPARE(r.errorColumn, 12);
    QVERIFY2(r.error.contains("'new'"), qPrintable(r.error));
    QVERIFY2(r.error.contains("baseline"), qPrintable(r.error));
    // A column of the wrong length is ignored rather than trusted.
    const std::vector<uint8_t> wrong(3, 1);
    QVERIFY(!run_filter(*a, "new", wrong).ok);

    // Without the dominator analysis, `retained` is refused where it stands.
    Heap h2;
    analysis::AnalysisOptions options;
    options.dominators = false;
    options.suspects = false;
    const AnalysisPtr bare(analysis::SnapshotAnalysis::analyse(test_fixture::build_heap(h2), options));
    const FilterResult no_tree = run_filter(*bare, "size>10 retained>1KB");
    QVERIFY(!no_tree.ok);
    QCOMPARE(no_tree.errorColumn, 9);
    QVERIFY2(no_tree.error.contains("retained"), qPrintable(no_tree.error));
}

void FilterRunnerTest::completions() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const QStringList types = filter_completions("size>10 type:app.", *a);
    QCOMPARE(types, (QStringList{"size>10 type:app.Cache", "size>10 type:app.Leaky"}));
    const QStringList flags = filter_completions("(size>1 OR unre", *a);
    QVERIFY2(flags.contains("(size>1 OR unreachable"), qPrintable(flags.join(", ")));
    const QStringList fields = filter_completions("-si", *a);
    QCOMPARE(fields, QStringList{"-size>"});
    QVERIFY(filter_completions("zzz", *a).isEmpty());
    QCOMPARE(filter_completions("", *a, 3).size(), 3);
}

void FilterRunnerTest::jobDeliversTheNewestResultOnly() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    FilterJob job;
    QSignalSpy spy(&job, &FilterJob::finished);
    job.start(a, "type:dict");
    job.start(a, "type:app.Leaky unexplained>0");
    QVERIFY(job.busy());
    QVERIFY(spy.wait(5000));
    QTest::qWait(50);  // a superseded result would arrive by now
    QCOMPARE(spy.count(), 1);
    const auto result = spy.at(0).at(0).value<FilterResult>();
    QCOMPARE(spy.at(0).at(1).toString(), QString("type:app.Leaky unexplained>0"));
    QVERIFY(result.ok);
    QCOMPARE(*result.nodes, std::vector<uint32_t>{h.leaked});
    QVERIFY(!job.busy());

    // The baseline column travels with the request.
    auto is_new = std::make_shared<std::vector<uint8_t>>(a->snapshot().node_count(), 0);
    (*is_new)[h.cache] = 1;
    job.start(a, "new", is_new);
    QVERIFY(spy.wait(5000));
    QCOMPARE(*spy.at(1).at(0).value<FilterResult>().nodes, std::vector<uint32_t>{h.cache});
    // Errors come back the same way.
    job.start(a, "sise>1");
    QVERIFY(spy.wait(5000));
    QCOMPARE(spy.at(2).at(0).value<FilterResult>().errorColumn, 1);
}

void FilterRunnerTest::jobCancelAndEmptyStates() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    {
        FilterJob job;
        QSignalSpy spy(&job, &FilterJob::finished);
        job.start(a, "type:dict");
        job.cancel();
        QVERIFY(!job.busy());
        QTest::qWait(100);
        QCOMPARE(spy.count(), 0);
        job.start(nullptr, "size>1");
        QVERIFY(spy.wait(5000));
        QVERIFY(!spy.at(0).at(0).value<FilterResult>().ok);
        job.start(a, "type:dict");  // destroyed while running or queued: joins, delivers nothing
    }
}

QTEST_MAIN(FilterRunnerTest)
#include "filter_runner_test.moc"

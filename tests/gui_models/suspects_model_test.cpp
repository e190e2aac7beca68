// SuspectsModel: rows in LeakSuspects' order with their evidence, the
// representative node, low-confidence rows grey, every reason in the
// tooltip, suspects built with a baseline, sorting, and the model tester.
#include <QAbstractItemModelTester>
#include <QColor>
#include <QtTest>

#include "heap_fixture.h"
#include "models/model_roles.h"
#include "models/suspects_model.h"
#include "models/text_colours.h"
#include "refscope/analysis/snapshot_diff.h"

using namespace refscope;
using namespace refscope::app;
using refscope::test_fixture::Heap;

namespace {

// The fixture heap plus one interned-looking str with unexplained surplus: a
// low-confidence row (the interpreter's own C statics hold such strings).
AnalysisPtr heap_with_noise(Heap& h) {
    Snapshot s = test_fixture::build_heap(h);
    s.node_refcount[h.key_app] += 1;
    return test_fixture::analyse(std::move(s));
}

}  // namespace

class SuspectsModelTest : public QObject {
    Q_OBJECT
private slots:
    void rowsFollowTheRanking();
    void lowConfidenceRowsAreGrey();
    void suspectsWithABaseline();
    void sorting();
    void emptyStates();
};

void SuspectsModelTest::rowsFollowTheRanking() {
    Heap h;
    const AnalysisPtr a = heap_with_noise(h);
    SuspectsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSuspects(a);
    const auto& groups = a->suspects()->groups();
    QVERIFY(groups.size() >= 3);
    QCOMPARE(model.rowCount(), static_cast<int>(groups.size()));
    for (int row = 0; row < model.rowCount(); ++row) {
        const analysis::SuspectGroup& g = groups[static_cast<size_t>(row)];
        QCOMPARE(model.data(model.index(row, SuspectsModel::TypeColumn)).toString(), QString::fromStdString(g.type));
        QCOMPARE(model.representativeNode(row), g.representative);
        QCOMPARE(model.data(model.index(row, 0), NodeIdRole).toUInt(), g.representative);
        QCOMPARE(model.data(model.index(row, SuspectsModel::ReasonColumn)).toString(), QString::fromStdString(g.reason));
        QCOMPARE(model.data(model.index(row, SuspectsModel::ObjectsColumn), SortKeyRole).toULongLong(), g.objects);
        QCOMPARE(model.data(model.index(row, SuspectsModel::RetainedBytesColumn), SortKeyRole).toULongLong(),
                 g.retained_bytes);
        QCOMPARE(model.data(model.index(row, SuspectsModel::ScoreColumn), SortKeyRole).toDouble(), g.score);
        // The tooltip lists every reason.
        const QString tooltip = model.data(model.index(row, SuspectsModel::ScoreColumn), Qt::ToolTipRole).toString();
        for (const std::string& reason : g.reasons) QVERIFY(tooltip.contains(QString::fromStdString(reason)));
    }
    // The leaked Leaky: unexplained surplus, high confidence; the Wrapper
    // cycle: uncollectable.
    int leaky = -1, wrapper = -1;
    for (int row = 0; row < model.rowCount(); ++row) {
        const QString type = model.data(model.index(row, SuspectsModel::TypeColumn)).toString();
        if (type == "app.Leaky" && leaky < 0) leaky = row;
        if (type == "fixture.Wrapper" && wrapper < 0) wrapper = row;
    }
    QVERIFY(leaky >= 0 && wrapper >= 0);
    QCOMPARE(model.representativeNode(leaky), h.leaked);
    QCOMPARE(model.data(model.index(leaky, SuspectsModel::ConfidenceColumn)).toString(), QString("high"));
    QVERIFY(model.data(model.index(leaky, SuspectsModel::EvidenceColumn)).toString().contains("unexplained surplus"));
    QVERIFY(model.data(model.index(wrapper, SuspectsModel::EvidenceColumn)).toString().contains("uncollectable cycle"));
    QCOMPARE(model.representativeNode(wrapper), h.wrapper);
    QCOMPARE(model.representativeNode(model.rowCount()), kNoNode);
}

void SuspectsModelTest::lowConfidenceRowsAreGrey() {
    Heap h;
    const AnalysisPtr a = heap_with_noise(h);
    SuspectsModel model;
    model.setSuspects(a);
    const size_t high = a->suspects()->high_confidence_count();
    QVERIFY(high > 0);
    QVERIFY(static_cast<size_t>(model.rowCount()) > high);
    for (int row = 0; row < model.rowCount(); ++row) {
        const QVariant colour = model.data(model.index(row, SuspectsModel::TypeColumn), Qt::ForegroundRole);
        if (static_cast<size_t>(row) < high) {
            QVERIFY(!colour.isValid());
            QCOMPARE(model.data(model.index(row, SuspectsModel::ConfidenceColumn)).toString(), QString("high"));
        } else {
            QCOMPARE(colour.value<QColor>(), text_colour(TextRole::Muted));  // grey on a light base, dimmed text on a dark one
            QCOMPARE(model.data(model.index(row, SuspectsModel::ConfidenceColumn)).toString(), QString("low"));
        }
    }
    const analysis::SuspectGroup* str = a->suspects()->find("str");
    QVERIFY(str);
    QCOMPARE(str->confidence, analysis::SuspectConfidence::Low);
}

void SuspectsModelTest::suspectsWithABaseline() {
    Heap before_heap, h;
    const Snapshot before = test_fixture::build_heap(before_heap, 0);
    const AnalysisPtr a = test_fixture::analysed_heap(h, 3);
    const analysis::SnapshotDiff diff = analysis::diff_snapshots(before, a->snapshot());
    analysis::SuspectInputs inputs = a->suspect_inputs();
    inputs.diff = &diff;
    analysis::SuspectOptions options;
    options.min_growth_objects = 1;
    auto suspects = std::make_shared<const analysis::LeakSuspects>(inputs, options);
    SuspectsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSuspects(a, suspects);
    QCOMPARE(model.suspects(), suspects.get());
    QCOMPARE(model.rowCount(), static_cast<int>(suspects->groups().size()));
    const analysis::SuspectGroup* leaky = suspects->find("app.Leaky");
    QVERIFY(leaky);
    QVERIFY(leaky->kinds & analysis::kSuspectGrowth);
    bool found = false;
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.groupAt(row) == leaky) {
            found = true;
            QVERIFY(model.data(model.index(row, SuspectsModel::EvidenceColumn)).toString().contains("growth"));
        }
    }
    QVERIFY(found);
}

void SuspectsModelTest::sorting() {
    Heap h;
    const AnalysisPtr a = heap_with_noise(h);
    SuspectsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSuspects(a);
    const QPersistentModelIndex first = model.index(0, 0);
    const QString first_type = model.data(first).toString();
    for (int column = 0; column < SuspectsModel::ColumnCount; ++column) {
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            model.sort(column, order);
            QCOMPARE(model.data(first).toString(), first_type);  // the view's row follows
            for (int row = 1; row < model.rowCount(); ++row) {
                const auto ordering = QVariant::compare(model.data(model.index(row - 1, column), SortKeyRole),
                                                        model.data(model.index(row, column), SortKeyRole));
                QVERIFY(order == Qt::AscendingOrder ? ordering != QPartialOrdering::Greater
                                                    : ordering != QPartialOrdering::Less);
            }
        }
    }
    model.sort(-1);
    for (int row = 0; row < model.rowCount(); ++row) QCOMPARE(model.groupAt(row), &a->suspects()->groups()[static_cast<size_t>(row)]);
}

void SuspectsModelTest::emptyStates() {
    SuspectsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setSuspects(nullptr);
    QCOMPARE(model.rowCount(), 0);
    analysis::AnalysisOptions options;
    options.suspects = false;
    Heap h;
    model.setSuspects(AnalysisPtr(analysis::SnapshotAnalysis::analyse(test_fixture::build_heap(h), options)));
    QCOMPARE(model.rowCount(), 0);
    model.setSuspects(test_fixture::analyse(Snapshot{}));
    QCOMPARE(model.rowCount(), 0);
    model.sort(SuspectsModel::ScoreColumn, Qt::DescendingOrder);
    QCOMPARE(model.representativeNode(0), kNoNode);
}

QTEST_MAIN(SuspectsModelTest)
#include "suspects_model_test.moc"

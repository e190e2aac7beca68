// TypeSummaryModel over the fixture heap: counts and bytes per type and per
// module, the selection, retained bytes without double counting, deltas from
// a real diff, sorting, and QAbstractItemModelTester throughout.
#include <QAbstractItemModelTester>
#include <QtTest>

#include <map>

#include "heap_fixture.h"
#include "models/model_roles.h"
#include "models/type_summary_model.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/grouping.h"
#include "refscope/analysis/snapshot_diff.h"

using namespace refscope;
using namespace refscope::app;
using refscope::test_fixture::Heap;

namespace {

QVariant cell(const TypeSummaryModel& model, int row, int column, int role = Qt::DisplayRole) {
    return model.data(model.index(row, column), role);
}

int row_named(const TypeSummaryModel& model, const QString& name) {
    const int row = model.rowOfGroup(name);
    for (int r = 0; r < model.rowCount(); ++r) {
        if (model.groupName(r) == name) {
            if (r != row) return -2;  // rowOfGroup disagrees with groupName
            return r;
        }
    }
    return -1;
}

}  // namespace

class TypeSummaryModelTest : public QObject {
    Q_OBJECT
private slots:
    void countsMatchTheSnapshot();
    void byModuleGroupsModuleObjectsByTheirName();
    void retainedCountsNestedObjectsOnce();
    void unexplainedSurplusPerType();
    void selectionRestrictsCounts();
    void deltasMatchADiffOfTwoSnapshots();
    void sortsByEveryColumn();
    void emptySnapshot();
};

void TypeSummaryModelTest::countsMatchTheSnapshot() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    TypeSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a);

    // The same groups, counts and bytes as core's group_objects (the CLI's
    // `summary`), in the same default order (bytes descending).
    const auto expected = analysis::group_objects(a->snapshot(), analysis::GroupBy::Type);
    QCOMPARE(model.rowCount(), static_cast<int>(expected.size()));
    uint64_t objects = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
        const int row = static_cast<int>(i);
        QCOMPARE(model.groupName(row), QString::fromStdString(expected[i].name));
        QCOMPARE(cell(model, row, TypeSummaryModel::ObjectsColumn, SortKeyRole).toULongLong(), expected[i].objects);
        QCOMPARE(cell(model, row, TypeSummaryModel::ShallowBytesColumn, SortKeyRole).toULongLong(), expected[i].bytes);
        objects += expected[i].objects;
    }
    QCOMPARE(model.totalObjects(), objects);
    QCOMPARE(model.totalObjects(), a->snapshot().node_count());

    const int leaky = row_named(model, "app.Leaky");
    QVERIFY(leaky >= 0);
    QCOMPARE(cell(model, leaky, TypeSummaryModel::ObjectsColumn).toString(), QString("4"));
    QCOMPARE(cell(model, leaky, TypeSummaryModel::ShallowBytesColumn).toString(), QString("256 B"));
    QCOMPARE(cell(model, leaky, TypeSummaryModel::ShallowBytesColumn, Qt::ToolTipRole).toString(),
             QString("256 bytes"));
    QCOMPARE(cell(model, leaky, TypeSummaryModel::ObjectsColumn, Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignRight | Qt::AlignVCenter));
    const std::vector<uint32_t> expected_nodes{h.leaky[0], h.leaky[1], h.leaky[2], h.leaked};
    QCOMPARE(model.nodesOf(leaky), expected_nodes);
    // No baseline: the delta cells are empty.
    QVERIFY(!cell(model, leaky, TypeSummaryModel::DeltaObjectsColumn).isValid());
}

void TypeSummaryModelTest::byModuleGroupsModuleObjectsByTheirName() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    TypeSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a, analysis::GroupBy::Module);
    const auto expected = analysis::group_objects(a->snapshot(), analysis::GroupBy::Module);
    QCOMPARE(model.rowCount(), static_cast<int>(expected.size()));
    for (size_t i = 0; i < expected.size(); ++i) {
        const int row = row_named(model, QString::fromStdString(expected[i].name));
        QVERIFY(row >= 0);
        QCOMPARE(cell(model, row, TypeSummaryModel::ObjectsColumn, SortKeyRole).toULongLong(), expected[i].objects);
    }
    // module app (the object) belongs to "app" with app.Cache and the Leakys.
    const int app = row_named(model, "app");
    const std::vector<uint32_t> app_nodes{h.module_app, h.cache, h.leaky[0], h.leaky[1], h.leaky[2], h.leaked};
    QCOMPARE(model.nodesOf(app), app_nodes);
    // Says whose module it is (issue 16: "Module" read as the holding one).
    QCOMPARE(model.headerData(TypeSummaryModel::NameColumn, Qt::Horizontal).toString(), QString("Type's module"));
}

void TypeSummaryModelTest::retainedCountsNestedObjectsOnce() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const analysis::DominatorTree& tree = *a->dominators();
    TypeSummaryModel model;
    model.setAnalysis(a);
    const auto retained = [&](const char* name) {
        return cell(model, row_named(model, name), TypeSummaryModel::RetainedBytesColumn, SortKeyRole).toULongLong();
    };
    // sys.modules dominates app's __dict__: `dict` counts sys.modules' subtree
    // once, plus the interned-strings dict (not nested in another dict).
    QCOMPARE(tree.idom(h.app_dict), h.module_app);
    QCOMPARE(retained("dict"), tree.retained_size(h.modules) + tree.retained_size(h.interned));
    // The items list is a root of its own (a frame local); the payload list
    // hangs under the leaked Leaky: two separate subtrees.
    QCOMPARE(retained("list"), tree.retained_size(h.items) + tree.retained_size(h.payload));
    uint64_t leaky = 0;
    for (uint32_t n : {h.leaky[0], h.leaky[1], h.leaky[2], h.leaked}) leaky += tree.retained_size(n);
    QCOMPARE(retained("app.Leaky"), leaky);
    QCOMPARE(tree.retained_size(h.leaked), uint64_t{64 + 56});
    // The Wrapper cycle is reached by no root: each object retains itself.
    QVERIFY(!tree.reachable(h.wrapper));
    QCOMPARE(retained("fixture.Wrapper"), uint64_t{40});
    QCOMPARE(retained("function"), uint64_t{136});
}

void TypeSummaryModelTest::unexplainedSurplusPerType() {
    Heap h;
    TypeSummaryModel model;
    model.setAnalysis(test_fixture::analysed_heap(h));
    QCOMPARE(cell(model, row_named(model, "app.Leaky"), TypeSummaryModel::UnexplainedColumn, SortKeyRole).toLongLong(),
             2);
    QCOMPARE(cell(model, row_named(model, "dict"), TypeSummaryModel::UnexplainedColumn, SortKeyRole).toLongLong(), 0);
}

void TypeSummaryModelTest::selectionRestrictsCounts() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    TypeSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a);
    auto selection = std::make_shared<const std::vector<uint32_t>>(
        std::vector<uint32_t>{h.leaky[1], h.leaked, h.app_dict, h.payload});
    model.setSelection(selection);
    QVERIFY(model.hasSelection());
    QCOMPARE(model.rowCount(), 3);  // app.Leaky, dict, list
    QCOMPARE(model.totalObjects(), uint64_t{4});
    const int leaky = row_named(model, "app.Leaky");
    QCOMPARE(cell(model, leaky, TypeSummaryModel::ObjectsColumn, SortKeyRole).toULongLong(), uint64_t{2});
    QCOMPARE(cell(model, leaky, TypeSummaryModel::ShallowBytesColumn, SortKeyRole).toULongLong(), uint64_t{128});
    QCOMPARE(cell(model, leaky, TypeSummaryModel::UnexplainedColumn, SortKeyRole).toLongLong(), 2);
    const std::vector<uint32_t> leaky_nodes{h.leaky[1], h.leaked};
    QCOMPARE(model.nodesOf(leaky), leaky_nodes);
    // Only app's __dict__ is selected among dicts: its own subtree counts.
    const analysis::DominatorTree& tree = *a->dominators();
    QCOMPARE(cell(model, row_named(model, "dict"), TypeSummaryModel::RetainedBytesColumn, SortKeyRole).toULongLong(),
             tree.retained_size(h.app_dict));
    // The payload list is selected but its dominator (leaked) is a Leaky,
    // not a list: it counts.
    QCOMPARE(cell(model, row_named(model, "list"), TypeSummaryModel::RetainedBytesColumn, SortKeyRole).toULongLong(),
             tree.retained_size(h.payload));
    QCOMPARE(row_named(model, "str"), -1);

    model.setSelection(nullptr);
    QCOMPARE(model.totalObjects(), a->snapshot().node_count());
}

void TypeSummaryModelTest::deltasMatchADiffOfTwoSnapshots() {
    Heap before_heap, h;
    const Snapshot before = test_fixture::build_heap(before_heap, 1);
    const AnalysisPtr a = test_fixture::analysed_heap(h, 3);
    const auto diff = std::make_shared<const analysis::SnapshotDiff>(analysis::diff_snapshots(before, a->snapshot()));

    TypeSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a);
    model.sort(TypeSummaryModel::DeltaBytesColumn, Qt::DescendingOrder);
    QVERIFY(model.setBaseline(diff));
    QVERIFY(model.hasBaseline());

    // Two more app.Leaky in the list (64 bytes each); the list's preview
    // changed but not its size; everything else is as before.
    const int leaky = row_named(model, "app.Leaky");
    QCOMPARE(cell(model, leaky, TypeSummaryModel::DeltaObjectsColumn, SortKeyRole).toLongLong(), 2);
    QCOMPARE(cell(model, leaky, TypeSummaryModel::DeltaBytesColumn, SortKeyRole).toLongLong(), 128);
    QCOMPARE(cell(model, leaky, TypeSummaryModel::DeltaObjectsColumn).toString(), QString("+2"));
    QCOMPARE(cell(model, leaky, TypeSummaryModel::DeltaBytesColumn).toString(), QString("+128 B"));
    for (const analysis::TypeDelta& d : diff->types) {
        const int row = row_named(model, QString::fromStdString(d.name));
        QVERIFY(row >= 0);
        QCOMPARE(cell(model, row, TypeSummaryModel::DeltaObjectsColumn, SortKeyRole).toLongLong(), d.object_delta());
        QCOMPARE(cell(model, row, TypeSummaryModel::DeltaBytesColumn, SortKeyRole).toLongLong(), d.byte_delta());
    }
    QCOMPARE(cell(model, row_named(model, "module"), TypeSummaryModel::DeltaObjectsColumn).toString(), QString("0"));
    // Sorted by Δ bytes, largest growth first.
    QCOMPARE(model.groupName(0), QString("app.Leaky"));

    // A selection does not change the whole-type deltas.
    model.setSelection(std::make_shared<const std::vector<uint32_t>>(std::vector<uint32_t>{h.leaked}));
    QCOMPARE(cell(model, 0, TypeSummaryModel::DeltaObjectsColumn, SortKeyRole).toLongLong(), 2);

    // A diff of other snapshots (another node count) is refused.
    Heap other;
    const Snapshot small = test_fixture::build_heap(other, 0);
    const auto wrong = std::make_shared<const analysis::SnapshotDiff>(analysis::diff_snapshots(before, small));
    QVERIFY(!model.setBaseline(wrong));
    QVERIFY(!model.hasBaseline());
    QVERIFY(!cell(model, 0, TypeSummaryModel::DeltaObjectsColumn).isValid());

    // By module the deltas are the diff's per-module ones: app gained the
    // two app.Leaky; every module row has a delta.
    model.setAnalysis(a, analysis::GroupBy::Module);
    QVERIFY(model.setBaseline(diff));
    const int app = row_named(model, "app");
    QVERIFY(app >= 0);
    QCOMPARE(cell(model, app, TypeSummaryModel::DeltaObjectsColumn, SortKeyRole).toLongLong(), 2);
    QCOMPARE(cell(model, app, TypeSummaryModel::DeltaBytesColumn, SortKeyRole).toLongLong(), 128);
    QVERIFY(!diff->modules.empty());
    for (const analysis::TypeDelta& d : diff->modules) {
        const int row = row_named(model, QString::fromStdString(d.name));
        QVERIFY(row >= 0);
        QCOMPARE(cell(model, row, TypeSummaryModel::DeltaObjectsColumn, SortKeyRole).toLongLong(), d.object_delta());
    }
    for (int row = 0; row < model.rowCount(); ++row) {
        QVERIFY(cell(model, row, TypeSummaryModel::DeltaObjectsColumn).isValid());
    }
}

void TypeSummaryModelTest::sortsByEveryColumn() {
    Heap before_heap, h;
    const Snapshot before = test_fixture::build_heap(before_heap, 1);
    const AnalysisPtr a = test_fixture::analysed_heap(h, 3);
    TypeSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a);
    model.setBaseline(std::make_shared<const analysis::SnapshotDiff>(analysis::diff_snapshots(before, a->snapshot())));
    for (int column = 0; column < TypeSummaryModel::ColumnCount; ++column) {
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            // A view's current row follows its group.
            const QPersistentModelIndex leaky = model.index(row_named(model, "app.Leaky"), column);
            model.sort(column, order);
            QCOMPARE(model.sortColumn(), column);
            QCOMPARE(model.groupName(leaky.row()), QString("app.Leaky"));
            for (int row = 1; row < model.rowCount(); ++row) {
                const QVariant previous = cell(model, row - 1, column, SortKeyRole);
                const QVariant current = cell(model, row, column, SortKeyRole);
                const auto ordering = QVariant::compare(previous, current);
                const bool in_order = order == Qt::AscendingOrder ? ordering != QPartialOrdering::Greater
                                                                  : ordering != QPartialOrdering::Less;
                QVERIFY2(in_order, qPrintable(QString("column %1 row %2").arg(column).arg(row)));
                if (ordering == QPartialOrdering::Equivalent) {
                    QVERIFY(model.groupName(row - 1) < model.groupName(row));  // ties by name
                }
            }
        }
    }
}

void TypeSummaryModelTest::emptySnapshot() {
    TypeSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.nodesOf(0).empty());
    model.setAnalysis(test_fixture::analyse(Snapshot{}));
    QCOMPARE(model.rowCount(), 0);
    model.setSelection(std::make_shared<const std::vector<uint32_t>>(std::vector<uint32_t>{0, 5}));
    QCOMPARE(model.rowCount(), 0);
    model.sort(TypeSummaryModel::NameColumn, Qt::AscendingOrder);
    QCOMPARE(model.groupName(0), QString());
}

QTEST_MAIN(TypeSummaryModelTest)
#include "type_summary_model_test.moc"

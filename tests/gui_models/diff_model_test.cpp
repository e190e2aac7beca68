// DiffModel: rows and values from a real diff of two built snapshots,
// survivors of three, survivors-only rows, sorting, and the model tester.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "heap_fixture.h"
#include "models/diff_model.h"
#include "models/model_roles.h"

using namespace refscope;
using namespace refscope::app;
using refscope::test_fixture::Heap;

namespace {

Snapshot heap(int list_length) {
    Heap h;
    return test_fixture::build_heap(h, list_length);
}

QVariant key(const DiffModel& model, int row, int column) {
    return model.data(model.index(row, column), SortKeyRole);
}

}  // namespace

class DiffModelTest : public QObject {
    Q_OBJECT
private slots:
    void rowsMatchTheDiff();
    void survivorsOfThreeSnapshots();
    void sortsByEveryColumn();
    void emptyStates();
};

void DiffModelTest::rowsMatchTheDiff() {
    const Snapshot a = heap(1), b = heap(3);
    auto diff = std::make_shared<const analysis::SnapshotDiff>(analysis::diff_snapshots(a, b));
    DiffModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setDiff(diff);
    QVERIFY(!diff->types.empty());
    QCOMPARE(model.rowCount(), static_cast<int>(diff->types.size()));
    for (int row = 0; row < model.rowCount(); ++row) {
        const analysis::TypeDelta& d = diff->types[static_cast<size_t>(row)];
        QCOMPARE(model.typeName(row), QString::fromStdString(d.name));
        QCOMPARE(key(model, row, DiffModel::ObjectsAColumn).toULongLong(), d.objects_a);
        QCOMPARE(key(model, row, DiffModel::ObjectsBColumn).toULongLong(), d.objects_b);
        QCOMPARE(key(model, row, DiffModel::DeltaObjectsColumn).toLongLong(), d.object_delta());
        QCOMPARE(key(model, row, DiffModel::BytesAColumn).toULongLong(), d.bytes_a);
        QCOMPARE(key(model, row, DiffModel::BytesBColumn).toULongLong(), d.bytes_b);
        QCOMPARE(key(model, row, DiffModel::DeltaBytesColumn).toLongLong(), d.byte_delta());
        QCOMPARE(key(model, row, DiffModel::NewColumn).toULongLong(), d.new_objects);
        QCOMPARE(key(model, row, DiffModel::FreedColumn).toULongLong(), d.freed_objects);
        QVERIFY(!key(model, row, DiffModel::SurvivorsColumn).isValid());
    }
    // The headers say which snapshot each column counts (issue 16: "Objects
    // A / Objects B" did not).
    for (const int column : {int(DiffModel::ObjectsAColumn), int(DiffModel::BytesAColumn)}) {
        QVERIFY(model.headerData(column, Qt::Horizontal).toString().startsWith(QLatin1String("Baseline ")));
    }
    for (const int column : {int(DiffModel::ObjectsBColumn), int(DiffModel::BytesBColumn)}) {
        QVERIFY(model.headerData(column, Qt::Horizontal).toString().startsWith(QLatin1String("Current ")));
    }
    const int leaky = model.rowOfType("app.Leaky");
    QVERIFY(leaky >= 0);
    QCOMPARE(model.data(model.index(leaky, DiffModel::ObjectsAColumn)).toString(), QString("2"));
    QCOMPARE(model.data(model.index(leaky, DiffModel::ObjectsBColumn)).toString(), QString("4"));
    QCOMPARE(model.data(model.index(leaky, DiffModel::DeltaObjectsColumn)).toString(), QString("+2"));
    QCOMPARE(model.data(model.index(leaky, DiffModel::DeltaBytesColumn)).toString(), QString("+128 B"));
    QCOMPARE(model.rowOfType("no.Such"), -1);
}

void DiffModelTest::survivorsOfThreeSnapshots() {
    const Snapshot first = heap(0), second = heap(2), third = heap(3);
    auto survivors = std::make_shared<const analysis::SurvivorReport>(analysis::find_survivors(first, second, third));
    QVERIFY(!survivors->groups.empty());
    // Compared: the second and third snapshots, identical but for one Leaky.
    auto diff = std::make_shared<const analysis::SnapshotDiff>(analysis::diff_snapshots(second, third));
    DiffModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setDiff(diff);
    model.setSurvivors(survivors);
    for (const analysis::SurvivorGroup& g : survivors->groups) {
        const int row = model.rowOfType(QString::fromStdString(g.type));
        QVERIFY(row >= 0);
        QCOMPARE(key(model, row, DiffModel::SurvivorsColumn).toULongLong(), g.objects);
        const bool in_diff = std::any_of(diff->types.begin(), diff->types.end(),
                                         [&](const analysis::TypeDelta& d) { return d.name == g.type; });
        // A type the diff does not list has empty count cells and zero deltas.
        QCOMPARE(key(model, row, DiffModel::ObjectsAColumn).isValid(), in_diff);
        if (!in_diff) QCOMPARE(model.data(model.index(row, DiffModel::DeltaObjectsColumn)).toString(), QString("0"));
    }
    QVERIFY(model.rowCount() >= static_cast<int>(diff->types.size()));

    // Against a diff with no change at all, every survivor type is a row of
    // its own with no counts.
    model.setDiff(std::make_shared<const analysis::SnapshotDiff>(analysis::diff_snapshots(third, third)));
    QCOMPARE(model.rowCount(), static_cast<int>(survivors->groups.size()));
    for (int row = 0; row < model.rowCount(); ++row) {
        QVERIFY(!key(model, row, DiffModel::ObjectsBColumn).isValid());
        QVERIFY(key(model, row, DiffModel::SurvivorsColumn).toULongLong() > 0);
        QVERIFY(model.data(model.index(row, DiffModel::ObjectsAColumn), Qt::ToolTipRole).toString().contains("did not change"));
    }
    model.setDiff(diff);
    model.setSurvivors(nullptr);
    QCOMPARE(model.rowCount(), static_cast<int>(diff->types.size()));
}

void DiffModelTest::sortsByEveryColumn() {
    const Snapshot first = heap(0), second = heap(2), third = heap(3);
    DiffModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setDiff(std::make_shared<const analysis::SnapshotDiff>(analysis::diff_snapshots(first, third)));
    model.setSurvivors(std::make_shared<const analysis::SurvivorReport>(analysis::find_survivors(first, second, third)));
    for (int column = 0; column < DiffModel::ColumnCount; ++column) {
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            model.sort(column, order);
            bool empty_seen = false;
            for (int row = 1; row < model.rowCount(); ++row) {
                const QVariant previous = key(model, row - 1, column), current = key(model, row, column);
                if (!previous.isValid()) empty_seen = true;
                if (empty_seen) {
                    QVERIFY(!current.isValid());  // empty cells last
                    continue;
                }
                if (!current.isValid()) continue;
                const auto ordering = QVariant::compare(previous, current);
                QVERIFY(order == Qt::AscendingOrder ? ordering != QPartialOrdering::Greater
                                                    : ordering != QPartialOrdering::Less);
            }
        }
    }
    model.sort(-1);
    QCOMPARE(model.typeName(0), QString::fromStdString(model.diff()->types.front().name));
}

void DiffModelTest::emptyStates() {
    DiffModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    const Snapshot same = heap(2);
    model.setDiff(std::make_shared<const analysis::SnapshotDiff>(analysis::diff_snapshots(same, same)));
    QCOMPARE(model.rowCount(), 0);  // nothing changed
    model.sort(DiffModel::DeltaBytesColumn, Qt::DescendingOrder);
    QCOMPARE(model.typeName(0), QString());
    model.setDiff(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

QTEST_MAIN(DiffModelTest)
#include "diff_model_test.moc"

// InspectorModel over the fixture heap: an object's out-edges grouped by
// kind with their names, values and notes; long groups in batches behind
// "… N more"; QAbstractItemModelTester through resets and batches.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "heap_fixture.h"
#include "models/inspector_model.h"
#include "models/model_roles.h"

using namespace refscope;
using namespace refscope::app;
using refscope::test_fixture::Heap;

namespace {

using Model = InspectorModel;

QString cell(const QModelIndex& row, int column, int role = Qt::DisplayRole) {
    return row.siblingAtColumn(column).data(role).toString();
}

// A group's rows as "field = value [notes]", fetched as a view opening it would.
QStringList rows_of(Model& model, Model::Group group) {
    const QModelIndex parent = model.groupIndex(group);
    if (!parent.isValid()) return {};
    if (model.canFetchMore(parent)) model.fetchMore(parent);
    QStringList rows;
    for (int r = 0; r < model.rowCount(parent); ++r) {
        const QModelIndex row = model.index(r, 0, parent);
        QString text = cell(row, Model::FieldColumn) + QStringLiteral(" = ") + cell(row, Model::ValueColumn);
        if (!cell(row, Model::NotesColumn).isEmpty()) text += QStringLiteral(" [%1]").arg(cell(row, Model::NotesColumn));
        rows << text;
    }
    return rows;
}

QStringList group_titles(const Model& model) {
    QStringList titles;
    for (int r = 0; r < model.rowCount(); ++r) titles << model.index(r, 0).data().toString();
    return titles;
}

}  // namespace

class InspectorModelTest : public QObject {
    Q_OBJECT
private slots:
    void fieldsOfKnownObjects();
    void notesSayWhatTheNameDoesNot();
    void everyEdgeKindHasAGroup();
    void longGroupsComeInBatches();
    void emptyStates();
};

void InspectorModelTest::fieldsOfKnownObjects() {
    Heap h;
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(test_fixture::analysed_heap(h));

    model.setTarget(h.app_dict);
    QCOMPARE(group_titles(model), (QStringList{QStringLiteral("Dict items (2)"), QStringLiteral("Dict keys (2)")}));
    QCOMPARE(rows_of(model, Model::DictItems),
             (QStringList{QStringLiteral("['cache'] = app.Cache @ 0x%1").arg(testing::SnapshotBuilder::address_of(h.cache), 0, 16),
                          QStringLiteral("['items'] = list (len=3)")}));
    QCOMPARE(rows_of(model, Model::DictKeys),
             (QStringList{QStringLiteral("(key) = str 'cache'"), QStringLiteral("(key) = str 'items'")}));
    // Field rows stand for their values; group rows for nothing.
    const QModelIndex items_row = model.index(1, 0, model.groupIndex(Model::DictItems));
    QCOMPARE(model.nodeAt(items_row), h.items);
    QCOMPARE(items_row.data(NodeIdRole).value<quint32>(), h.items);
    QCOMPARE(model.nodeAt(model.groupIndex(Model::DictItems)), kNoNode);
    QCOMPARE(cell(items_row, Model::SizeColumn), QStringLiteral("88 B"));
    QCOMPARE(items_row.siblingAtColumn(Model::SizeColumn).data(SortKeyRole).toULongLong(), 88ull);

    model.setTarget(h.items);
    QCOMPARE(model.fieldCount(Model::Elements), uint64_t{3});
    QCOMPARE(rows_of(model, Model::Elements).size(), 3);
    for (int i = 0; i < 3; ++i) {
        const QModelIndex row = model.index(i, 0, model.groupIndex(Model::Elements));
        QCOMPARE(cell(row, Model::FieldColumn), QStringLiteral("[%1]").arg(i));
        QCOMPARE(model.nodeAt(row), h.leaky[i]);
    }

    model.setTarget(h.module_app);
    QCOMPARE(rows_of(model, Model::Fields), QStringList{QStringLiteral(".__dict__ = dict (len=2)")});
}

void InspectorModelTest::notesSayWhatTheNameDoesNot() {
    Heap h;
    Model model;
    model.setAnalysis(test_fixture::analysed_heap(h));
    // Owned but not reported by tp_traverse: the collector cannot see it.
    model.setTarget(h.wrapper);
    QCOMPARE(rows_of(model, Model::Attributes),
             QStringList{QStringLiteral(".value = function fixture.make.<locals>.f [GC-invisible]")});
    const QModelIndex value = model.index(0, 0, model.groupIndex(Model::Attributes));
    QVERIFY(cell(value, Model::FieldColumn, Qt::ToolTipRole).contains(QLatin1String("not reported by tp_traverse")));
    // A weak reference and a borrowed positional one.
    model.setTarget(h.weakref);
    QCOMPARE(rows_of(model, Model::Other).size(), 1);
    QVERIFY(rows_of(model, Model::Other).front().startsWith(QLatin1String("(weak) = app.Cache")));
    QVERIFY(rows_of(model, Model::Other).front().endsWith(QLatin1String("[weak, not owned]")));
    model.setTarget(h.leaky[0]);
    QVERIFY(rows_of(model, Model::Other).front().startsWith(QLatin1String("<ref #0> = app.Cache")));
    QVERIFY(rows_of(model, Model::Other).front().endsWith(QLatin1String("[not owned]")));
}

void InspectorModelTest::everyEdgeKindHasAGroup() {
    QSet<QString> titles;
    for (uint8_t kind = 0; kind < format::kEdgeKindCount; ++kind) {
        const Model::Group group = Model::groupOf(kind);
        QVERIFY(group < Model::GroupCount);
        QVERIFY(!Model::groupTitle(group).isEmpty());
        titles.insert(Model::groupTitle(group));
    }
    QCOMPARE(titles.size(), static_cast<qsizetype>(Model::GroupCount));  // every group is some kind's
    QCOMPARE(Model::groupOf(format::kEdgeKindCount), Model::Other);      // a newer probe's kind
}

void InspectorModelTest::longGroupsComeInBatches() {
    constexpr uint32_t kItems = 2 * Model::kBatchSize + 50;
    testing::SnapshotBuilder b;
    const uint32_t dict = b.node("dict", 1, "len " + std::to_string(kItems), 4096);
    b.root(dict, format::RootKind::Interpreter, "big");
    for (uint32_t i = 0; i < kItems; ++i) b.dict_item(dict, b.str("k" + std::to_string(i)), b.node("int", 1, std::to_string(i), 28, 0));
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(test_fixture::analyse(b.build()));
    model.setTarget(dict);
    QCOMPARE(model.fieldCount(Model::DictItems), uint64_t{kItems});
    const QModelIndex items = model.groupIndex(Model::DictItems);
    QCOMPARE(model.rowCount(items), 0);  // nothing listed before a view opens the group
    model.fetchMore(items);
    QCOMPARE(model.rowCount(items), Model::kBatchSize + 1);
    QModelIndex more = model.index(Model::kBatchSize, 0, items);
    QVERIFY(model.isMoreItem(more));
    QCOMPARE(more.data().toString(), QStringLiteral("\u2026 %1 more items").arg(kItems - Model::kBatchSize));
    QCOMPARE(model.nodeAt(more), kNoNode);
    QVERIFY(model.showMore(more));
    more = model.index(2 * Model::kBatchSize, 0, items);
    QCOMPARE(more.data().toString(), QStringLiteral("\u2026 50 more items"));
    QVERIFY(model.showMore(more));
    QCOMPARE(model.rowCount(items), static_cast<int>(kItems));
    // In the dict's order, every item once.
    for (uint32_t i = 0; i < kItems; i += 97) {
        const QModelIndex row = model.index(static_cast<int>(i), 0, items);
        QCOMPARE(cell(row, Model::FieldColumn), QStringLiteral("['k%1']").arg(i));
        QCOMPARE(cell(row, Model::ValueColumn), QStringLiteral("int %1").arg(i));
    }
    // The keys' group is as long, and not listed until opened.
    QCOMPARE(model.fieldCount(Model::DictKeys), uint64_t{kItems});
    QCOMPARE(model.rowCount(model.groupIndex(Model::DictKeys)), 0);
}

void InspectorModelTest::emptyStates() {
    Heap h;
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTarget(0);  // no analysis yet
    QCOMPARE(model.target(), kNoNode);
    QCOMPARE(model.rowCount(), 0);
    model.setAnalysis(test_fixture::analysed_heap(h));
    model.setTarget(0xFFFFFFu);  // out of range
    QCOMPARE(model.target(), kNoNode);
    model.setTarget(h.payload);  // an empty list holds nothing
    QCOMPARE(model.target(), h.payload);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.frameLocation().isEmpty());
    model.setTarget(h.items);
    QVERIFY(model.rowCount() > 0);
    model.setAnalysis(nullptr);
    QCOMPARE(model.target(), kNoNode);
    QCOMPARE(model.rowCount(), 0);
}

QTEST_MAIN(InspectorModelTest)
#include "inspector_model_test.moc"

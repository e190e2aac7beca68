// ObjectTableModel over the fixture heap: cell text, sorting by every
// column (order and ties), rowOf/nodeAt, persistent indexes across sorts,
// the "new" column, and QAbstractItemModelTester throughout.
#include <QAbstractItemModelTester>
#include <QtTest>

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>

#include "heap_fixture.h"
#include "models/model_roles.h"
#include "models/object_table_model.h"
#include "refscope/analysis/snapshot_diff.h"

using namespace refscope;
using namespace refscope::app;
using refscope::test_fixture::Heap;

namespace {

std::vector<uint32_t> all_nodes(const AnalysisPtr& a) {
    std::vector<uint32_t> nodes(a->snapshot().node_count());
    std::iota(nodes.begin(), nodes.end(), 0u);
    return nodes;
}

QString text(const ObjectTableModel& model, uint32_t node, int column, int role = Qt::DisplayRole) {
    return model.data(model.index(model.rowOf(node), column), role).toString();
}

// Raw values compare as the column sorts: numbers as numbers, text by bytes.
int compare_keys(const QVariant& a, const QVariant& b) {
    if (!a.isValid() || !b.isValid()) return a.isValid() - b.isValid();
    if (a.typeId() == QMetaType::QString) {
        const QByteArray x = a.toString().toUtf8(), y = b.toString().toUtf8();
        return x < y ? -1 : (y < x ? 1 : 0);
    }
    const auto ordering = QVariant::compare(a, b);
    return ordering == QPartialOrdering::Less ? -1 : (ordering == QPartialOrdering::Greater ? 1 : 0);
}

}  // namespace

class ObjectTableModelTest : public QObject {
    Q_OBJECT
private slots:
    void cellsReadLikeTheCli();
    void sortsByEveryColumn();
    void sortKeepsPersistentIndexes();
    void rowOfAndNodeAtAgree();
    void newColumn();
    void emptyAndBadInput();
    void radixSortMatchesAComparisonSort();
    void largeTablesSortByPreviewText();
};

void ObjectTableModelTest::cellsReadLikeTheCli() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    ObjectTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a);
    model.setNodes(all_nodes(a));
    QCOMPARE(model.rowCount(), static_cast<int>(a->snapshot().node_count()));

    QCOMPARE(text(model, h.cache, ObjectTableModel::AddressColumn), QString("0x7f0000001140"));
    QCOMPARE(text(model, h.cache, ObjectTableModel::TypeColumn), QString("app.Cache"));
    QCOMPARE(text(model, h.cache, ObjectTableModel::TypeColumn, Qt::ToolTipRole), QString("app.Cache @ 0x7f0000001140"));
    QCOMPARE(text(model, h.key_cache, ObjectTableModel::PreviewColumn), QString("'cache'"));
    QCOMPARE(text(model, h.closure, ObjectTableModel::PreviewColumn), QString("fixture.make.<locals>.f"));
    QCOMPARE(text(model, h.items, ObjectTableModel::PreviewColumn), QString("len 3"));
    QCOMPARE(text(model, h.cache, ObjectTableModel::PreviewColumn), QString());
    QCOMPARE(text(model, h.app_dict, ObjectTableModel::SizeColumn), QString("360 B"));
    QCOMPARE(text(model, h.leaked, ObjectTableModel::RetainedColumn), QString("120 B"));
    QCOMPARE(text(model, h.wrapper, ObjectTableModel::RetainedColumn), QString("\u2013"));
    QCOMPARE(text(model, h.cache, ObjectTableModel::DistanceColumn), QString("3"));
    QCOMPARE(text(model, h.items, ObjectTableModel::DistanceColumn), QString("0"));
    QCOMPARE(text(model, h.leaked, ObjectTableModel::DistanceColumn), QString("\u221e"));
    QCOMPARE(text(model, h.leaked, ObjectTableModel::DistanceColumn, Qt::ToolTipRole), QString("No path from GC roots"));
    QCOMPARE(text(model, h.leaked, ObjectTableModel::RefcountColumn), QString("2"));
    QCOMPARE(text(model, h.leaked, ObjectTableModel::SurplusColumn), QString("2"));
    QCOMPARE(text(model, h.leaked, ObjectTableModel::UnexplainedColumn), QString("2"));
    QCOMPARE(text(model, h.items, ObjectTableModel::SurplusColumn), QString("1"));
    QCOMPARE(text(model, h.items, ObjectTableModel::UnexplainedColumn), QString("0"));
    QVERIFY(text(model, h.items, ObjectTableModel::SurplusColumn, Qt::ToolTipRole).contains("thread stack 1"));
    QVERIFY(!model.data(model.index(0, ObjectTableModel::NewColumn)).isValid());
    QCOMPARE(model.data(model.index(model.rowOf(h.cache), 0), NodeIdRole).toUInt(), h.cache);
    QCOMPARE(model.data(model.index(0, ObjectTableModel::SizeColumn), Qt::TextAlignmentRole).toInt(),
             int(Qt::AlignRight | Qt::AlignVCenter));
}

void ObjectTableModelTest::sortsByEveryColumn() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    ObjectTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a);
    model.setNodes(all_nodes(a));
    Heap before_heap;
    const auto diff = analysis::diff_snapshots(test_fixture::build_heap(before_heap, 1), a->snapshot());
    model.setNewColumn(std::make_shared<const std::vector<uint8_t>>(diff.is_new));

    for (int column = 0; column < ObjectTableModel::ColumnCount; ++column) {
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            model.sort(column, order);
            QCOMPARE(model.rowCount(), static_cast<int>(a->snapshot().node_count()));
            for (int row = 1; row < model.rowCount(); ++row) {
                const int c = compare_keys(model.data(model.index(row - 1, column), SortKeyRole),
                                           model.data(model.index(row, column), SortKeyRole));
                const QString where = QString("column %1 order %2 row %3").arg(column).arg(order).arg(row);
                QVERIFY2(order == Qt::AscendingOrder ? c <= 0 : c >= 0, qPrintable(where));
                if (c == 0) QVERIFY2(model.nodeAt(row - 1) < model.nodeAt(row), qPrintable(where));  // ties by id
            }
        }
    }
    // Spot checks: the largest object first by size; the unreached last by distance.
    model.sort(ObjectTableModel::SizeColumn, Qt::DescendingOrder);
    QCOMPARE(model.nodeAt(0), h.app_dict);  // 360 B, lower id than the interned dict
    QCOMPARE(model.nodeAt(1), h.interned);
    model.sort(ObjectTableModel::DistanceColumn, Qt::AscendingOrder);
    QCOMPARE(model.nodeAt(0), h.modules);
    QCOMPARE(text(model, model.nodeAt(model.rowCount() - 1), ObjectTableModel::DistanceColumn), QString("\u221e"));
    model.sort(ObjectTableModel::UnexplainedColumn, Qt::DescendingOrder);
    QCOMPARE(model.nodeAt(0), h.leaked);
    model.sort(ObjectTableModel::NewColumn, Qt::DescendingOrder);
    QCOMPARE(text(model, model.nodeAt(0), ObjectTableModel::NewColumn), QString("new"));
    // Rows set later come sorted the same way.
    model.sort(ObjectTableModel::TypeColumn, Qt::AscendingOrder);
    model.setNodes({h.wrapper, h.leaked, h.cache, h.modules});
    const std::vector<uint32_t> by_type{h.cache, h.leaked, h.modules, h.wrapper};  // app.Cache, app.Leaky, dict, fixture.Wrapper
    QCOMPARE(model.nodes(), by_type);
}

void ObjectTableModelTest::sortKeepsPersistentIndexes() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    ObjectTableModel model;
    model.setAnalysis(a);
    model.setNodes(all_nodes(a));
    const QPersistentModelIndex leaked = model.index(model.rowOf(h.leaked), ObjectTableModel::PreviewColumn);
    const QPersistentModelIndex cache = model.index(model.rowOf(h.cache), ObjectTableModel::SizeColumn);
    for (int column = 0; column < ObjectTableModel::ColumnCount; ++column) {
        model.sort(column, column % 2 ? Qt::AscendingOrder : Qt::DescendingOrder);
        QCOMPARE(model.nodeAt(leaked.row()), h.leaked);
        QCOMPARE(leaked.column(), int(ObjectTableModel::PreviewColumn));
        QCOMPARE(model.nodeAt(cache.row()), h.cache);
    }
}

void ObjectTableModelTest::rowOfAndNodeAtAgree() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    ObjectTableModel model;
    model.setAnalysis(a);
    model.setNodes({h.leaked, h.cache, h.items});
    QCOMPARE(model.rowOf(h.modules), -1);
    QCOMPARE(model.nodeAt(3), kNoNode);
    QCOMPARE(model.nodeAt(-1), kNoNode);
    for (const int column : {int(ObjectTableModel::SizeColumn), int(ObjectTableModel::PreviewColumn)}) {
        model.sort(column, Qt::DescendingOrder);
        for (int row = 0; row < model.rowCount(); ++row) QCOMPARE(model.rowOf(model.nodeAt(row)), row);
    }
}

void ObjectTableModelTest::newColumn() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    ObjectTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a);
    model.setNodes(all_nodes(a));
    auto is_new = std::make_shared<std::vector<uint8_t>>(a->snapshot().node_count(), 0);
    (*is_new)[h.leaky[2]] = 1;
    model.setNewColumn(is_new);
    QVERIFY(model.hasNewColumn());
    QCOMPARE(text(model, h.leaky[2], ObjectTableModel::NewColumn), QString("new"));
    QCOMPARE(text(model, h.leaky[1], ObjectTableModel::NewColumn), QString());
    // A column of another snapshot is refused.
    model.setNewColumn(std::make_shared<const std::vector<uint8_t>>(3, 1));
    QVERIFY(!model.hasNewColumn());
    QVERIFY(!model.data(model.index(0, ObjectTableModel::NewColumn)).isValid());
}

void ObjectTableModelTest::emptyAndBadInput() {
    ObjectTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNodes({1, 2, 3});  // no analysis: nothing to show
    QCOMPARE(model.rowCount(), 0);
    model.sort(ObjectTableModel::SizeColumn, Qt::AscendingOrder);
    model.setAnalysis(test_fixture::analyse(Snapshot{}));
    model.setNodes({0, 7});
    QCOMPARE(model.rowCount(), 0);
    Heap h;
    model.setAnalysis(test_fixture::analysed_heap(h));
    model.setNodes({h.cache, 100000, h.leaked});  // ids out of range are dropped
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.nodeAt(0), h.cache);  // 48 B before 64 B
    model.setAnalysis(test_fixture::analysed_heap(h));
    QCOMPARE(model.rowCount(), 0);
}

void ObjectTableModelTest::radixSortMatchesAComparisonSort() {
    // Above the radix threshold, with keys of every width, many ties, and
    // ids in no particular order.
    std::mt19937_64 random(3);
    for (const uint64_t range : {uint64_t{1}, uint64_t{7}, uint64_t{70000}, uint64_t{1} << 40, ~uint64_t{0}}) {
        std::vector<KeyedId> items(120000);
        for (size_t i = 0; i < items.size(); ++i) {
            items[i] = {range == ~uint64_t{0} ? random() : random() % range, static_cast<uint32_t>(random() % 1000000)};
        }
        std::vector<KeyedId> expected = items;
        std::sort(expected.begin(), expected.end(), [](const KeyedId& a, const KeyedId& b) {
            return a.key != b.key ? a.key < b.key : a.id < b.id;
        });
        sort_keyed_ids(items);
        for (size_t i = 0; i < items.size(); ++i) {
            QCOMPARE(items[i].key, expected[i].key);
            QCOMPARE(items[i].id, expected[i].id);
        }
    }
    // The packed path (keys differing in at most 32 bits) and its fallback,
    // with ids increasing (the model's case) and shuffled.
    for (const uint64_t range : {uint64_t{1}, uint64_t{7}, uint64_t{1} << 20, (uint64_t{1} << 32) - 1, uint64_t{1} << 45}) {
        for (const bool shuffled : {false, true}) {
            std::vector<uint32_t> ids(90000);
            std::iota(ids.begin(), ids.end(), 5u);
            if (shuffled) std::shuffle(ids.begin(), ids.end(), random);
            const uint64_t base = random() % 1000;  // keys need not start at 0
            std::vector<uint64_t> keys(ids.size());
            for (uint64_t& k : keys) k = base + random() % range;
            std::vector<std::pair<uint64_t, uint32_t>> expected(ids.size());
            for (size_t i = 0; i < ids.size(); ++i) expected[i] = {keys[i], ids[i]};
            std::sort(expected.begin(), expected.end());
            sort_ids_by_keys(ids, keys);
            for (size_t i = 0; i < ids.size(); ++i) QCOMPARE(ids[i], expected[i].second);
        }
    }
    std::vector<uint32_t> ids(100000);
    std::iota(ids.rbegin(), ids.rend(), 0u);  // decreasing
    sort_ids_by_key(ids, Qt::DescendingOrder, [](uint32_t id) { return uint64_t{id % 10}; });
    QCOMPARE(ids.front(), 9u);
    QCOMPARE(ids[1], 19u);  // ties by id ascending, whichever the order
    QCOMPARE(ids.back(), 99990u);
}

void ObjectTableModelTest::largeTablesSortByPreviewText() {
    // Strings sharing long prefixes, equal strings, one a prefix of another,
    // an embedded NUL: the preview rank must order them as bytes compare.
    testing::SnapshotBuilder b;
    std::mt19937_64 random(11);
    const char* stems[] = {"refscope.app.models.", "refscope.app.models", "refscope.core.", "a", "", "zz"};
    for (int i = 0; i < 60000; ++i) {
        std::string text = stems[random() % 6];
        const int tail = static_cast<int>(random() % 4);
        for (int k = 0; k < tail; ++k) text += static_cast<char>('a' + random() % 3);
        if (random() % 50 == 0) text += std::string(1, '\0') + "x";
        if (text.empty()) {
            b.node("dict", 1);  // no preview
        } else {
            b.str(text);
        }
    }
    const AnalysisPtr a = test_fixture::analyse(b.build());
    ObjectTableModel model;
    model.setAnalysis(a);
    model.setNodes(all_nodes(a));
    const Snapshot& s = a->snapshot();
    for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
        model.sort(ObjectTableModel::PreviewColumn, order);
        for (int row = 1; row < model.rowCount(); ++row) {
            const uint32_t x = model.nodeAt(row - 1), y = model.nodeAt(row);
            const std::string_view px = s.strings.view(s.node_preview[x]), py = s.strings.view(s.node_preview[y]);
            if (px == py) {
                QVERIFY(x < y);
            } else {
                QVERIFY2(order == Qt::AscendingOrder ? px < py : px > py, qPrintable(QString("row %1").arg(row)));
            }
        }
    }
}

QTEST_MAIN(ObjectTableModelTest)
#include "object_table_model_test.moc"

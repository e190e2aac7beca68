// RetainersTreeModel over the fixture heap: the referrers of known objects
// with their labels and notes, root records and unexplained surplus, cycles
// cut, batches behind "… N more", the chain to the roots revealed, and
// QAbstractItemModelTester while the tree is expanded.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "heap_fixture.h"
#include "models/model_roles.h"
#include "models/retainers_tree_model.h"

using namespace refscope;
using namespace refscope::app;
using refscope::test_fixture::Heap;

namespace {

using Model = RetainersTreeModel;

QModelIndex expanded(Model& model, const QModelIndex& index) {
    if (model.canFetchMore(index)) model.fetchMore(index);
    return index;
}

QString cell(const Model& model, const QModelIndex& item, int column, int role = Qt::DisplayRole) {
    return model.data(item.siblingAtColumn(column), role).toString();
}

// Every item down to `depth` levels, fetching as a view expanding all would.
int expand_all(Model& model, const QModelIndex& parent, int depth) {
    if (depth == 0) return 0;
    if (parent.isValid()) expanded(model, parent);
    int items = 0;
    for (int row = 0; row < model.rowCount(parent); ++row) items += 1 + expand_all(model, model.index(row, 0, parent), depth - 1);
    return items;
}

}  // namespace

class RetainersTreeModelTest : public QObject {
    Q_OBJECT
private slots:
    void referrersOfAKnownObject();
    void rootsAreLabelled();
    void unexplainedSurplusIsShown();
    void cyclesAreCut();
    void manyReferrersComeInBatches();
    void revealsTheChainToTheRoots();
    void expandingEverythingStaysConsistent();
    void emptyStates();
};

void RetainersTreeModelTest::referrersOfAKnownObject() {
    Heap h;
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(test_fixture::analysed_heap(h));
    model.setTarget(h.cache);
    QCOMPARE(model.rowCount(), 1);
    const QModelIndex top = model.index(0, 0);
    QCOMPARE(cell(model, top, Model::ObjectColumn), QString("app.Cache @ 0x7f0000001140"));
    QCOMPARE(model.nodeAt(top), h.cache);
    QVERIFY(model.hasChildren(top));
    QCOMPARE(model.rowCount(top), 0);  // lazy
    expanded(model, top);
    // Exactly its referrers: the dict that holds it (its retention path), the
    // Leaky's borrowed reference, the weak reference.
    QCOMPARE(model.rowCount(top), 3);
    const uint32_t expected[] = {h.app_dict, h.leaky[0], h.weakref};
    const char* via[] = {"['cache']", "<ref #0>", "(weak)"};
    const char* notes[] = {"", "not owned", "weak, not owned"};
    for (int row = 0; row < 3; ++row) {
        const QModelIndex child = model.index(row, 0, top);
        QCOMPARE(model.nodeAt(child), expected[row]);
        QCOMPARE(model.data(child, NodeIdRole).toUInt(), expected[row]);
        QCOMPARE(cell(model, child, Model::ViaColumn), QString(via[row]));
        QCOMPARE(cell(model, child, Model::NotesColumn), QString(notes[row]));
    }
    const QModelIndex dict = model.index(0, 0, top);
    QCOMPARE(cell(model, dict, Model::ObjectColumn), QString("dict (len=2) @ 0x7f00000010c0"));
    QCOMPARE(cell(model, dict, Model::SizeColumn), QString("360 B"));
    QCOMPARE(cell(model, dict, Model::DistanceColumn), QString("2"));
    QCOMPARE(model.parent(dict), top);
}

void RetainersTreeModelTest::rootsAreLabelled() {
    Heap h;
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(test_fixture::analysed_heap(h));
    model.setTarget(h.items);
    const QModelIndex top = expanded(model, model.index(0, 0));
    QCOMPARE(cell(model, top, Model::NotesColumn), QString("GC root"));
    QCOMPARE(model.rowCount(top), 2);
    const QModelIndex record = model.index(0, 0, top);
    QCOMPARE(cell(model, record, Model::ObjectColumn), QString("root: frame app.py:12 in main, local items"));
    QCOMPARE(cell(model, record, Model::NotesColumn), QString("thread stack (thread MainThread)"));
    QVERIFY(!model.data(record, NodeIdRole).isValid());
    QCOMPARE(model.nodeAt(record), kNoNode);
    QVERIFY(!model.hasChildren(record));
    const QModelIndex dict = model.index(1, 0, top);
    QCOMPARE(model.nodeAt(dict), h.app_dict);
    QCOMPARE(cell(model, dict, Model::ViaColumn), QString("['items']"));

    // Up to sys.modules: its record says "interpreter".
    const QModelIndex module = model.index(0, 0, expanded(model, dict));
    QCOMPARE(cell(model, module, Model::ObjectColumn), QString("module app @ 0x7f0000001080"));
    QCOMPARE(cell(model, module, Model::ViaColumn), QString(".__dict__"));
    const QModelIndex modules = model.index(0, 0, expanded(model, module));
    QCOMPARE(model.nodeAt(modules), h.modules);
    QCOMPARE(cell(model, modules, Model::ViaColumn), QString("['app']"));
    expanded(model, modules);
    QCOMPARE(model.rowCount(modules), 1);
    QCOMPARE(cell(model, model.index(0, 0, modules), Model::ObjectColumn), QString("root: sys.modules"));
    QCOMPARE(cell(model, model.index(0, 0, modules), Model::NotesColumn), QString("interpreter"));
}

void RetainersTreeModelTest::unexplainedSurplusIsShown() {
    Heap h;
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(test_fixture::analysed_heap(h));
    model.setTarget(h.payload);
    const QModelIndex top = expanded(model, model.index(0, 0));
    QCOMPARE(model.rowCount(top), 1);
    const QModelIndex leaked = expanded(model, model.index(0, 0, top));
    QCOMPARE(model.nodeAt(leaked), h.leaked);
    QCOMPARE(cell(model, leaked, Model::ViaColumn), QString(".payload"));
    QCOMPARE(cell(model, leaked, Model::NotesColumn), QString("unexplained surplus"));
    QCOMPARE(cell(model, leaked, Model::DistanceColumn), QString("\u221e"));
    QCOMPARE(model.rowCount(leaked), 1);  // nothing refers to it: only the surplus
    const QModelIndex surplus = model.index(0, 0, leaked);
    QCOMPARE(cell(model, surplus, Model::ObjectColumn), QString("held from outside the graph"));
    QCOMPARE(cell(model, surplus, Model::NotesColumn), QString("2 unexplained references"));
    QVERIFY(!model.data(surplus, NodeIdRole).isValid());
}

void RetainersTreeModelTest::cyclesAreCut() {
    Heap h;
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(test_fixture::analysed_heap(h));
    model.setTarget(h.wrapper);
    const QModelIndex top = expanded(model, model.index(0, 0));
    const QModelIndex closure = expanded(model, model.index(0, 0, top));
    QCOMPARE(model.nodeAt(closure), h.closure);
    QCOMPARE(cell(model, closure, Model::ViaColumn), QString(".__closure__"));
    QCOMPARE(model.rowCount(closure), 1);
    const QModelIndex back = model.index(0, 0, closure);
    QCOMPARE(model.nodeAt(back), h.wrapper);
    QCOMPARE(cell(model, back, Model::ViaColumn), QString(".value"));
    QCOMPARE(cell(model, back, Model::NotesColumn), QString("GC-invisible, (cycle)"));
    QVERIFY(!model.hasChildren(back));
    QVERIFY(!model.canFetchMore(back));
    QCOMPARE(model.data(back.siblingAtColumn(Model::ViaColumn), Qt::ForegroundRole).value<QColor>(), QColor(170, 30, 30));
}

void RetainersTreeModelTest::manyReferrersComeInBatches() {
    // One str held by 250 lists, each held by a root dict.
    testing::SnapshotBuilder b;
    const uint32_t shared = b.str("shared");
    const uint32_t holder = b.node("dict", 1, "len 250");
    b.root(holder, format::RootKind::Interpreter, "holder");
    for (uint32_t i = 0; i < 250; ++i) {
        const uint32_t list = b.node("list", 1, "len 1");
        b.edge(holder, list, format::EdgeKind::Index, i);
        b.edge(list, shared, format::EdgeKind::Index, 0);
    }
    Snapshot s = b.build();
    s.node_refcount[shared] = 250;
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(test_fixture::analyse(std::move(s)));
    model.setBatchSize(100);
    model.setTarget(shared);
    const QModelIndex top = expanded(model, model.index(0, 0));
    QCOMPARE(model.rowCount(top), 101);
    QModelIndex more = model.index(100, 0, top);
    QVERIFY(model.isMoreItem(more));
    QCOMPARE(model.data(more, MoreRowsRole).toBool(), true);
    QCOMPARE(cell(model, more, Model::ObjectColumn), QString("\u2026 150 more referrers"));
    QCOMPARE(model.nodeAt(more), kNoNode);
    QVERIFY(!model.hasChildren(more));
    QVERIFY(!model.showMore(model.index(0, 0, top)));  // not a "more" item

    QVERIFY(model.showMore(more));
    QCOMPARE(model.rowCount(top), 201);
    more = model.index(200, 0, top);
    QCOMPARE(cell(model, more, Model::ObjectColumn), QString("\u2026 50 more referrers"));
    QVERIFY(model.showMore(more));
    QCOMPARE(model.rowCount(top), 250);
    QVERIFY(!model.isMoreItem(model.index(249, 0, top)));
    // Every referrer once, in edge order (all at distance 1).
    std::vector<uint32_t> seen;
    for (int row = 0; row < 250; ++row) seen.push_back(model.nodeAt(model.index(row, 0, top)));
    std::vector<uint32_t> sorted = seen;
    std::sort(sorted.begin(), sorted.end());
    QCOMPARE(seen, sorted);
    QVERIFY(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

void RetainersTreeModelTest::revealsTheChainToTheRoots() {
    Heap h;
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(test_fixture::analysed_heap(h));
    const auto chain_of = [&](uint32_t target) {
        model.setTarget(target);
        std::vector<uint32_t> nodes;
        for (const QModelIndex& index : model.revealChainToRoot()) nodes.push_back(model.nodeAt(index));
        return nodes;
    };
    QCOMPARE(chain_of(h.cache), (std::vector<uint32_t>{h.cache, h.app_dict, h.module_app, h.modules}));
    QCOMPARE(chain_of(h.leaky[1]), (std::vector<uint32_t>{h.leaky[1], h.items}));
    QCOMPARE(chain_of(h.payload), (std::vector<uint32_t>{h.payload, h.leaked}));  // from the holder
    QCOMPARE(chain_of(h.closure), std::vector<uint32_t>{h.closure});              // no holder at all
}

void RetainersTreeModelTest::expandingEverythingStaysConsistent() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    for (uint32_t target = 0; target < a->snapshot().node_count(); ++target) {
        Model model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setAnalysis(a);
        model.setBatchSize(2);
        model.setTarget(target);
        QVERIFY(expand_all(model, {}, 12) >= 1);
    }
}

void RetainersTreeModelTest::emptyStates() {
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTarget(3);  // no analysis
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.revealChainToRoot().isEmpty());
    model.setAnalysis(test_fixture::analyse(Snapshot{}));
    model.setTarget(0);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.target(), kNoNode);
    Heap h;
    model.setAnalysis(test_fixture::analysed_heap(h));
    model.setTarget(h.interned);  // a root nothing refers to: just its record
    const QModelIndex top = expanded(model, model.index(0, 0));
    QCOMPARE(model.rowCount(top), 1);
    model.setTarget(h.name_payload);
    model.setTarget(kNoNode);
    QCOMPARE(model.rowCount(), 0);
}

QTEST_MAIN(RetainersTreeModelTest)
#include "retainers_tree_model_test.moc"

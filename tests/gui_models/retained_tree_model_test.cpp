// RetainedTreeModel: children are exactly the dominator tree's, largest
// retained first, in batches; the whole-heap tree from the super-root; the
// empty states with their reasons; QAbstractItemModelTester while expanding.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "heap_fixture.h"
#include "models/model_roles.h"
#include "models/retained_tree_model.h"

using namespace refscope;
using namespace refscope::app;
using refscope::test_fixture::Heap;

namespace {

using Model = RetainedTreeModel;

QModelIndex expanded(Model& model, const QModelIndex& index) {
    if (model.canFetchMore(index)) model.fetchMore(index);
    return index;
}

// Checks the item's children against the dominator tree, recursively.
void check_against_tree(Model& model, const analysis::DominatorTree& tree, const QModelIndex& item, int depth) {
    const uint32_t node = model.nodeAt(item);
    expanded(model, item);
    const std::vector<uint32_t> children = tree.children_by_retained_size(node);
    QCOMPARE(model.rowCount(item), static_cast<int>(children.size()));
    for (int row = 0; row < model.rowCount(item); ++row) {
        const QModelIndex child = model.index(row, 0, item);
        QCOMPARE(model.nodeAt(child), children[static_cast<size_t>(row)]);
        QCOMPARE(model.data(child.siblingAtColumn(Model::RetainedBytesColumn), SortKeyRole).toULongLong(),
                 tree.retained_size(children[static_cast<size_t>(row)]));
        QCOMPARE(model.data(child.siblingAtColumn(Model::RetainedObjectsColumn), SortKeyRole).toULongLong(),
                 tree.retained_count(children[static_cast<size_t>(row)]));
        if (depth > 0) check_against_tree(model, tree, child, depth - 1);
    }
}

}  // namespace

class RetainedTreeModelTest : public QObject {
    Q_OBJECT
private slots:
    void childrenMatchTheDominatorTree();
    void wholeHeapFromTheSuperRoot();
    void manyChildrenComeInBatches();
    void emptyWithAReason();
};

void RetainedTreeModelTest::childrenMatchTheDominatorTree() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a);
    model.setTarget(h.modules);
    QVERIFY(model.emptyReason().isEmpty());
    const QModelIndex top = model.index(0, 0);
    QCOMPARE(model.data(top).toString(), QString("dict (len=1) @ 0x7f0000001000"));
    QCOMPARE(model.data(top.siblingAtColumn(Model::ShallowBytesColumn)).toString(), QString("232 B"));
    check_against_tree(model, *a->dominators(), top, 10);
    // sys.modules keeps module app (and through it app's namespace) and its key.
    QCOMPARE(model.nodeAt(model.index(0, 0, top)), h.module_app);
    QCOMPARE(model.nodeAt(model.index(1, 0, top)), h.key_app);
    QCOMPARE(model.data(model.index(0, Model::RetainedBytesColumn, top)).toString(), QString("668 B"));
}

void RetainedTreeModelTest::wholeHeapFromTheSuperRoot() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a);
    model.setTarget(analysis::kSuperRoot);
    const QModelIndex top = expanded(model, model.index(0, 0));
    QCOMPARE(model.data(top).toString(), QString("all GC roots"));
    QVERIFY(!model.data(top, NodeIdRole).isValid());
    // The unexplained-holders root is among the super-root's children, with
    // the leaked Leaky under it.
    QModelIndex unexplained;
    for (int row = 0; row < model.rowCount(top); ++row) {
        if (model.data(model.index(row, 0, top)).toString().startsWith("held from outside the graph")) {
            unexplained = model.index(row, 0, top);
        }
    }
    QVERIFY(unexplained.isValid());
    expanded(model, unexplained);
    QCOMPARE(model.rowCount(unexplained), 1);
    QCOMPARE(model.nodeAt(model.index(0, 0, unexplained)), h.leaked);
    QCOMPARE(model.data(model.index(0, Model::RetainedBytesColumn, unexplained)).toString(), QString("120 B"));
}

void RetainedTreeModelTest::manyChildrenComeInBatches() {
    testing::SnapshotBuilder b;
    const uint32_t hub = b.node("list", 1, "len 230");
    b.root(hub, format::RootKind::Interpreter, "hub");
    for (uint32_t i = 0; i < 230; ++i) b.edge(hub, b.node("app.Item", 1, {}, 16 + i, format::kNodeGcTracked, "app"), format::EdgeKind::Index, i);
    const AnalysisPtr a = test_fixture::analyse(b.build());
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(a);
    model.setBatchSize(100);
    model.setTarget(hub);
    const QModelIndex top = expanded(model, model.index(0, 0));
    QCOMPARE(model.rowCount(top), 101);
    QCOMPARE(model.data(model.index(100, 0, top)).toString(), QString("\u2026 130 more objects"));
    QVERIFY(model.showMore(model.index(100, 0, top)));
    QVERIFY(model.showMore(model.index(200, 0, top)));
    QCOMPARE(model.rowCount(top), 230);
    const std::vector<uint32_t> expected = a->dominators()->children_by_retained_size(hub);
    for (int row = 0; row < 230; ++row) QCOMPARE(model.nodeAt(model.index(row, 0, top)), expected[static_cast<size_t>(row)]);
    // Largest first: the last item created is the largest.
    QCOMPARE(model.data(model.index(0, Model::ShallowBytesColumn, top)).toString(), QString("245 B"));
}

void RetainedTreeModelTest::emptyWithAReason() {
    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(!model.emptyReason().isEmpty());
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    model.setAnalysis(a);
    QVERIFY(model.emptyReason().contains("Select an object"));
    // The Wrapper cycle: closed by a reference the collector cannot see.
    model.setTarget(h.wrapper);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.target(), kNoNode);
    QVERIFY2(model.emptyReason().contains("fixture.Wrapper @ 0x"), qPrintable(model.emptyReason()));
    QVERIFY2(model.emptyReason().contains("cycle #0"), qPrintable(model.emptyReason()));
    QVERIFY2(model.emptyReason().contains("fixture.Wrapper holds .value without tp_traverse"), qPrintable(model.emptyReason()));
    QVERIFY2(model.emptyReason().contains("40 B"), qPrintable(model.emptyReason()));
    model.setTarget(h.cache);
    QCOMPARE(model.rowCount(), 1);
    QVERIFY(model.emptyReason().isEmpty());

    Heap h2;
    analysis::AnalysisOptions options;
    options.dominators = false;
    options.suspects = false;
    model.setAnalysis(AnalysisPtr(analysis::SnapshotAnalysis::analyse(test_fixture::build_heap(h2), options)));
    model.setTarget(h2.cache);
    QCOMPARE(model.rowCount(), 0);
    QVERIFY2(model.emptyReason().contains("not computed"), qPrintable(model.emptyReason()));

    model.setAnalysis(test_fixture::analyse(Snapshot{}));
    model.setTarget(0);
    QCOMPARE(model.rowCount(), 0);
}

QTEST_MAIN(RetainedTreeModelTest)
#include "retained_tree_model_test.moc"

// InspectorModel over the fixture heap: an object's out-edges grouped by
// kind with their names, values and notes; long groups in batches behind
// "… N more"; QAbstractItemModelTester through resets and batches.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "heap_fixture.h"
#include "models/inspector_model.h"
#include "models/model_roles.h"
#include "refscope/analysis/descriptions.h"

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
    void runningFramesListTheirThreadsLocals();
    void recursionWithoutSeparatorsIsNotGuessed();
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

namespace {

// The root records the probe writes for one running 3.11+ frame
// (roots_threads.cpp): its locals, then code and function, then the frame
// object (when `frame` is a node), then a value-stack slot. `separators`
// false leaves out the code and function records (a 3.14+ frame whose
// references to them are not counted).
struct FrameRecords {
    std::string location;  // "walk.py:5 in walk"
    std::vector<std::pair<std::string, uint32_t>> locals;
    uint32_t frame = kNoNode;
    bool separators = true;
};

void add_frame_roots(testing::SnapshotBuilder& b, uint32_t thread, const FrameRecords& f, uint32_t code,
                     uint32_t function) {
    const std::string base = "frame " + f.location;
    for (const auto& [name, value] : f.locals) b.root(value, format::RootKind::ThreadStack, base + ", local " + name, 1, thread);
    if (f.separators) {
        b.root(code, format::RootKind::ThreadStack, base + ", code", 1, thread);
        b.root(function, format::RootKind::ThreadStack, base + ", function", 1, thread);
    }
    if (f.frame != kNoNode) b.root(f.frame, format::RootKind::ThreadStack, base + ", frame object", 1, thread);
    b.root(code, format::RootKind::ThreadStack, base + ", stack", 1, thread);
}

}  // namespace

// A running 3.11+ frame object owns no locals: its thread's root records
// hold them. Two activations of walk() at the same line (recursion) each
// list their own locals, told apart by the code and function records
// between them; the caller's frame lists its own.
void InspectorModelTest::runningFramesListTheirThreadsLocals() {
    testing::SnapshotBuilder b;
    const uint32_t thread = b.thread("MainThread", 1, true);
    const uint32_t other = b.thread("worker", 2, false);
    const uint32_t code = b.node("code", 4, "walk", 160, 0);
    const uint32_t function = b.node("function", 3, "walk", 136);
    const uint32_t acc = b.node("list", 3, "len 2", 72);
    const uint32_t inner = b.node("frame", 1, {}, 432);
    const uint32_t outer = b.node("frame", 2, {}, 432);
    const uint32_t caller = b.node("frame", 1, {}, 432);
    const uint32_t n0 = b.node("int", 1, "0", 28, 0);
    const uint32_t n1 = b.node("int", 1, "1", 28, 0);
    b.root(b.node("dict", 1, "len 0", 64), format::RootKind::ThreadStack, "thread state dict", 1, thread);
    // The worker runs walk() at the same line too: none of its records are MainThread's.
    add_frame_roots(b, other, {"walk.py:5 in walk", {{"n", b.node("int", 1, "9", 28, 0)}}, kNoNode}, code, function);
    add_frame_roots(b, thread, {"walk.py:5 in walk", {{"n", n0}, {"acc", acc}}, inner}, code, function);
    add_frame_roots(b, thread, {"walk.py:5 in walk", {{"n", n1}, {"acc", acc}}, outer}, code, function);
    // The caller holds its callee's frame object in a local (sys._getframe(1)).
    add_frame_roots(b, thread, {"main.py:9 in main", {{"data", acc}, {"f", outer}}, caller}, code, function);

    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(test_fixture::analyse(b.build()));
    const QString acc_text = QString::fromStdString(analysis::describe_node(model.analysis()->snapshot(), acc));

    model.setTarget(outer);
    QCOMPARE(model.frameLocation(), QStringLiteral("walk.py:5 in walk"));  // not main's "local f"
    QCOMPARE(group_titles(model), QStringList{QStringLiteral("Frame locals (2)")});
    QCOMPARE(rows_of(model, Model::Locals),
             (QStringList{QStringLiteral("local n = int 1 [thread stack]"), QStringLiteral("local acc = %1 [thread stack]").arg(acc_text)}));
    // Each value is a link like any field's; the row stands for its root record.
    const QModelIndex n_row = model.index(0, 0, model.groupIndex(Model::Locals));
    QCOMPARE(model.nodeAt(n_row), n1);
    QCOMPARE(n_row.data(NodeIdRole).value<quint32>(), n1);
    QCOMPARE(model.edgeAt(n_row), analysis::kNoEdge);
    const uint32_t record = model.rootRecordAt(n_row);
    QVERIFY(record != analysis::kNoRootRecord);
    QCOMPARE(model.analysis()->snapshot().roots[record].node, n1);
    QVERIFY(cell(n_row, Model::FieldColumn, Qt::ToolTipRole).contains(QLatin1String("frame walk.py:5 in walk, local n")));
    QVERIFY(n_row.siblingAtColumn(Model::ValueColumn).data(Qt::FontRole).value<QFont>().underline());

    model.setTarget(inner);
    QCOMPARE(rows_of(model, Model::Locals),
             (QStringList{QStringLiteral("local n = int 0 [thread stack]"), QStringLiteral("local acc = %1 [thread stack]").arg(acc_text)}));
    QCOMPARE(model.nodeAt(model.index(0, 0, model.groupIndex(Model::Locals))), n0);

    model.setTarget(caller);
    QCOMPARE(model.frameLocation(), QStringLiteral("main.py:9 in main"));
    QCOMPARE(rows_of(model, Model::Locals).size(), 2);
    QVERIFY(rows_of(model, Model::Locals).back().startsWith(QLatin1String("local f = frame @ 0x")));

    // Not a frame: nothing of the sort, even though it is a frame's local.
    model.setTarget(acc);
    QVERIFY(!model.groupIndex(Model::Locals).isValid());
    QVERIFY(model.frameLocation().isEmpty());
}

// Two activations at the same line with nothing but locals between their
// frame objects' records: which locals are whose is not guessed.
void InspectorModelTest::recursionWithoutSeparatorsIsNotGuessed() {
    testing::SnapshotBuilder b;
    const uint32_t thread = b.thread("MainThread", 1, true);
    const uint32_t code = b.node("code", 3, "f", 160, 0);
    const uint32_t first = b.node("frame", 1, {}, 432);
    const uint32_t second = b.node("frame", 1, {}, 432);
    const uint32_t lone = b.node("frame", 1, {}, 432);
    add_frame_roots(b, thread, {"f.py:3 in f", {{"x", b.node("int", 1, "1", 28, 0)}}, first, false}, code, kNoNode);
    add_frame_roots(b, thread, {"f.py:3 in f", {{"x", b.node("int", 1, "2", 28, 0)}}, second, false}, code, kNoNode);
    // A frame run once needs no separators.
    add_frame_roots(b, thread, {"g.py:7 in g", {{"y", b.node("int", 1, "3", 28, 0)}}, lone, false}, code, kNoNode);

    Model model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(test_fixture::analyse(b.build()));
    for (const uint32_t frame : {first, second}) {
        model.setTarget(frame);
        QCOMPARE(model.frameLocation(), QStringLiteral("f.py:3 in f"));
        QVERIFY(model.runningFrame().ambiguous);
        QCOMPARE(group_titles(model), QStringList{QStringLiteral("Frame locals (not matched)")});
        const QStringList rows = rows_of(model, Model::Locals);
        QCOMPARE(rows.size(), 1);
        QVERIFY2(rows.front().startsWith(QLatin1String("(locals not listed) = f.py:3 in f runs more than once")), qPrintable(rows.front()));
        QCOMPARE(model.nodeAt(model.index(0, 0, model.groupIndex(Model::Locals))), kNoNode);  // no link
    }
    model.setTarget(lone);
    QCOMPARE(rows_of(model, Model::Locals), QStringList{QStringLiteral("local y = int 3 [thread stack]")});
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

// The object inspector (issue 16, item 4) in the real window, headless:
// a hand-built snapshot with every kind of field (attributes, dict items,
// a slot, a long list, frame locals, native and inferred children, an
// allocation site) and the checked-in scenario snapshot. The inspector's
// rows are checked against the snapshot's edges; activating a value moves
// the workspace's selection there and Back returns; a long container shows
// its first rows and a "… N more" row. A real snapshot of a recursive
// function taken by the probe (the first Python it is built for, when it is
// 3.11+) lists each running frame's own locals.
#include <algorithm>
#include <set>

#include <QApplication>
#include <QLabel>
#include <QProcess>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include "models/inspector_model.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/frame_roots.h"
#include "refscope/format/snapshot_io.h"
#include "session/probe_location.h"
#include "snapshot_builder.h"
#include "window/inspector_panel.h"
#include "window/main_window.h"
#include "window/path_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;
using format::EdgeKind;

namespace {

constexpr uint32_t kLongList = 450;  // more than two batches

struct Heap {
    uint32_t holder, name, table, longlist, impl, hidden, frame, idle_frame;
};

// registry (root) ─['holder']→ app.Holder
//   .name → 'alpha', .table → dict {'k1': 'v1', 'k2': 2}, .items → list of
//   kLongList ints, slot .cached → the table, <native: impl> → a native
//   cpp.Impl, <inferred: word at +16> → a str nobody else explains.
// A running frame (a thread root "frame app.py:12 in main") with locals
// holder and count; a finished frame whose code says "worker" in jobs.py.
Snapshot build(Heap& h) {
    testing::SnapshotBuilder b;
    const uint32_t registry = b.node("dict", 1, "len 1", 232);
    b.root(registry, format::RootKind::Interpreter, "sys.modules");
    h.holder = b.node("app.Holder", 2, {}, 48, format::kNodeGcTracked, "app");
    b.dict_item(registry, b.str("holder"), h.holder);
    h.name = b.str("alpha");
    b.edge(h.holder, h.name, EdgeKind::Attribute, b.str("name"));
    h.table = b.node("dict", 2, "len 2", 232);
    b.edge(h.holder, h.table, EdgeKind::Attribute, b.str("table"));
    h.longlist = b.node("list", 1, "len " + std::to_string(kLongList), 3656);
    b.edge(h.holder, h.longlist, EdgeKind::Attribute, b.str("items"));
    b.edge(h.holder, h.table, EdgeKind::Slot, b.string_id("cached"));
    h.impl = b.node("cpp.Impl", 1, {}, 64, format::kNodeNative, "cpp");
    b.edge(h.holder, h.impl, EdgeKind::Native, b.string_id("impl"), format::kEdgeOwned);
    h.hidden = b.str("secret");
    b.edge(h.holder, h.hidden, EdgeKind::Native, b.string_id("word at +16"),
           format::kEdgeOwned | format::kEdgeInferred);
    b.dict_item(h.table, b.str("k1"), b.str("v1"));
    b.dict_item(h.table, b.str("k2"), b.node("int", 1, "2", 28, 0));
    for (uint32_t i = 0; i < kLongList; ++i) {
        b.edge(h.longlist, b.node("int", 1, std::to_string(1000 + i), 28, 0), EdgeKind::Index, i);
    }

    const uint32_t thread = b.thread("MainThread", 1, true);
    h.frame = b.node("frame", 1, {}, 432);
    b.root(h.frame, format::RootKind::ThreadStack, "frame app.py:12 in main", 1, thread);
    b.edge(h.frame, h.holder, EdgeKind::Local, b.string_id("holder"));
    b.edge(h.frame, b.node("int", 1, "7", 28, 0), EdgeKind::Local, b.string_id("count"));
    h.idle_frame = b.node("frame", 1, {}, 432);
    b.root(h.idle_frame, format::RootKind::Interpreter, "a traceback");
    const uint32_t code = b.node("code", 1, "worker", 160, 0);
    b.edge(h.idle_frame, code, EdgeKind::Field, b.string_id("f_code"));
    b.edge(code, b.str("jobs.py"), EdgeKind::Field, b.string_id("co_filename"));

    Snapshot s = b.build();
    AllocationSites& a = s.allocations;
    a.frames.push_back({s.strings.add("/nowhere/app.py"), 3, s.strings.add("make_holder")});
    a.node_traceback.assign(s.node_count(), 0);
    a.node_traceback[h.holder] = a.add_traceback({0}) + 1;
    return s;
}

// A group's rows as "field = value" (the "… more" row as its text).
QStringList rows_of(const InspectorModel& model, InspectorModel::Group group) {
    QStringList rows;
    const QModelIndex parent = model.groupIndex(group);
    if (!parent.isValid()) return rows;
    for (int r = 0; r < model.rowCount(parent); ++r) {
        const QModelIndex row = model.index(r, InspectorModel::FieldColumn, parent);
        if (model.isMoreItem(row)) {
            rows << row.data().toString();
            continue;
        }
        rows << row.data().toString() + QStringLiteral(" = ") +
                    row.siblingAtColumn(InspectorModel::ValueColumn).data().toString();
    }
    return rows;
}

// "field = value" of every out-edge of `node` whose kind is in `kinds`, in
// the snapshot's order, read from the analysis, not the model.
QStringList expected_rows(const analysis::SnapshotAnalysis& a, uint32_t node, std::initializer_list<EdgeKind> kinds,
                          int limit = 1 << 30) {
    const Snapshot& s = a.snapshot();
    QStringList rows;
    for (const uint32_t e : a.index().out_edges(node)) {
        if (std::find(kinds.begin(), kinds.end(), a.index().kind(e)) == kinds.end()) continue;
        if (rows.size() == limit) break;
        rows << QString::fromStdString(analysis::describe_edge(s, e)) + QStringLiteral(" = ") +
                    QString::fromStdString(analysis::describe_node(s, a.index().target(e)));
    }
    return rows;
}

QModelIndex row_named(const InspectorModel& model, InspectorModel::Group group, const QString& field) {
    const QModelIndex parent = model.groupIndex(group);
    for (int r = 0; r < model.rowCount(parent); ++r) {
        const QModelIndex row = model.index(r, InspectorModel::FieldColumn, parent);
        if (row.data().toString() == field) return row;
    }
    return {};
}

QString more_text(uint64_t left, const char* noun) {
    return QStringLiteral("\u2026 %1 more %2").arg(left).arg(QLatin1String(noun));
}

}  // namespace

class InspectorWindowTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void showsTheFieldsOfTheSelectedObject();
    void valuesAreLinksAndBackReturns();
    void longContainersShowTheirFirstRows();
    void framesSayWhereTheyRun();
    void filledOnlyWhenInFront();
    void runningFramesOfARealRecursion();
    void scenarioSessionsDictAndItsSessions();

private:
    QTemporaryDir dir_;
    QString path_;
    Heap heap_{};
};

void InspectorWindowTest::initTestCase() {
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath(QStringLiteral("inspector.rscope"));
    format::write_snapshot_file(build(heap_), path_.toStdString());
}

void InspectorWindowTest::showsTheFieldsOfTheSelectedObject() {
    MainWindow window;
    window.show();
    window.openFiles({path_});
    QVERIFY(testing::wait_settled(window));
    QVERIFY(window.loadErrors().isEmpty());
    Workspace* workspace = window.workspace();
    InspectorPanel* panel = workspace->inspectorPanel();
    const InspectorModel& model = *panel->model();
    QCOMPARE(model.rowCount(), 0);  // nothing selected yet

    // Alt+9 brings the inspector forward.
    QApplication::setActiveWindow(&window);
    QTest::keyClick(&window, Qt::Key_9, Qt::AltModifier);
    QCOMPARE(testing::find<QTabWidget>(window, "detailTabs")->currentWidget(), panel);

    workspace->selectObject(heap_.holder);
    const analysis::SnapshotAnalysis& a = *workspace->analysis();
    QCOMPARE(model.target(), heap_.holder);
    QCOMPARE(rows_of(model, InspectorModel::Attributes),
             (QStringList{QStringLiteral(".name = str 'alpha'"), QStringLiteral(".table = dict (len=2)"),
                          QStringLiteral(".items = list (len=%1)").arg(kLongList)}));
    QCOMPARE(rows_of(model, InspectorModel::Attributes), expected_rows(a, heap_.holder, {EdgeKind::Attribute}));
    QCOMPARE(rows_of(model, InspectorModel::Slots), QStringList{QStringLiteral(".cached = dict (len=2)")});
    QVERIFY(!model.groupIndex(InspectorModel::DictItems).isValid());  // an instance has no dict items
    QVERIFY(!model.groupIndex(InspectorModel::Locals).isValid());

    // Native children: the reported one and the inferred one, each marked.
    const QString native = QString::fromStdString(analysis::describe_node(a.snapshot(), heap_.impl));
    QCOMPARE(rows_of(model, InspectorModel::NativeChildren),
             (QStringList{QStringLiteral("<native: impl> = ") + native,
                          QStringLiteral("<inferred: word at +16> = str 'secret'")}));
    QVERIFY(native.startsWith(QLatin1String("native cpp.Impl")));
    const QModelIndex inferred = row_named(model, InspectorModel::NativeChildren, QStringLiteral("<inferred: word at +16>"));
    QVERIFY(inferred.siblingAtColumn(InspectorModel::NotesColumn).data().toString().contains(QLatin1String("inferred")));
    const QModelIndex reported = row_named(model, InspectorModel::NativeChildren, QStringLiteral("<native: impl>"));
    QVERIFY(!reported.siblingAtColumn(InspectorModel::NotesColumn).data().toString().contains(QLatin1String("inferred")));
    QVERIFY(model.groupIndex(InspectorModel::NativeChildren).data().toString().contains(QLatin1String("C/C++")));

    // Sizes and retained sizes of the values.
    const QModelIndex name = row_named(model, InspectorModel::Attributes, QStringLiteral(".name"));
    QCOMPARE(name.siblingAtColumn(InspectorModel::SizeColumn).data().toString(), QStringLiteral("54 B"));
    QVERIFY(!name.siblingAtColumn(InspectorModel::RetainedColumn).data().toString().isEmpty());

    // The header: what the object is, and where it was allocated, whose
    // link opens the line through the path panel.
    const QString header = panel->headerText();
    QVERIFY2(header.contains(QLatin1String("type app.Holder")), qPrintable(header));
    QVERIFY2(header.contains(QLatin1String("size 48 B")), qPrintable(header));
    QVERIFY2(header.contains(QLatin1String("refcount 2")), qPrintable(header));
    QVERIFY2(header.contains(QLatin1String("Allocated at /nowhere/app.py:3 in make_holder")), qPrintable(header));
    QVERIFY2(header.contains(QLatin1String("holds 6 references")), qPrintable(header));
    QSignalSpy opened(workspace->pathPanel(), &PathPanel::sourceOpened);
    emit panel->header()->linkActivated(QStringLiteral("refscope:source/0"));
    QCOMPARE(opened.count(), 1);
    QCOMPARE(opened.front().at(0).toString(), QStringLiteral("/nowhere/app.py"));
}

void InspectorWindowTest::valuesAreLinksAndBackReturns() {
    MainWindow window;
    window.show();
    window.openFiles({path_});
    QVERIFY(testing::wait_settled(window));
    Workspace* workspace = window.workspace();
    workspace->showPanel(Workspace::Panel::Inspector);
    InspectorPanel* panel = workspace->inspectorPanel();
    const InspectorModel& model = *panel->model();
    QTreeView* view = panel->view();
    workspace->selectObject(heap_.holder);
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // Enter on the .table row selects the dict, whose items the inspector
    // then lists.
    view->setCurrentIndex(row_named(model, InspectorModel::Attributes, QStringLiteral(".table")));
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(workspace->selectedObject(), heap_.table);
    QCOMPARE(model.target(), heap_.table);
    QCOMPARE(rows_of(model, InspectorModel::DictItems),
             (QStringList{QStringLiteral("['k1'] = str 'v1'"), QStringLiteral("['k2'] = int 2")}));
    QCOMPARE(rows_of(model, InspectorModel::DictItems),
             expected_rows(*workspace->analysis(), heap_.table, {EdgeKind::DictValue}));
    // The keys are there too, collapsed (each is an item's name already).
    QVERIFY(model.groupIndex(InspectorModel::DictKeys).isValid());
    QVERIFY(!view->isExpanded(model.groupIndex(InspectorModel::DictKeys)));

    // A single click on a value cell follows it.
    const QModelIndex k1 = row_named(model, InspectorModel::DictItems, QStringLiteral("['k1']"));
    const uint32_t v1 = model.nodeAt(k1);
    QVERIFY(v1 != kNoNode);
    QCOMPARE(analysis::type_name(workspace->analysis()->snapshot(), v1), std::string_view("str"));
    // The columns are fitted to the new rows a turn of the event loop later
    // (ColumnFit): aim at the cells where they will be.
    QCoreApplication::processEvents();
    const QRect value_cell = view->visualRect(k1.siblingAtColumn(InspectorModel::ValueColumn));
    QVERIFY(!value_cell.isEmpty());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, value_cell.center());
    QCOMPARE(workspace->selectedObject(), v1);
    // A click on a field's name only highlights the row.
    workspace->selectObject(heap_.table);
    QCoreApplication::processEvents();
    const QRect name_cell = view->visualRect(row_named(model, InspectorModel::DictItems, QStringLiteral("['k2']")));
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, name_cell.center());
    QCOMPARE(workspace->selectedObject(), heap_.table);

    // Back returns to the object inspected before, and so does the inspector.
    workspace->goBack();
    QCOMPARE(workspace->selectedObject(), v1);
    workspace->goBack();
    QCOMPARE(workspace->selectedObject(), heap_.table);
    workspace->goBack();
    QCOMPARE(workspace->selectedObject(), heap_.holder);
    QCOMPARE(model.target(), heap_.holder);
    QVERIFY(row_named(model, InspectorModel::Attributes, QStringLiteral(".table")).isValid());
}

void InspectorWindowTest::longContainersShowTheirFirstRows() {
    MainWindow window;
    window.show();
    window.openFiles({path_});
    QVERIFY(testing::wait_settled(window));
    Workspace* workspace = window.workspace();
    workspace->showPanel(Workspace::Panel::Inspector);
    InspectorPanel* panel = workspace->inspectorPanel();
    const InspectorModel& model = *panel->model();
    workspace->selectObject(heap_.longlist);

    const QModelIndex elements = model.groupIndex(InspectorModel::Elements);
    QVERIFY(elements.isValid());
    QCOMPARE(elements.data().toString(), QStringLiteral("Elements (%1)").arg(kLongList));
    constexpr int batch = InspectorModel::kBatchSize;
    static_assert(kLongList > 2 * batch);
    QCOMPARE(model.rowCount(elements), batch + 1);
    QStringList expected = expected_rows(*workspace->analysis(), heap_.longlist, {EdgeKind::Index}, batch);
    expected << more_text(kLongList - batch, "elements");
    QCOMPARE(rows_of(model, InspectorModel::Elements), expected);
    QCOMPARE(expected.front(), QStringLiteral("[0] = int 1000"));

    // Enter on "… N more" loads the next batch, then the rest.
    panel->view()->setCurrentIndex(model.index(batch, 0, elements));
    QTest::keyClick(panel->view(), Qt::Key_Return);
    QCOMPARE(model.rowCount(elements), 2 * batch + 1);
    QCOMPARE(model.index(2 * batch, 0, elements).data().toString(), more_text(kLongList - 2 * batch, "elements"));
    QCOMPARE(workspace->selectedObject(), heap_.longlist);  // loading more selects nothing
    panel->view()->setCurrentIndex(model.index(2 * batch, 0, elements));
    QTest::keyClick(panel->view(), Qt::Key_Return);
    QCOMPARE(model.rowCount(elements), static_cast<int>(kLongList));
    QCOMPARE(rows_of(model, InspectorModel::Elements),
             expected_rows(*workspace->analysis(), heap_.longlist, {EdgeKind::Index}));
}

void InspectorWindowTest::framesSayWhereTheyRun() {
    MainWindow window;
    window.show();
    window.openFiles({path_});
    QVERIFY(testing::wait_settled(window));
    Workspace* workspace = window.workspace();
    InspectorPanel* panel = workspace->inspectorPanel();
    const InspectorModel& model = *panel->model();
    workspace->showPanel(Workspace::Panel::Inspector);  // filled only when in front

    workspace->selectObject(heap_.frame);
    QVERIFY2(panel->headerText().contains(QLatin1String("Frame: app.py:12 in main")), qPrintable(panel->headerText()));
    QCOMPARE(rows_of(model, InspectorModel::Locals),
             (QStringList{QStringLiteral("local holder = ") +
                              QString::fromStdString(analysis::describe_node(workspace->analysis()->snapshot(), heap_.holder)),
                          QStringLiteral("local count = int 7")}));
    // A local is a link like any value.
    panel->view()->setCurrentIndex(row_named(model, InspectorModel::Locals, QStringLiteral("local holder")));
    QTest::keyClick(panel->view(), Qt::Key_Return);
    QCOMPARE(workspace->selectedObject(), heap_.holder);
    QVERIFY(!panel->headerText().contains(QLatin1String("Frame:")));

    // A frame that is not running: its code names the function and file.
    workspace->selectObject(heap_.idle_frame);
    QVERIFY2(panel->headerText().contains(QLatin1String("Frame: worker (jobs.py)")), qPrintable(panel->headerText()));
    QCOMPARE(rows_of(model, InspectorModel::Fields), QStringList{QStringLiteral(".f_code = code worker")});
}

// Each selection built the inspector's whole field tree even while another
// detail tab was in front; now it is built when the Inspector comes to the
// front, for the selection of that moment.
void InspectorWindowTest::filledOnlyWhenInFront() {
    MainWindow window;
    window.show();
    window.openFiles({path_});
    QVERIFY(testing::wait_settled(window));
    Workspace* workspace = window.workspace();
    InspectorPanel* panel = workspace->inspectorPanel();
    const InspectorModel& model = *panel->model();
    auto* details = testing::find<QTabWidget>(window, "detailTabs");
    workspace->showPanel(Workspace::Panel::Graph);

    workspace->selectObject(heap_.holder);
    QCOMPARE(workspace->selectedObject(), heap_.holder);
    QCOMPARE(model.target(), kNoNode);  // behind the Graph: untouched
    QCOMPARE(model.rowCount(), 0);

    // Brought forward (a click on its tab): the selection's fields.
    details->setCurrentWidget(panel);
    QCOMPARE(model.target(), heap_.holder);
    QVERIFY(rows_of(model, InspectorModel::Attributes).contains(QStringLiteral(".name = str 'alpha'")));
    QVERIFY2(panel->headerText().contains(QLatin1String("It holds")), qPrintable(panel->headerText()));

    // Selections made behind another tab wait for it, the last one wins;
    // a cleared selection clears it.
    workspace->showPanel(Workspace::Panel::Retainers);
    workspace->selectObject(heap_.frame);
    workspace->selectObject(heap_.longlist);
    QCOMPARE(model.target(), heap_.holder);
    workspace->showPanel(Workspace::Panel::Inspector);
    QCOMPARE(model.target(), heap_.longlist);
    workspace->showPanel(Workspace::Panel::Graph);
    workspace->selectObject(kNoNode);
    workspace->showPanel(Workspace::Panel::Inspector);
    QCOMPARE(model.target(), kNoNode);
    QCOMPARE(model.rowCount(), 0);
    // In front, it follows every selection at once.
    workspace->selectObject(heap_.frame);
    QCOMPARE(model.target(), heap_.frame);
}

// walk(2) calls walk(1) calls walk(0) at the same line; walk(0) takes the
// snapshot. Each activation keeps its frame object (`me`), so the three
// frames are objects of the snapshot, whose locals on 3.11+ are root
// records of the thread: each frame must list its own n, not another's.
void InspectorWindowTest::runningFramesOfARealRecursion() {
    const ProbeLocation probe = find_probe();
    if (!probe.usable()) QSKIP(qPrintable(probe.error));
    const QString script = dir_.filePath(QStringLiteral("walk.py"));
    const QString out = dir_.filePath(QStringLiteral("walk.rscope"));
    {
        QFile file(script);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("import sys\n"
                   "if sys.version_info < (3, 11):\n"
                   "    sys.exit(3)\n"
                   "import refscope\n"
                   "def walk(n, out):\n"
                   "    me = sys._getframe()\n"
                   "    acc = [n] * (n + 1)\n"
                   "    if n:\n"
                   "        return walk(n - 1, out)\n"
                   "    refscope.snapshot(out)\n"
                   "walk(2, sys.argv[1])\n");
    }
    QProcess python;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("PYTHONPATH"), probe.packageDir);
    python.setProcessEnvironment(environment);
    python.setProcessChannelMode(QProcess::ForwardedChannels);
    python.start(probe.python, {QStringLiteral("-S"), script, out});
    QVERIFY(python.waitForFinished(300'000));
    if (python.exitCode() == 3) QSKIP("the probe's first Python is older than 3.11: its frames own their locals");
    QCOMPARE(python.exitCode(), 0);

    MainWindow window;
    window.show();
    window.openFiles({out});
    QVERIFY(testing::wait_settled(window));
    QVERIFY(window.loadErrors().isEmpty());
    Workspace* workspace = window.workspace();
    workspace->showPanel(Workspace::Panel::Inspector);
    InspectorPanel* panel = workspace->inspectorPanel();
    const InspectorModel& model = *panel->model();
    const Snapshot& s = workspace->analysis()->snapshot();
    // walk()'s frame objects: the nodes of its ", frame object" records.
    std::vector<uint32_t> frames;
    for (const RootRef& root : s.roots) {
        const auto label = analysis::parse_frame_root_label(s.strings.view(root.label));
        if (label && label->part == analysis::FramePart::FrameObject && label->frame.ends_with(" in walk"))
            frames.push_back(root.node);
    }
    QCOMPARE(frames.size(), size_t{3});
    std::set<QString> ns;
    std::set<QString> locations;
    for (const uint32_t frame : frames) {
        workspace->selectObject(frame);
        QVERIFY2(panel->headerText().contains(QLatin1String("It is running")), qPrintable(panel->headerText()));
        const QString where = model.frameLocation();
        QVERIFY2(where.contains(QLatin1String("walk.py:")) && where.endsWith(QLatin1String(" in walk")), qPrintable(where));
        locations.insert(where);
        const QStringList rows = rows_of(model, InspectorModel::Locals);
        QCOMPARE(rows.size(), 4);  // n, out, me, acc: this activation's alone
        QVERIFY2(rows.at(0).startsWith(QLatin1String("local n = int ")), qPrintable(rows.join(u'|')));
        const QString n = rows.at(0).mid(QStringLiteral("local n = int ").size());
        ns.insert(n);
        QVERIFY2(rows.at(1).startsWith(QLatin1String("local out = str '")), qPrintable(rows.join(u'|')));
        QCOMPARE(rows.at(2), QStringLiteral("local me = ") + QString::fromStdString(analysis::describe_node(s, frame)));
        QCOMPARE(rows.at(3), QStringLiteral("local acc = list (len=%1)").arg(n.toInt() + 1));
    }
    QCOMPARE(ns, (std::set<QString>{QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2")}));
    QCOMPARE(locations.size(), size_t{2});  // walk(2) and walk(1) at the call, walk(0) at the snapshot
    // A local is a link: Enter on `acc` selects the list.
    panel->view()->setCurrentIndex(row_named(model, InspectorModel::Locals, QStringLiteral("local acc")));
    QTest::keyClick(panel->view(), Qt::Key_Return);
    QCOMPARE(analysis::type_name(s, workspace->selectedObject()), std::string_view("list"));
}

// The checked-in scenario: leaky_registry's `_sessions` dict holds 250
// Sessions keyed by user name; each Session has .user and .token.
void InspectorWindowTest::scenarioSessionsDictAndItsSessions() {
    MainWindow window;
    window.show();
    window.openFiles({testing::data_file("app-registry-2.rscope")});
    QVERIFY(testing::wait_settled(window));
    QVERIFY(window.loadErrors().isEmpty());
    Workspace* workspace = window.workspace();
    const analysis::SnapshotAnalysis& a = *workspace->analysis();
    const Snapshot& s = a.snapshot();
    // The dict the module's namespace holds under '_sessions'.
    uint32_t sessions = kNoNode;
    for (uint32_t e = 0; e < s.edge_count() && sessions == kNoNode; ++e) {
        if (a.index().kind(e) == EdgeKind::DictValue && analysis::describe_edge(s, e) == "['_sessions']")
            sessions = a.index().target(e);
    }
    QVERIFY(sessions != kNoNode);

    InspectorPanel* panel = workspace->inspectorPanel();
    const InspectorModel& model = *panel->model();
    workspace->showPanel(Workspace::Panel::Inspector);
    workspace->selectObject(sessions);
    const QModelIndex items = model.groupIndex(InspectorModel::DictItems);
    QVERIFY(items.isValid());
    QCOMPARE(model.fieldCount(InspectorModel::DictItems), uint64_t{250});
    QStringList expected = expected_rows(a, sessions, {EdgeKind::DictValue}, InspectorModel::kBatchSize);
    expected << more_text(250 - InspectorModel::kBatchSize, "items");
    QCOMPARE(rows_of(model, InspectorModel::DictItems), expected);
    QVERIFY2(expected.front().startsWith(QLatin1String("['user-0'] = leaky_registry.Session @ 0x")),
             qPrintable(expected.front()));

    // Follow the first item to its Session: its attributes are the user
    // and token strings the scenario made for login 0.
    panel->view()->setCurrentIndex(model.index(0, 0, items));
    QTest::keyClick(panel->view(), Qt::Key_Return);
    const uint32_t session = workspace->selectedObject();
    QVERIFY(session != sessions);
    QCOMPARE(analysis::type_name(s, session), std::string_view("leaky_registry.Session"));
    QCOMPARE(rows_of(model, InspectorModel::Attributes), expected_rows(a, session, {EdgeKind::Attribute}));
    QVERIFY(rows_of(model, InspectorModel::Attributes).contains(QStringLiteral(".user = str 'user-0'")));
    QVERIFY(rows_of(model, InspectorModel::Attributes).contains(QStringLiteral(".token = str 'token-0'")));
    workspace->goBack();
    QCOMPARE(workspace->selectedObject(), sessions);
    QCOMPARE(model.target(), sessions);
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    InspectorWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "inspector_window_test.moc"

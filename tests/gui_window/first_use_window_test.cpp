// What a first real use of the app found missing or wrong (issue 16), each
// driven through the real window, headless: what a suspects row lists and
// the bytes it claims, the window's shortcuts while the filter field has the
// focus, where the Retainers tab opens, and a way back after following links.
// A hand-built snapshot is written to a temporary file and opened.
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QLineEdit>
#include <QDockWidget>
#include <QHeaderView>
#include <QMenu>
#include <QPlainTextEdit>
#include <QToolButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTableView>
#include <QTableWidget>
#include <QTreeView>
#include <QtTest>

#include "models/object_table_model.h"
#include "models/suspects_model.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/format/snapshot_io.h"
#include "session/snapshot_timeline.h"
#include "snapshot_builder.h"
#include "window/main_window.h"
#include "models/retainers_tree_model.h"
#include "window/object_tree_panels.h"
#include "models/diff_model.h"
#include "models/type_summary_model.h"
#include "graph/graph_scene.h"
#include "graph/graph_widget.h"
#include "window/column_fit.h"
#include "window/filter_bar.h"
#include "window/connections_panel.h"
#include "window/live_controls.h"
#include "session/live_session.h"
#include "refscope/analysis/display_text.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/graph_index.h"
#include "window/diff_panel.h"
#include "window/objects_panel.h"
#include "window/summary_panel.h"
#include "window/suspects_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;
using format::EdgeKind;

namespace {

constexpr int kBig = 3;     // app.Big objects that retain 200 strs each
constexpr int kSmall = 30;  // app.Big objects that retain nothing

// module app (root) → __dict__ → 3 big and 30 small app.Big. Only the big
// ones are among the largest retainers: a low-confidence "large retained"
// row of 3 objects, of a type with 33.
Snapshot big_and_small() {
    testing::SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app", 80, format::kNodeGcTracked, "app");
    const uint32_t dict = b.node("dict", 1, "len 33");
    b.edge(module, dict, EdgeKind::Field, b.string_id("__dict__"));
    b.root(module, format::RootKind::Interpreter, "sys.modules['app']");
    for (int i = 0; i < kBig + kSmall; ++i) {
        const uint32_t big = b.node("app.Big", 1, {}, 48, format::kNodeGcTracked, "app");
        b.edge(dict, big, EdgeKind::DictValue, b.str("b" + std::to_string(i)));
        if (i >= kBig) continue;
        const uint32_t list = b.node("list", 1, "len 200");
        b.edge(big, list, EdgeKind::Attribute, b.str("items"));
        for (int k = 0; k < 200; ++k) b.edge(list, b.str("item-" + std::to_string(i * 1000 + k)), EdgeKind::Index, k);
    }
    return b.build();
}

// A frame's globals dict (a root) holds 300 functions, whose __globals__ is
// that dict, and a chain of 60 app.Link objects ending at app.Leaky.
struct DeepChain {
    Snapshot snapshot;
    uint32_t globals = 0;
    uint32_t leaky = 0;
};
DeepChain deep_chain() {
    testing::SnapshotBuilder b;
    DeepChain c;
    c.globals = b.node("dict", 1 + 300, "len 301");
    b.root(c.globals, format::RootKind::ThreadStack, "frame app.py:1 in <module>, globals");
    for (int i = 0; i < 300; ++i) {
        const uint32_t f = b.node("function", 1, "f" + std::to_string(i), 136, format::kNodeGcTracked);
        b.edge(c.globals, f, EdgeKind::DictValue, b.str("f" + std::to_string(i)));
        b.edge(f, c.globals, EdgeKind::Field, b.string_id("__globals__"));
    }
    uint32_t at = b.node("app.Link", 1, {}, 48, format::kNodeGcTracked, "app");
    b.edge(c.globals, at, EdgeKind::DictValue, b.str("head"));
    for (int i = 0; i < 59; ++i) {
        const uint32_t next = b.node("app.Link", 1, {}, 48, format::kNodeGcTracked, "app");
        b.edge(at, next, EdgeKind::Attribute, b.str("next"));
        at = next;
    }
    c.leaky = b.node("app.Leaky", 1, {}, 48, format::kNodeGcTracked, "app");
    b.edge(at, c.leaky, EdgeKind::Attribute, b.str("value"));
    c.snapshot = b.build();
    return c;
}

// Right-clicks `index` of `view` as a mouse does and returns the menu that
// opened (null if none did).
QMenu* right_click(QAbstractItemView* view, const QModelIndex& index) {
    view->scrollTo(index);
    const QPoint pos = view->visualRect(index).center();
    QContextMenuEvent event(QContextMenuEvent::Mouse, pos, view->viewport()->mapToGlobal(pos));
    QApplication::sendEvent(view->viewport(), &event);
    // A menu closed before is deleted later: the open one is the visible one.
    for (QMenu* menu : view->findChildren<QMenu*>(QStringLiteral("objectMenu"))) {
        if (menu->isVisible()) return menu;
    }
    return nullptr;
}

// Chooses the action named `name` of an open menu, as a click on it does
// (the menu closes and deletes itself). False when it has no such action.
bool choose(QMenu* menu, const char* name) {
    if (!menu) return false;
    auto* action = menu->findChild<QAction*>(QString::fromLatin1(name));
    if (!action || !action->isEnabled()) return false;
    action->trigger();
    menu->close();
    return true;
}

QStringList action_names(const QMenu& menu) {
    QStringList names;
    for (const QAction* a : menu.actions()) {
        if (!a->objectName().isEmpty()) names << a->objectName();
    }
    return names;
}

}  // namespace

class FirstUseWindowTest : public QObject {
    Q_OBJECT
private slots:
    void aLowConfidenceRowListsItsObjectsNotTheWholeType();
    void windowShortcutsWorkInTheFilterField();
    void retainersOpenAtTheSelection();
    void backAndForwardOverSelections();
    void keyColumnsFitTheWindow();
    void keyboardShortcutsAreListed();
    void rightClickMenusActOnTheRowUnderThePointer();
    void filterMenusReadOddTypeNames();
    void connectionsLogCollapsesAndFollows();
    void tableSortingIsRemembered();
    void theSelectionFollowsIntoTheNextSnapshot();
};

// Defect B: choosing the low-confidence row listed every object of its type
// (all 716 type objects for a "type" row of 124).
void FirstUseWindowTest::aLowConfidenceRowListsItsObjectsNotTheWholeType() {
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(testing::open_snapshot(window, dir, big_and_small()));
    SuspectsPanel* panel = window.workspace()->suspectsPanel();
    const int row = panel->model()->rowOfType("app.Big");
    QVERIFY(row >= 0);
    QCOMPARE(panel->model()->groupAt(row)->confidence, analysis::SuspectConfidence::Low);
    QCOMPARE(panel->model()->groupAt(row)->objects, uint64_t{kBig});
    QVERIFY(panel->selectRow(row));
    ObjectsPanel* objects = window.workspace()->objectsPanel();
    QCOMPARE(objects->model()->rowCount(), kBig);
    QVERIFY2(objects->caption().endsWith(QLatin1String(": 3")), qPrintable(objects->caption()));
    for (int r = 0; r < kBig; ++r) {
        // Each listed object is one of the big ones: it retains its list.
        const uint32_t node = objects->model()->nodeAt(r);
        QVERIFY(window.timeline()->current()->dominators()->retained_count(node) > 200);
    }
    // Defect A, as a guard in the window (this heap has no member under a
    // member; LeakSuspects.MembersUnderMembersOfTheSameRowCountOnce... is the
    // test that failed before): no row claims more than the heap retains.
    const uint64_t heap = window.timeline()->current()->dominators()->retained_size(analysis::kSuperRoot);
    for (int r = 0; r < panel->model()->rowCount(); ++r) {
        QVERIFY2(panel->model()->groupAt(r)->retained_bytes <= heap, panel->model()->groupAt(r)->type.c_str());
    }
}

// Defect C: QLineEdit took Ctrl+E (end of line) before the window, so
// Export Graph did nothing after Ctrl+F had put the focus in the filter.
void FirstUseWindowTest::windowShortcutsWorkInTheFilterField() {
    // QLineEdit claims Ctrl+E only where the platform's key scheme binds it
    // to "end of line" (X11's; not the offscreen platform's):
    // gui_window_first_use_x11 runs this under Xvfb.
    if (!QKeySequence::keyBindings(QKeySequence::MoveToEndOfLine).contains(QKeySequence(Qt::CTRL | Qt::Key_E))) {
        QSKIP("this platform's key scheme binds no Ctrl+E in a line edit");
    }
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(testing::open_snapshot(window, dir, big_and_small()));
    QApplication::setActiveWindow(&window);
    SuspectsPanel* panel = window.workspace()->suspectsPanel();
    QVERIFY(panel->selectRow(panel->model()->rowOfType("app.Big")));  // a selection: export is enabled

    QAction* export_action = nullptr;
    for (QAction* action : window.findChildren<QAction*>()) {
        if (action->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_E)) export_action = action;
    }
    QVERIFY(export_action && export_action->isEnabled());
    // Not the save dialog (modal): only that the action fires.
    QObject::disconnect(export_action, &QAction::triggered, nullptr, nullptr);
    QSignalSpy exported(export_action, &QAction::triggered);

    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    auto* field = testing::find<QLineEdit>(window, "filterEdit");
    QVERIFY(field && field->hasFocus());
    QTest::keyClicks(field, QStringLiteral("type:app.Big"));
    QTest::keyClick(field, Qt::Key_E, Qt::ControlModifier);
    QCOMPARE(exported.count(), 1);
    QCOMPARE(field->text(), QStringLiteral("type:app.Big"));

    // The field's own editing keys stay the field's: Ctrl+A, Ctrl+C copy
    // its text (Ctrl+C is also Copy Path as Text elsewhere).
    QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(field, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("type:app.Big"));
}

// Defect D: the Retainers tab opened scrolled to the far (root) end of the
// chain, past the selected object, with that root dict expanded into every
// function's `.__globals__`.
void FirstUseWindowTest::retainersOpenAtTheSelection() {
    QTemporaryDir dir;
    MainWindow window;
    window.resize(1280, 800);
    DeepChain c = deep_chain();
    QVERIFY(testing::open_snapshot(window, dir, c.snapshot));
    window.workspace()->showPanel(Workspace::Panel::Retainers);
    window.workspace()->selectObject(c.leaky);
    QVERIFY(testing::wait_settled(window));
    RetainersPanel* panel = window.workspace()->retainersPanel();
    RetainersTreeModel* model = panel->model();
    QTreeView* view = panel->view();
    QCOMPARE(model->target(), c.leaky);
    const QModelIndex target = model->index(0, 0);
    QVERIFY(view->viewport()->rect().intersects(view->visualRect(target)));
    // The chain is open down to the globals dict, which stays closed: follow
    // the one expanded object child of each level (or the last level's object).
    QModelIndex at = target;
    int depth = 0;
    while (view->isExpanded(at)) {
        QModelIndex next;
        for (int r = 0; r < model->rowCount(at) && !next.isValid(); ++r) {
            const QModelIndex child = model->index(r, 0, at);
            if (model->nodeAt(child) != kNoNode) next = child;
        }
        if (!next.isValid()) break;
        at = next;
        ++depth;
    }
    QCOMPARE(model->nodeAt(at), c.globals);
    QCOMPARE(depth, 61);
    QVERIFY(!view->isExpanded(at));
}

// "No way back": every selection change is a step; Back and Forward by the
// menu's actions, Alt+Left/Right and the mouse's side buttons, the same
// selection in every view; another snapshot starts a new history.
void FirstUseWindowTest::backAndForwardOverSelections() {
    QTemporaryDir dir;
    MainWindow window;
    DeepChain c = deep_chain();
    QVERIFY(testing::open_snapshot(window, dir, c.snapshot));
    QApplication::setActiveWindow(&window);  // window shortcuts need the active window
    Workspace* w = window.workspace();
    auto* back = window.findChild<QAction*>(QStringLiteral("goBack"));
    auto* forward = window.findChild<QAction*>(QStringLiteral("goForward"));
    QVERIFY(back && forward);
    const uint32_t first = w->selectedObject();  // opening selected the top suspect, or nothing
    const std::vector<uint32_t> visits{c.leaky, c.globals, c.leaky - 1};
    for (const uint32_t node : visits) w->selectObject(node);
    QVERIFY(back->isEnabled() && !forward->isEnabled());

    back->trigger();
    QCOMPARE(w->selectedObject(), c.globals);
    QCOMPARE(w->retainersPanel()->model()->target(), c.globals);  // every view follows
    QTest::keyClick(&window, Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(w->selectedObject(), c.leaky);
    QVERIFY(forward->isEnabled());
    QTest::keyClick(&window, Qt::Key_Right, Qt::AltModifier);
    QCOMPARE(w->selectedObject(), c.globals);
    // The side buttons, over any widget of the window.
    QWidget* objects = w->objectsPanel();
    QTest::mouseClick(objects, Qt::BackButton, {}, objects->rect().center());
    QCOMPARE(w->selectedObject(), c.leaky);
    QTest::mouseClick(objects, Qt::ForwardButton, {}, objects->rect().center());
    QCOMPARE(w->selectedObject(), c.globals);
    // Choosing something else drops the steps ahead.
    w->selectObject(c.leaky - 2);
    QVERIFY(!forward->isEnabled());
    back->trigger();
    QCOMPARE(w->selectedObject(), c.globals);
    while (back->isEnabled()) back->trigger();
    QCOMPARE(w->selectedObject(), first == kNoNode ? c.leaky : first);

    // Ids mean nothing in another snapshot: its history starts empty.
    QTemporaryDir other;
    QVERIFY(testing::open_snapshot(window, other, big_and_small()));
    QVERIFY(!back->isEnabled());
    QVERIFY(!forward->isEnabled());
}

// "Hidden columns": at 1280×800 and 1920×1080 each table shows its key
// columns inside its viewport (Retained with its unit), on the checked-in
// scenario with a baseline. The screenshots are kept for a person to look at.
void FirstUseWindowTest::keyColumnsFitTheWindow() {
    MainWindow window;
    // Sized before the files open: the first fit must follow the models
    // (the summary's is replaced by one built on a worker), not a resize.
    QVERIFY(testing::open_scenario(window));
    QVERIFY(window.selectTopSuspect());
    QVERIFY(testing::wait_settled(window));
    Workspace* w = window.workspace();
    struct Table {
        Workspace::Panel panel;
        QTableView* view;
        std::vector<int> key_columns;
        int bytes_column;
    };
    const std::vector<Table> tables{
        {Workspace::Panel::Suspects, w->suspectsPanel()->view(),
         {SuspectsModel::TypeColumn, SuspectsModel::ConfidenceColumn, SuspectsModel::ObjectsColumn,
          SuspectsModel::RetainedBytesColumn, SuspectsModel::ScoreColumn},
         SuspectsModel::RetainedBytesColumn},
        {Workspace::Panel::Summary, w->summaryPanel()->view(),
         {TypeSummaryModel::NameColumn, TypeSummaryModel::ObjectsColumn, TypeSummaryModel::ShallowBytesColumn,
          TypeSummaryModel::RetainedBytesColumn, TypeSummaryModel::DeltaObjectsColumn,
          TypeSummaryModel::DeltaBytesColumn},
         TypeSummaryModel::RetainedBytesColumn},
        {Workspace::Panel::Diff, w->diffPanel()->view(),
         {DiffModel::TypeColumn, DiffModel::DeltaObjectsColumn, DiffModel::DeltaBytesColumn, DiffModel::NewColumn},
         DiffModel::DeltaBytesColumn},
        {Workspace::Panel::Objects, w->objectsPanel()->view(),
         {ObjectTableModel::AddressColumn, ObjectTableModel::TypeColumn, ObjectTableModel::PreviewColumn,
          ObjectTableModel::SizeColumn, ObjectTableModel::RetainedColumn},
         ObjectTableModel::RetainedColumn},
    };
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        window.resize(size);
        for (const Table& t : tables) {
            w->showPanel(t.panel);
            QVERIFY(t.view->model()->rowCount() > 0);
            QTRY_VERIFY2(testing::columns_in_viewport(*t.view, t.key_columns), qPrintable(QStringLiteral("%1 at %2×%3").arg(t.view->objectName())
                                                .arg(size.width()).arg(size.height())));
            // The unit is part of the text: "29.2 KiB", "-3 B".
            const QString bytes = t.view->model()->index(0, t.bytes_column).data().toString();
            QVERIFY2(bytes.endsWith(QLatin1Char('B')), qPrintable(bytes));
            // The user guide's pictures of the Summary and the Diff (docs/guide/reading.md).
            if (size == QSize(1280, 800) && t.panel == Workspace::Panel::Summary)
                QVERIFY(testing::save_guide_image(*w->summaryPanel(), "reading-summary"));
            if (size == QSize(1280, 800) && t.panel == Workspace::Panel::Diff)
                QVERIFY(testing::save_guide_image(*w->diffPanel(), "reading-diff"));
        }
        // Regrouping replaces the summary's model (built on a worker): the
        // new names get their width, not the old grouping's — a fit done
        // now by hand changes nothing.
        w->showPanel(Workspace::Panel::Summary);
        auto* group_by = testing::find<QComboBox>(window, "summaryGroupBy");
        QTableView* summary = w->summaryPanel()->view();
        auto* fit = summary->findChild<ColumnFit*>();
        QVERIFY(fit);
        for (const int choice : {1, 0}) {  // type's module (short names), then type (long ones)
            group_by->setCurrentIndex(choice);
            QVERIFY(testing::wait_settled(window));
            QTest::qWait(20);  // the fit waits for one turn of the event loop
            const int automatic = summary->columnWidth(TypeSummaryModel::NameColumn);
            fit->fit();
            QCOMPARE(automatic, summary->columnWidth(TypeSummaryModel::NameColumn));
        }
        w->showPanel(Workspace::Panel::Suspects);
        const QString file = testing::output_file(
            qPrintable(QStringLiteral("first-use-%1x%2.png").arg(size.width()).arg(size.height())));
        QVERIFY(window.grab().save(file, "PNG"));
    }
}

// "No help beyond About": Help ▸ Keyboard Shortcuts (F1) lists the
// window's shortcuts, read from its actions.
void FirstUseWindowTest::keyboardShortcutsAreListed() {
    MainWindow window;
    window.show();
    QApplication::setActiveWindow(&window);  // window shortcuts need the active window
    QTest::keyClick(&window, Qt::Key_F1);
    auto* dialog = window.findChild<QDialog*>(QStringLiteral("shortcutsDialog"));
    QVERIFY(dialog && dialog->isVisible());
    auto* table = dialog->findChild<QTableWidget*>(QStringLiteral("shortcutsTable"));
    QVERIFY(table);
    QMap<QString, QString> keys;
    for (int r = 0; r < table->rowCount(); ++r) keys[table->item(r, 0)->text()] = table->item(r, 1)->text();
    const auto native = [](QKeyCombination key) { return QKeySequence(key).toString(QKeySequence::NativeText); };
    QCOMPARE(keys.value(QStringLiteral("Export Graph…")), native(Qt::CTRL | Qt::Key_E));
    QCOMPARE(keys.value(QStringLiteral("Back")), native(Qt::ALT | Qt::Key_Left));
    QCOMPARE(keys.value(QStringLiteral("Forward")), native(Qt::ALT | Qt::Key_Right));
    QCOMPARE(keys.value(QStringLiteral("Filter Objects…")), native(Qt::CTRL | Qt::Key_F));
    QCOMPARE(keys.value(QStringLiteral("Keyboard Shortcuts")), native(QKeyCombination(Qt::Key_F1)));
    QVERIFY(keys.contains(QStringLiteral("Leak Suspects")));  // the panels' Alt+1..9
    dialog->close();
}

// "No right-click menu on rows or nodes": every table, tree and graph node
// offers the same actions for the object under the pointer, and they are
// steps of Back/Forward like any other selection.
void FirstUseWindowTest::rightClickMenusActOnTheRowUnderThePointer() {
    QTemporaryDir dir;
    MainWindow window;
    DeepChain c = deep_chain();
    QVERIFY(testing::open_snapshot(window, dir, c.snapshot));
    Workspace* w = window.workspace();
    const Snapshot& s = window.timeline()->current()->snapshot();

    // A summary row is a group: it filters by its type and has no address.
    w->showPanel(Workspace::Panel::Summary);
    QTableView* summary = w->summaryPanel()->view();
    const int link_row = w->summaryPanel()->model()->rowOfGroup(QStringLiteral("app.Link"));
    QVERIFY(link_row >= 0);
    QMenu* menu = right_click(summary, summary->model()->index(link_row, 0));
    QVERIFY(menu);
    QCOMPARE(action_names(*menu), QStringList{QStringLiteral("filterByTerm")});
    QVERIFY(choose(menu, "filterByTerm"));
    QCOMPARE(w->filterBar()->text(), QStringLiteral("type:app.Link"));
    QVERIFY(testing::wait_settled(window));
    ObjectsPanel* objects = w->objectsPanel();
    QCOMPARE(objects->model()->rowCount(), 60);

    // An object row: the actions are about that row's object, not the selection.
    w->selectObject(c.globals);
    const QModelIndex row = objects->model()->index(7, ObjectTableModel::AddressColumn);
    const uint32_t link = objects->model()->nodeAt(7);
    menu = right_click(objects->view(), row);
    QVERIFY(menu);
    QCOMPARE(action_names(*menu), (QStringList{"showInGraph", "showReferrers", "showRetained", "copyAddress",
                                               "copyPath", "filterByTerm"}));
    QVERIFY(choose(right_click(objects->view(), row), "copyAddress"));
    QCOMPARE(QApplication::clipboard()->text(), QString::fromStdString(analysis::format_address(s.node_address[link])));
    QVERIFY(choose(right_click(objects->view(), row), "copyPath"));
    const QString path = QApplication::clipboard()->text();
    QVERIFY2(path.contains(QStringLiteral("['head']")) && path.contains(QStringLiteral(".next")), qPrintable(path));
    QCOMPARE(w->selectedObject(), c.globals);  // copying selects nothing

    QVERIFY(choose(right_click(objects->view(), row), "showReferrers"));
    QCOMPARE(w->selectedObject(), link);
    QCOMPARE(w->retainersPanel()->model()->target(), link);
    QVERIFY(w->retainersPanel()->isVisible());
    window.findChild<QAction*>(QStringLiteral("goBack"))->trigger();
    QCOMPARE(w->selectedObject(), c.globals);

    // The retainers tree has the menu too: its top item is the object itself.
    QTreeView* tree = w->retainersPanel()->view();
    QVERIFY(choose(right_click(tree, tree->model()->index(0, 0)), "showInGraph"));
    QCOMPARE(w->selectedObject(), c.globals);
    QVERIFY(w->graphWidget()->isVisible());

    // A graph node's menu adds the same actions to its own (no "Show in Graph").
    QVERIFY(testing::wait_settled(window));
    QMenu node_menu;
    w->graphWidget()->scene()->fillNodeMenu(node_menu, c.leaky);
    QVERIFY(!action_names(node_menu).contains(QStringLiteral("showInGraph")));
    QVERIFY(choose(&node_menu, "showReferrers"));
    QCOMPARE(w->selectedObject(), c.leaky);
}

// "The Connections panel takes half the window ... its log does not follow
// new lines": the panel is a few rows high with its log collapsed, a warning
// opens the log, and the log follows new lines unless scrolled up.
// A type name the filter language must quote (a space, a quote, a
// backslash: C++ templates, Cython's odd names) reads unescaped in the
// menu, and the term it puts in the filter field selects exactly that type.
void FirstUseWindowTest::filterMenusReadOddTypeNames() {
    const std::string odd = R"(app.Odd<"q" \x>)";
    testing::SnapshotBuilder b;
    const uint32_t dict = b.node("dict", 1, "len 4");
    b.root(dict, format::RootKind::Interpreter, "sys.modules['app'].__dict__");
    for (int i = 0; i < 4; ++i)
        b.edge(dict, b.node(odd, 1, {}, 48, format::kNodeGcTracked, "app"), EdgeKind::DictValue,
               b.str("o" + std::to_string(i)));
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(testing::open_snapshot(window, dir, b.build()));
    Workspace* w = window.workspace();
    w->showPanel(Workspace::Panel::Summary);
    QTableView* summary = w->summaryPanel()->view();
    const int row = w->summaryPanel()->model()->rowOfGroup(QString::fromStdString(odd));
    QVERIFY(row >= 0);
    QMenu* menu = right_click(summary, summary->model()->index(row, 0));
    QVERIFY(menu);
    QAction* filter = menu->findChild<QAction*>(QStringLiteral("filterByTerm"));
    QVERIFY(filter);
    QCOMPARE(filter->text(), QStringLiteral("Filter by type ") + QString::fromStdString(odd));
    QVERIFY(choose(menu, "filterByTerm"));
    QVERIFY(testing::wait_settled(window));
    QCOMPARE(w->objectsPanel()->model()->rowCount(), 4);
}

void FirstUseWindowTest::connectionsLogCollapsesAndFollows() {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.live()->dock()->show();
    ConnectionsPanel* panel = window.live()->panel();
    QTRY_VERIFY(panel->isVisible());
    QVERIFY(!panel->log()->isVisible());
    QVERIFY2(panel->height() < 800 / 3, qPrintable(QString::number(panel->height())));
    panel->setLogShown(true);
    QVERIFY(panel->log()->isVisible());
    for (int i = 0; i < 200; ++i) emit window.live()->session()->logLine(QStringLiteral("line %1").arg(i), false);
    QScrollBar* bar = panel->log()->verticalScrollBar();
    QVERIFY(bar->maximum() > 0);
    QCOMPARE(bar->value(), bar->maximum());
    bar->setValue(0);  // scrolled up to read: new lines do not pull it down
    emit window.live()->session()->logLine(QStringLiteral("one more"), false);
    QCOMPARE(bar->value(), 0);
    panel->setLogShown(false);
    emit window.live()->session()->logLine(QStringLiteral("refused"), true);
    QVERIFY(panel->log()->isVisible());
    QVERIFY(panel->logToggle()->text().contains(QStringLiteral("202")));
}

// "Splitter and column state are remembered": a table's sort column and
// order come back in the next window (the splitters' were already kept).
void FirstUseWindowTest::tableSortingIsRemembered() {
    const auto open = [](MainWindow& window) {
        window.resize(1280, 800);
        window.show();
        window.openFiles({testing::data_file("app-registry-2.rscope")});
        return testing::wait_settled(window);
    };
    {
        MainWindow window;
        QVERIFY(open(window));
        QTableView* summary = window.workspace()->summaryPanel()->view();
        QVERIFY(summary->horizontalHeader()->sortIndicatorSection() != TypeSummaryModel::NameColumn);
        summary->sortByColumn(TypeSummaryModel::NameColumn, Qt::AscendingOrder);
        window.close();  // saves the settings
    }
    MainWindow again;
    QVERIFY(open(again));
    QTableView* summary = again.workspace()->summaryPanel()->view();
    QTRY_COMPARE(summary->horizontalHeader()->sortIndicatorSection(), int(TypeSummaryModel::NameColumn));
    QCOMPARE(summary->horizontalHeader()->sortIndicatorOrder(), Qt::AscendingOrder);
    // And the rows really are in that order.
    QAbstractItemModel* model = summary->model();
    QVERIFY(model->rowCount() > 2);
    QVERIFY(model->index(0, 0).data().toString() <= model->index(1, 0).data().toString());
}

// "Live auto-snapshots wipe the view": a new snapshot of the same process
// (every N s in a live session, or stepping through the timeline) keeps the
// selected object when it is still there, found by address and type.
void FirstUseWindowTest::theSelectionFollowsIntoTheNextSnapshot() {
    MainWindow window;
    QVERIFY(testing::open_scenario(window));
    const AnalysisPtr first = window.timeline()->at(0);
    const AnalysisPtr second = window.timeline()->at(1);
    QCOMPARE(window.timeline()->current(), second);
    // A Session of the first 50 logins lives in both snapshots.
    const Snapshot& s1 = first->snapshot();
    const Snapshot& s2 = second->snapshot();
    uint32_t old_session = kNoNode;
    for (uint32_t n = 0; n < s2.node_count() && old_session == kNoNode; ++n) {
        if (analysis::type_name(s2, n) != "leaky_registry.Session") continue;
        const uint32_t in_first = analysis::find_node_by_address(s1, s2.node_address[n]);
        if (in_first != kNoNode && analysis::type_name(s1, in_first) == "leaky_registry.Session") old_session = n;
    }
    QVERIFY(old_session != kNoNode);
    Workspace* w = window.workspace();
    w->selectObject(old_session);
    window.timeline()->setCurrent(first);
    QVERIFY(testing::wait_settled(window));
    const uint32_t carried = w->selectedObject();
    QVERIFY(carried != kNoNode);
    QCOMPARE(s1.node_address[carried], s2.node_address[old_session]);
    QVERIFY2(w->pathText().contains(QStringLiteral("leaky_registry.Session")), qPrintable(w->pathText()));
    QCOMPARE(w->retainersPanel()->model()->target(), carried);
    // An object the other snapshot does not have leaves nothing selected.
    uint32_t only_in_first = kNoNode;
    for (uint32_t n = 0; n < s1.node_count() && only_in_first == kNoNode; ++n) {
        if (analysis::find_node_by_address(s2, s1.node_address[n]) == kNoNode) only_in_first = n;
    }
    QVERIFY(only_in_first != kNoNode);
    w->selectObject(only_in_first);
    window.timeline()->setCurrent(second);
    QVERIFY(testing::wait_settled(window));
    QCOMPARE(w->selectedObject(), kNoNode);
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    FirstUseWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "first_use_window_test.moc"

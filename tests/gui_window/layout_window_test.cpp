// What a person sees at 1280×800 beyond the tables (issue 16, items 1 and
// 7), in the real window, headless: the object trees (retainers, retained,
// inspector) keep every column inside their viewport, their main column
// getting the room and long text elided in the middle with the whole text
// in the tooltip; the suspects' reason pane shows a whole reason; the path
// box shows its root and allocation lines, wrapped when they are long.
// Run again with QT_SCALE_FACTOR=2 (the ctest entry gui_window_layout_hidpi),
// highDpiStaysCrisp checks the window is drawn at twice the pixels with the
// same layout. Screenshots are kept in the build folder to look at.
#include <QApplication>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QToolTip>
#include <QTreeView>
#include <QtTest>

#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "models/inspector_model.h"
#include "models/retainers_tree_model.h"
#include "models/suspects_model.h"
#include "refscope/format/snapshot_io.h"
#include "snapshot_builder.h"
#include "window/column_fit.h"
#include "window/inspector_panel.h"
#include "window/main_window.h"
#include "window/object_tree_panels.h"
#include "window/path_panel.h"
#include "window/suspects_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;
using format::EdgeKind;

namespace {

// Where a service keeps its pending requests: long paths, as a real
// program's frames have them.
const std::string kFile = "/home/developer/projects/billing-service/src/billing/handlers/requests.py";
const std::string kAllocFile = "/home/developer/projects/billing-service/src/billing/models/invoice_records.py";

struct Heap {
    Snapshot snapshot;
    uint32_t pending = 0;  // the list a running frame holds
    uint32_t record = 0;   // one app.InvoiceRecord in it
};

// A running frame (a thread root, its label a long path) holds a list of
// app.InvoiceRecord objects, each with a long description; the records
// were allocated at a line of another long path.
Heap service_heap() {
    testing::SnapshotBuilder b;
    Heap h;
    const uint32_t thread = b.thread("MainThread", 1, true);
    const uint32_t frame = b.node("frame", 1, {}, 432);
    b.root(frame, format::RootKind::ThreadStack, "frame " + kFile + ":412 in handle_request", 1, thread);
    h.pending = b.node("list", 1, "len 40", 400);
    b.edge(frame, h.pending, EdgeKind::Local, b.string_id("pending_invoice_records_for_customer"));
    for (uint32_t i = 0; i < 40; ++i) {
        const uint32_t record = b.node("app.InvoiceRecord", 1, {}, 64, format::kNodeGcTracked, "app");
        b.edge(h.pending, record, EdgeKind::Index, i);
        const uint32_t text = b.str("invoice " + std::to_string(i) + " for customer account 0042 — monthly "
                                    "subscription, three seats, billed in advance");
        b.edge(record, text, EdgeKind::Attribute, b.str("description"));
        if (i == 0) h.record = record;
    }
    Snapshot s = b.build();
    AllocationSites& a = s.allocations;
    a.frames.push_back({s.strings.add(kAllocFile), 87, s.strings.add("InvoiceRecord.from_request_payload")});
    a.frames.push_back({s.strings.add(kFile), 412, s.strings.add("handle_request")});
    const uint32_t t = a.add_traceback({0, 1});
    a.node_traceback.assign(s.node_count(), 0);
    a.node_traceback[h.record] = t + 1;
    h.snapshot = std::move(s);
    return h;
}

// Every column of `view` inside its viewport, none squeezed shut, the row
// filled, and the main column no narrower than the text it shows or half
// the row, unless every other text column gave up its width for it already.
QString tree_fit_problem(const QTreeView* view, int main_column, const std::vector<int>& text_columns) {
    const int available = view->viewport()->width();
    const QHeaderView* header = view->header();
    for (int c = 0; c < header->count(); ++c) {
        const int right = header->sectionViewportPosition(c) + header->sectionSize(c);
        if (header->sectionSize(c) < 30 || right > available) {
            return QStringLiteral("%1: column %2 at %3..%4 of %5")
                .arg(view->objectName())
                .arg(c)
                .arg(header->sectionViewportPosition(c))
                .arg(right)
                .arg(available);
        }
    }
    // The main column takes the room the others leave: the row is filled
    // (a fit for another width, or none, leaves it short).
    if (header->length() != available) {
        return QStringLiteral("%1: columns %2 px wide in a row of %3").arg(view->objectName()).arg(header->length()).arg(available);
    }
    const QAbstractItemView* cells = view;
    const int wanted = std::min(cells->sizeHintForColumn(main_column), available / 2);
    if (header->sectionSize(main_column) >= wanted) return {};
    for (const int c : text_columns) {
        if (c != main_column && header->sectionSize(c) > ColumnFit::kMinTextWidth) {
            return QStringLiteral("%1: main column %2 px (wants %3) while column %4 has %5 px")
                .arg(view->objectName())
                .arg(header->sectionSize(main_column))
                .arg(wanted)
                .arg(c)
                .arg(header->sectionSize(c));
        }
    }
    return {};
}

struct Tree {
    Workspace::Panel panel;
    QTreeView* view;
    int main_column;
    std::vector<int> text_columns;
};

// The three trees, their main column and their text columns.
std::vector<Tree> trees_of(Workspace& w) {
    return {
        {Workspace::Panel::Retainers, w.retainersPanel()->view(), RetainersTreeModel::ObjectColumn,
         {RetainersTreeModel::ObjectColumn, RetainersTreeModel::ViaColumn, RetainersTreeModel::NotesColumn}},
        {Workspace::Panel::Retained, w.retainedPanel()->view(), 0, {0}},
        {Workspace::Panel::Inspector, w.inspectorPanel()->view(), InspectorModel::ValueColumn,
         {InspectorModel::FieldColumn, InspectorModel::ValueColumn, InspectorModel::NotesColumn}},
    };
}

// The tooltip a person gets resting the mouse on `index`.
QString tooltip_at(QAbstractItemView* view, const QModelIndex& index) {
    QToolTip::hideText();
    const QPoint pos = view->visualRect(index).center();
    QHelpEvent event(QEvent::ToolTip, pos, view->viewport()->mapToGlobal(pos));
    QApplication::sendEvent(view->viewport(), &event);
    return QToolTip::isVisible() ? QToolTip::text() : QString();
}

// The first row under `parent` (recursively, depth first, among the rows
// shown) whose `column` reads `prefix`…
QModelIndex find_row(const QTreeView* view, const QModelIndex& parent, int column, const QString& prefix) {
    const QAbstractItemModel* model = view->model();
    for (int r = 0; r < model->rowCount(parent); ++r) {
        const QModelIndex cell = model->index(r, column, parent);
        if (cell.data().toString().startsWith(prefix)) return cell;
        const QModelIndex first = model->index(r, 0, parent);
        if (view->isExpanded(first)) {
            const QModelIndex found = find_row(view, first, column, prefix);
            if (found.isValid()) return found;
        }
    }
    return {};
}

}  // namespace

class LayoutWindowTest : public QObject {
    Q_OBJECT
private slots:
    void treesFitTheWindow();
    void reasonPaneShowsAWholeReason();
    void pathBoxShowsRootAndAllocation();
    void highDpiStaysCrisp();
};

// "Seen at 1280×800: the Inspector's Value column is cut while Notes is
// wide; the Retainers tree's Object column is cut ("root: fram…")."
void LayoutWindowTest::treesFitTheWindow() {
    QTemporaryDir dir;
    MainWindow window;
    window.resize(1280, 800);
    const Heap h = service_heap();
    QVERIFY(testing::open_snapshot(window, dir, h.snapshot, "service.rscope"));
    Workspace* w = window.workspace();
    w->selectObject(h.record);
    QVERIFY(testing::wait_settled(window));

    const std::vector<Tree> trees = trees_of(*w);
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
        window.resize(size);
        for (const Tree& t : trees) {
            w->showPanel(t.panel);
            QVERIFY(t.view->model()->rowCount() > 0);
            QTRY_VERIFY2(tree_fit_problem(t.view, t.main_column, t.text_columns).isEmpty(),
                         qPrintable(tree_fit_problem(t.view, t.main_column, t.text_columns) +
                                    QStringLiteral(" at %1×%2").arg(size.width()).arg(size.height())));
        }
        QVERIFY(window.grab().save(
            testing::output_file(qPrintable(QStringLiteral("layout-trees-%1x%2.png").arg(size.width()).arg(size.height()))),
            "PNG"));
    }

    // In a narrow column the root's long line is elided in the middle of
    // its cell and shown whole as its tooltip; so is the record's value.
    window.resize(1280, 800);
    auto* columns = window.findChild<QSplitter*>(QStringLiteral("mainSplitter"));
    QVERIFY(columns);
    columns->setSizes({720, 560});
    w->showPanel(Workspace::Panel::Retainers);
    QTreeView* retainers = w->retainersPanel()->view();
    QTRY_VERIFY2(tree_fit_problem(retainers, RetainersTreeModel::ObjectColumn, trees[0].text_columns).isEmpty(),
                 qPrintable(tree_fit_problem(retainers, RetainersTreeModel::ObjectColumn, trees[0].text_columns)));
    const QModelIndex root = find_row(retainers, {}, RetainersTreeModel::ObjectColumn, QStringLiteral("root: frame"));
    QVERIFY(root.isValid());
    const QString root_text = root.data().toString();
    QVERIFY2(root_text.contains(QString::fromStdString(kFile)), qPrintable(root_text));
    QVERIFY(retainers->textElideMode() == Qt::ElideMiddle);
    QVERIFY(retainers->header()->sectionSize(RetainersTreeModel::ObjectColumn) <
            static_cast<const QAbstractItemView*>(retainers)->sizeHintForColumn(RetainersTreeModel::ObjectColumn));
    QVERIFY(retainers->grab().save(testing::output_file("layout-retainers-narrow.png"), "PNG"));
    const QString root_tip = tooltip_at(retainers, root);
    QVERIFY2(root_tip.contains(QString::fromStdString(kFile + ":412 in handle_request")), qPrintable(root_tip));

    w->showPanel(Workspace::Panel::Inspector);
    QTreeView* inspector = w->inspectorPanel()->view();
    QTRY_VERIFY(tree_fit_problem(inspector, InspectorModel::ValueColumn, trees[2].text_columns).isEmpty());
    const QModelIndex description = find_row(inspector, {}, InspectorModel::ValueColumn, QStringLiteral("str"));
    QVERIFY(description.isValid());
    QVERIFY(inspector->header()->sectionSize(InspectorModel::ValueColumn) <
            static_cast<const QAbstractItemView*>(inspector)->sizeHintForColumn(InspectorModel::ValueColumn));
    const QString value_tip = tooltip_at(inspector, description);
    QVERIFY2(value_tip.startsWith(description.data().toString()), qPrintable(value_tip));
    QVERIFY(inspector->grab().save(testing::output_file("layout-inspector-narrow.png"), "PNG"));
}

// The reason pane showed about three lines: the first suspect's whole reason
// (its type and every bullet) reads without scrolling.
void LayoutWindowTest::reasonPaneShowsAWholeReason() {
    MainWindow window;
    QVERIFY(testing::open_scenario(window));
    QVERIFY(window.selectTopSuspect());
    QVERIFY(testing::wait_settled(window));
    SuspectsPanel* panel = window.workspace()->suspectsPanel();
    window.workspace()->showPanel(Workspace::Panel::Suspects);
    auto* reason = panel->findChild<QLabel*>(QStringLiteral("suspectReason"));
    QVERIFY(reason);
    QVERIFY(panel->reasonText().count(QStringLiteral("• ")) >= 2);
    auto* area = qobject_cast<QScrollArea*>(reason->parentWidget()->parentWidget());
    QVERIFY(area);
    QTRY_VERIFY2(area->viewport()->height() >= reason->heightForWidth(area->viewport()->width()),
                 qPrintable(QStringLiteral("reason pane %1 px high, the reason needs %2")
                                .arg(area->viewport()->height())
                                .arg(reason->heightForWidth(area->viewport()->width()))));
    QVERIFY(!area->verticalScrollBar()->isVisible());
    // The table keeps rows to choose from.
    QVERIFY(panel->view()->viewport()->height() >= 5 * panel->view()->verticalHeader()->defaultSectionSize());
    QVERIFY(window.grab().save(testing::output_file("layout-suspects-1280x800.png"), "PNG"));
    // The user guide's pictures of this state (docs/guide/first-snapshot.md, reading.md):
    // the window, the suspects panel, and the graph beside them.
    QVERIFY(testing::save_guide_image(window, "first-snapshot-window"));
    QVERIFY(testing::save_guide_image(*panel, "reading-suspects"));
    auto* graph = testing::find<QWidget>(window, "graphPanel");
    QVERIFY(graph && graph->isVisible());
    QVERIFY(testing::save_guide_image(*graph, "reading-graph"));

    // The trees fit on the scenario's top suspect too (where "root: fram…"
    // was seen).
    for (const Tree& t : trees_of(*window.workspace())) {
        window.workspace()->showPanel(t.panel);
        QVERIFY(t.view->model()->rowCount() > 0);
        QTRY_VERIFY2(tree_fit_problem(t.view, t.main_column, t.text_columns).isEmpty(),
                     qPrintable(tree_fit_problem(t.view, t.main_column, t.text_columns)));
        QVERIFY(window.grab().save(
            testing::output_file(qPrintable(QStringLiteral("layout-scenario-%1.png").arg(t.view->objectName()))), "PNG"));
        if (t.panel == Workspace::Panel::Inspector)
            QVERIFY(testing::save_guide_image(*window.workspace()->inspectorPanel(), "reading-inspector"));
    }
}

// "The Path box cuts its Root and Allocated at lines": at 1280×800 the box
// is a few lines tall and those lines fell below it; they are in view with
// the path, and a line wider than the box (a path is one word) wraps
// rather than running past it.
void LayoutWindowTest::pathBoxShowsRootAndAllocation() {
    QTemporaryDir dir;
    MainWindow window;
    window.resize(1280, 800);
    const Heap h = service_heap();
    QVERIFY(testing::open_snapshot(window, dir, h.snapshot, "service.rscope"));
    Workspace* w = window.workspace();
    w->showPanel(Workspace::Panel::Path);
    w->selectObject(h.record);
    QVERIFY(testing::wait_settled(window));
    QTextBrowser* browser = w->pathPanel()->browser();
    const QString root = QString::fromStdString(kFile + ":412 in handle_request");
    const QString site = QString::fromStdString(kAllocFile + ":87 in InvoiceRecord.from_request_payload");
    // Where a piece of text ends on screen, in the box's viewport.
    const auto bottom_of = [&](const QString& text) {
        QTextCursor found = browser->document()->find(text);
        return found.isNull() ? -1 : browser->cursorRect(found).bottom();
    };
    const auto in_view = [&](const QString& text) {
        const int bottom = bottom_of(text);
        return bottom >= 0 && bottom <= browser->viewport()->height();
    };
    QVERIFY(browser->toPlainText().contains(QLatin1String("Root: frame")));
    QVERIFY2(in_view(QStringLiteral("Root: frame")) && in_view(QStringLiteral("handle_request")) &&
                 in_view(QStringLiteral("Allocated at")) && in_view(QStringLiteral("from_request_payload")),
             qPrintable(QStringLiteral("box %1 px high; root line ends at %2, allocation line at %3")
                            .arg(browser->viewport()->height())
                            .arg(bottom_of(QStringLiteral("handle_request")))
                            .arg(bottom_of(QStringLiteral("from_request_payload")))));
    QCOMPARE(browser->verticalScrollBar()->value(), 0);
    QVERIFY(window.grab().save(testing::output_file("layout-path-1280x800.png"), "PNG"));
    QVERIFY(testing::save_guide_image(*w->pathPanel(), "reading-path"));

    // A narrow box: the lines are wider than it, and wrap.
    auto* columns = window.findChild<QSplitter*>(QStringLiteral("mainSplitter"));
    QVERIFY(columns);
    columns->setSizes({900, 380});
    QTRY_VERIFY(QFontMetrics(browser->font()).horizontalAdvance(site) > browser->viewport()->width());
    QVERIFY(QFontMetrics(browser->font()).horizontalAdvance(root) > browser->viewport()->width());
    QTRY_COMPARE(browser->horizontalScrollBar()->maximum(), 0);
    QVERIFY(browser->document()->idealWidth() <= browser->viewport()->width());
}

// Item 7, "high-DPI stays crisp": with QT_SCALE_FACTOR=2 the window is
// drawn at twice the pixels (not scaled up from a small picture), the
// graph's text is as tall as the UI font in device-independent pixels and
// the tables keep their key columns in view, as at a scale of 1.
void LayoutWindowTest::highDpiStaysCrisp() {
    const double factor = qEnvironmentVariable("QT_SCALE_FACTOR").toDouble();
    if (factor <= 1) QSKIP("run with QT_SCALE_FACTOR=2 (ctest gui_window_layout_hidpi)");
    MainWindow window;
    QVERIFY(testing::open_scenario(window));
    QVERIFY(window.selectTopSuspect());
    QVERIFY(testing::wait_settled(window));
    Workspace* w = window.workspace();
    QCOMPARE(window.size(), QSize(1280, 800));

    w->showPanel(Workspace::Panel::Graph);
    QVERIFY(testing::wait_settled(window));
    GraphView* graph = w->graphWidget()->view();
    QVERIFY(!w->graphWidget()->scene()->nodeItems().empty());
    const double text_pixels = GraphView::kNodeTextPixels * graph->zoom();
    QVERIFY2(text_pixels >= QFontInfo(graph->font()).pixelSize() - 1e-9,
             qPrintable(QStringLiteral("node text %1 px, UI font %2 px").arg(text_pixels).arg(QFontInfo(graph->font()).pixelSize())));

    w->showPanel(Workspace::Panel::Suspects);
    QTableView* table = w->suspectsPanel()->view();
    for (const int c : {SuspectsModel::TypeColumn, SuspectsModel::ConfidenceColumn, SuspectsModel::ObjectsColumn,
                        SuspectsModel::RetainedBytesColumn, SuspectsModel::ScoreColumn}) {
        QTRY_VERIFY(table->columnViewportPosition(c) + table->columnWidth(c) <= table->viewport()->width());
    }

    const QPixmap picture = window.grab();
    QCOMPARE(picture.devicePixelRatio(), factor);
    QCOMPARE(picture.size(), QSize(qRound(1280 * factor), qRound(800 * factor)));
    QVERIFY(picture.save(testing::output_file("layout-hidpi.png"), "PNG"));
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    LayoutWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "layout_window_test.moc"

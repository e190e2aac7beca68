// The real MainWindow, driven as a person would (headless), over the
// checked-in scenario (a login service whose session registry is never
// pruned, snapshotted after 50 and after 250 logins): the comparison, leak
// suspects, their objects, the path, retainers and retained, the graph and
// its export, the diff, survivors of three snapshots, the filter and the
// summary. Files, settings and the command line: files_window_test.cpp.
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QCompleter>
#include <QStringListModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QTabWidget>
#include <QFileInfo>
#include <QFile>
#include <QImage>
#include <QCommandLineParser>
#include <QSignalSpy>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTreeView>
#include <QTemporaryDir>
#include <QUrl>
#include <QtTest>

#include "graph/graph_scene.h"
#include "graph/graph_items.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "models/diff_model.h"
#include "models/object_table_model.h"
#include "models/retainers_tree_model.h"
#include "models/retained_tree_model.h"
#include "models/suspects_model.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/subgraph.h"
#include "refscope/format/snapshot_io.h"
#include "models/type_summary_model.h"
#include "session/snapshot_timeline.h"
#include "window/diff_panel.h"
#include "window/object_tree_panels.h"
#include "window/suspects_panel.h"
#include "window/filter_bar.h"
#include "window/main_window.h"
#include "window/objects_panel.h"
#include "window/path_panel.h"
#include "window/summary_panel.h"
#include "window/workspace.h"
#include "session_fixtures.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;
using testing::data_file;
using testing::open_scenario;
using testing::wait_settled;

class MainWindowTest : public QObject {
    Q_OBJECT

private slots:
    void emptyStateAtStart();
    void opensScenarioAsComparison();
    void topSuspectShowsItsPath();
    void suspectRowsListTheirObjects();
    void retainersOpenAlongThePath();
    void retainedShowsWhatItKeepsAlive();
    void graphShowsTheSelectionAndClicksSelect();
    void exportGraphAsPngSvgPdfDot();
    void diffListsNewObjects();
    void threeSnapshotsShowSurvivors();
    void copyPathAsText();
    void filterSelectsAndReportsErrorsInPlace();
    void summaryGroupListsItsObjects();
};

void MainWindowTest::emptyStateAtStart() {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    auto* pages = qobject_cast<QStackedWidget*>(window.centralWidget());
    QVERIFY(pages);
    QCOMPARE(pages->currentWidget()->objectName(), QStringLiteral("emptyState"));
    auto* title = testing::find<QLabel>(window, "emptyStateTitle");
    QVERIFY(title);
    QCOMPARE(title->text(), QStringLiteral("Open a snapshot or connect a process"));
    QVERIFY(testing::find<QPushButton>(window, "emptyStateOpen"));
    QCOMPARE(window.windowTitle(), QStringLiteral("refscope"));
    QVERIFY(window.countsText().isEmpty());
    QVERIFY(!window.windowIcon().isNull());
    QVERIFY(testing::save_guide_image(window, "first-snapshot-start-page"));
}

void MainWindowTest::opensScenarioAsComparison() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    QVERIFY(window.loadErrors().isEmpty());
    SnapshotTimeline* timeline = window.timeline();
    QCOMPARE(timeline->count(), 2);
    // Opened together: the older is the baseline, the newer is shown.
    QVERIFY(timeline->baseline());
    QCOMPARE(timeline->baseline()->snapshot().header.sequence, uint64_t{1});
    QCOMPARE(timeline->current()->snapshot().header.sequence, uint64_t{2});
    QVERIFY(window.comparisonJob()->result());
    QCOMPARE(window.workspace()->comparison(), window.comparisonJob()->result());

    auto* pages = qobject_cast<QStackedWidget*>(window.centralWidget());
    QCOMPARE(pages->currentWidget(), static_cast<QWidget*>(window.workspace()));
    QVERIFY(window.windowTitle().startsWith(QLatin1String("app-registry-2.rscope vs app-registry-1.rscope")));
    // Status bar: the snapshot's own counts.
    const Snapshot& s = timeline->current()->snapshot();
    QVERIFY2(window.countsText().startsWith(
                 QString::fromStdString(analysis::with_thousands(s.node_count())) + QStringLiteral(" objects")),
             qPrintable(window.countsText()));
    QVERIFY(window.countsText().contains(QLatin1String("leak suspects")));
    // The selector names both and what the comparison found.
    auto* note = testing::find<QLabel>(window, "comparisonNote");
    QVERIFY(note && note->text().contains(QLatin1String("new")));
    auto* baseline = testing::find<QComboBox>(window, "baselineSnapshot");
    QVERIFY(baseline && baseline->currentText().contains(QLatin1String("after 50 logins")));
}

void MainWindowTest::topSuspectShowsItsPath() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    QVERIFY(window.selectTopSuspect());
    QVERIFY(wait_settled(window));
    // With the baseline, the top suspect is the new sessions, led into the
    // registry dict they accumulate in: the path runs from sys.modules
    // through the module and that dict.
    const analysis::LeakSuspects* suspects = window.workspace()->suspects();
    QVERIFY(suspects && !suspects->groups().empty());
    const analysis::SuspectGroup& top = suspects->groups().front();
    QCOMPARE(QString::fromStdString(top.type), QStringLiteral("leaky_registry.Session"));
    QVERIFY(top.kinds & analysis::kSuspectGrowingHolder);
    const QString path = window.selectedPathText();
    // Word for word the chain `refscope-cli path` prints.
    QVERIFY2(path.startsWith(QStringLiteral("sys.modules → dict (len=")), qPrintable(path));
    QVERIFY2(path.contains(QStringLiteral("→ ['leaky_registry'] → module leaky_registry → .__dict__ → ")),
             qPrintable(path));
    QVERIFY2(path.contains(QStringLiteral("→ ['_sessions'] → dict (len=250) → ")), qPrintable(path));
    QVERIFY2(path.contains(QStringLiteral("leaky_registry.Session")), qPrintable(path));
    // Its reasons are spelled out under the list, naming the holder.
    const QString reason = window.workspace()->suspectsPanel()->reasonText();
    QVERIFY2(reason.contains(QLatin1String("accumulate in leaky_registry._sessions")), qPrintable(reason));
    QCOMPARE(window.workspace()->selectedObject(), top.representative);
}

void MainWindowTest::suspectRowsListTheirObjects() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    SuspectsPanel* panel = window.workspace()->suspectsPanel();
    const int row = [&] {
        for (int r = 0; r < panel->model()->rowCount(); ++r) {
            if (panel->model()->groupAt(r)->type == "leaky_registry.Session") return r;
        }
        return -1;
    }();
    QVERIFY(row >= 0);
    // One click on the row: its objects, its representative selected.
    panel->view()->setCurrentIndex(panel->model()->index(row, SuspectsModel::TypeColumn));
    ObjectsPanel* objects = window.workspace()->objectsPanel();
    QCOMPARE(objects->model()->rowCount(), 200);  // the new ones: the growth evidence
    QVERIFY(objects->caption().contains(QLatin1String("leaky_registry.Session")));
    const uint32_t representative = panel->model()->representativeNode(row);
    QCOMPARE(window.workspace()->selectedObject(), representative);
    QCOMPARE(objects->view()->currentIndex().row(), objects->model()->rowOf(representative));
    QVERIFY2(window.selectedPathText().endsWith(
                 QString::fromStdString(analysis::describe_node(window.timeline()->current()->snapshot(), representative))),
             qPrintable(window.selectedPathText()));
}

void MainWindowTest::retainersOpenAlongThePath() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    QVERIFY(window.selectTopSuspect());
    window.workspace()->showPanel(Workspace::Panel::Retainers);
    RetainersPanel* panel = window.workspace()->retainersPanel();
    RetainersTreeModel* model = panel->model();
    QCOMPARE(model->target(), window.workspace()->selectedObject());
    // The target, expanded along its chain to sys.modules: follow the
    // expanded items down and meet every object of the path.
    QStringList chain;
    QModelIndex index = model->index(0, 0);
    while (index.isValid()) {
        chain << index.data().toString();
        QModelIndex next;
        if (panel->view()->isExpanded(index)) {
            for (int r = 0; r < model->rowCount(index); ++r) {
                const QModelIndex child = model->index(r, 0, index);
                if (panel->view()->isExpanded(child) || model->rowCount(child) == 0) {
                    if (model->nodeAt(child) != kNoNode && panel->view()->isExpanded(child)) {
                        next = child;
                        break;
                    }
                }
            }
            if (!next.isValid()) {
                // The last level: the root object, whose first children are its root records.
                for (int r = 0; r < model->rowCount(index); ++r) chain << model->index(r, 0, index).data().toString();
            }
        }
        index = next;
    }
    const QString joined = chain.join(QStringLiteral(" | "));
    QVERIFY2(chain.size() >= 4, qPrintable(joined));
    QVERIFY2(joined.contains(QLatin1String("module leaky_registry")), qPrintable(joined));
    QVERIFY2(joined.contains(QLatin1String("sys.modules")), qPrintable(joined));
    // Double-clicking a retainer makes it the selection.
    const QModelIndex first_retainer = model->index(0, 0, model->index(0, 0));
    const uint32_t retainer = model->nodeAt(first_retainer);
    QVERIFY(retainer != kNoNode);
    emit panel->view()->activated(first_retainer);
    QCOMPARE(window.workspace()->selectedObject(), retainer);
}

void MainWindowTest::retainedShowsWhatItKeepsAlive() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    QVERIFY(window.selectTopSuspect());
    // The holder the top suspect names: the registry dict.
    window.workspace()->selectObject(window.workspace()->suspects()->groups().front().lead_holder);
    QVERIFY(wait_settled(window));
    RetainedPanel* panel = window.workspace()->retainedPanel();
    RetainedTreeModel* model = panel->model();
    QCOMPARE(model->target(), window.workspace()->selectedObject());
    const QModelIndex top = model->index(0, 0);
    QVERIFY(panel->view()->isExpanded(top));
    // The registry keeps the 250 sessions alive (in batches).
    QVERIFY(model->rowCount(top) > 10);
    bool session = false;
    for (int r = 0; r < model->rowCount(top); ++r) {
        session = session || model->index(r, 0, top).data().toString().contains(QLatin1String("leaky_registry.Session"));
    }
    QVERIFY(session);
}

void MainWindowTest::graphShowsTheSelectionAndClicksSelect() {
    MainWindow window;
    QVERIFY(open_scenario(window, QSize(1400, 900)));
    QVERIFY(window.selectTopSuspect());
    window.workspace()->showPanel(Workspace::Panel::Graph);
    QVERIFY(wait_settled(window));
    GraphWidget* graph = window.workspace()->graphWidget();
    QVERIFY(graph->isVisible());
    const GraphDataPtr drawn = graph->currentGraph();
    QVERIFY(drawn);
    const uint32_t target = window.workspace()->selectedObject();
    QCOMPARE(drawn->targets, std::vector<uint32_t>{target});
    QVERIFY(drawn->subgraph.find(target) != kNoNode);
    QCOMPARE(drawn->subgraph.path_count, 1u);
    QVERIFY(graph->scene()->nodeItemFor(target) != nullptr);

    // Click the module's node: it becomes the selection everywhere, and the
    // drawing stays (it is highlighted there, not redrawn).
    const Snapshot& s = window.timeline()->current()->snapshot();
    uint32_t module = kNoNode;
    for (const analysis::SubgraphNode& n : drawn->subgraph.nodes) {
        if (!n.is_group() && analysis::describe_node(s, n.node) == "module leaky_registry") module = n.node;
    }
    QVERIFY(module != kNoNode);
    GraphNodeItem* item = graph->scene()->nodeItemFor(module);
    QVERIFY(item);
    graph->view()->centerOn(item);
    const QPoint where = graph->view()->mapFromScene(item->sceneBoundingRect().center());
    QTest::mouseClick(graph->view()->viewport(), Qt::LeftButton, {}, where);
    QTRY_COMPARE(window.workspace()->selectedObject(), module);
    QVERIFY(window.selectedPathText().endsWith(QStringLiteral("module leaky_registry")));
    QCOMPARE(window.workspace()->retainersPanel()->model()->target(), module);
    QVERIFY(wait_settled(window));
    QCOMPARE(graph->currentGraph(), drawn);
    QCOMPARE(graph->scene()->selectedNode(), module);
}

void MainWindowTest::exportGraphAsPngSvgPdfDot() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    QString error;
    QTemporaryDir dir;
    // Nothing selected: nothing to export, said plainly.
    QVERIFY(!window.exportGraph(dir.filePath(QStringLiteral("none.png")), &error));
    QVERIFY(error.contains(QLatin1String("select an object")));
    QVERIFY(window.selectTopSuspect());
    QVERIFY(wait_settled(window));

    const QString png = dir.filePath(QStringLiteral("leak.png"));
    QVERIFY2(window.exportGraph(png, &error), qPrintable(error));
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 100 && image.height() > 30);

    const QString svg = dir.filePath(QStringLiteral("leak.svg"));
    QVERIFY2(window.exportGraph(svg, &error), qPrintable(error));
    QFile svg_file(svg);
    QVERIFY(svg_file.open(QIODevice::ReadOnly));
    const QByteArray svg_text = svg_file.readAll();
    QVERIFY(svg_text.contains("<svg"));
    QVERIFY(svg_text.contains("leaky_registry"));
    QVERIFY(svg_text.contains("sys.modules"));

    const QString pdf = dir.filePath(QStringLiteral("leak.pdf"));
    QVERIFY2(window.exportGraph(pdf, &error), qPrintable(error));
    QFile pdf_file(pdf);
    QVERIFY(pdf_file.open(QIODevice::ReadOnly));
    QVERIFY(pdf_file.read(5) == "%PDF-");

    const QString dot = dir.filePath(QStringLiteral("leak.dot"));
    QVERIFY2(window.exportGraph(dot, &error), qPrintable(error));
    QFile dot_file(dot);
    QVERIFY(dot_file.open(QIODevice::ReadOnly));
    QVERIFY(dot_file.readAll().startsWith("digraph"));

    QVERIFY(!window.exportGraph(dir.filePath(QStringLiteral("leak.bmp")), &error));
    QVERIFY(error.contains(QLatin1String(".png, .svg, .pdf or .dot")));
    // A folder that does not exist: an error, no crash, nothing written.
    QVERIFY(!window.exportGraph(dir.filePath(QStringLiteral("missing/leak.svg")), &error));
    QVERIFY(!error.isEmpty());
}

void MainWindowTest::diffListsNewObjects() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    DiffPanel* diff = window.workspace()->diffPanel();
    QVERIFY(diff->model()->rowCount() > 0);
    QVERIFY(diff->caption().contains(QLatin1String("against #1 after 50 logins")));
    const int row = diff->model()->rowOfType(QStringLiteral("leaky_registry.Session"));
    QVERIFY(row >= 0);
    QCOMPARE(diff->model()->index(row, DiffModel::DeltaObjectsColumn).data().toString(), QStringLiteral("+200"));
    QVERIFY(diff->selectType(QStringLiteral("leaky_registry.Session")));
    ObjectsPanel* objects = window.workspace()->objectsPanel();
    QCOMPARE(objects->model()->rowCount(), 200);
    QVERIFY(objects->caption().contains(QLatin1String("new leaky_registry.Session since the baseline")));
    // Without a baseline the diff says how to get one.
    window.timeline()->setBaseline(nullptr);
    QVERIFY(wait_settled(window));
    QCOMPARE(diff->model()->rowCount(), 0);
    QVERIFY(diff->caption().contains(QLatin1String("choose a baseline")));
}

void MainWindowTest::threeSnapshotsShowSurvivors() {
    // Three snapshots of one process, built in memory and written to files.
    QTemporaryDir dir;
    QStringList files;
    for (uint32_t i = 0; i < 3; ++i) {
        const QString file = dir.filePath(QStringLiteral("s%1.rscope").arg(i + 1));
        format::write_snapshot_file(testing::make_registry_snapshot(10 + 20 * i, i + 1), file.toStdString());
        files << file;
    }
    MainWindow window;
    window.show();
    window.openFiles(files);
    QVERIFY(wait_settled(window));
    SnapshotTimeline* timeline = window.timeline();
    QCOMPARE(timeline->count(), 3);
    QCOMPARE(timeline->current()->snapshot().header.sequence, uint64_t{3});
    auto* middle = testing::find<QComboBox>(window, "middleSnapshot");
    QVERIFY(middle->isEnabled());
    const int choice = middle->findText(QStringLiteral("#2"), Qt::MatchStartsWith);
    QVERIFY(choice > 0);
    middle->setCurrentIndex(choice);
    emit middle->activated(choice);
    QVERIFY(wait_settled(window));
    QVERIFY(timeline->middle());
    const ComparisonPtr comparison = window.workspace()->comparison();
    QVERIFY(comparison && comparison->survivors());
    DiffPanel* diff = window.workspace()->diffPanel();
    QVERIFY(diff->caption().contains(QLatin1String("still alive")));
    const int row = diff->model()->rowOfType(QStringLiteral("app.Session"));
    QCOMPARE(diff->model()->index(row, DiffModel::SurvivorsColumn).data().toString(), QStringLiteral("20"));
    QVERIFY(diff->selectType(QStringLiteral("app.Session")));
    QCOMPARE(window.workspace()->objectsPanel()->model()->rowCount(), 20);
    const analysis::SuspectGroup* sessions = window.workspace()->suspects()->find("app.Session");
    QVERIFY(sessions && (sessions->kinds & analysis::kSuspectSurvivor));
}

void MainWindowTest::copyPathAsText() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    QVERIFY(window.selectTopSuspect());
    // Ctrl+C in the suspects table copies the selected object's path.
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTableView* suspects = window.workspace()->suspectsPanel()->view();
    suspects->setFocus();
    QApplication::clipboard()->clear();
    QTest::keyClick(suspects, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QApplication::clipboard()->text(), window.selectedPathText());
    // So does the button under the path.
    QApplication::clipboard()->clear();
    auto* copy = testing::find<QPushButton>(window, "copyPath");
    QVERIFY(copy && copy->isEnabled());
    copy->click();
    QCOMPARE(QApplication::clipboard()->text(), window.selectedPathText());
    QVERIFY(!window.selectedPathText().isEmpty());
}

void MainWindowTest::filterSelectsAndReportsErrorsInPlace() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    FilterBar* filter = window.workspace()->filterBar();
    TypeSummaryModel* summary = window.workspace()->summaryPanel()->model();
    ObjectTableModel* objects = window.workspace()->objectsPanel()->model();
    const int all_groups = summary->rowCount();
    QVERIFY(summary->analysis() == window.timeline()->current());
    QVERIFY(all_groups > 10);

    // Ctrl+F focuses the field; typing a query and Enter applies it.
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(filter->lineEdit()->hasFocus());
    QTest::keyClicks(filter->lineEdit(), QStringLiteral("type:leaky_registry.Session"));
    QTest::keyClick(filter->lineEdit(), Qt::Key_Return);
    QVERIFY(wait_settled(window));  // the query runs on a worker thread
    summary = window.workspace()->summaryPanel()->model();
    QCOMPARE(summary->rowCount(), 1);
    QCOMPARE(summary->groupName(0), QStringLiteral("leaky_registry.Session"));
    QCOMPARE(objects->rowCount(), 250);
    QVERIFY(!filter->errorLabel()->isVisible());

    // `new` uses the comparison: 200 sessions since the baseline.
    filter->lineEdit()->setText(QStringLiteral("type:leaky_registry.Session new"));
    filter->apply();
    QVERIFY(wait_settled(window));
    QCOMPARE(objects->rowCount(), 200);

    // A mistake: shown in place with its column, the views keep the last
    // good filter, nothing crashes.
    filter->lineEdit()->setText(QStringLiteral("type:leaky_registry.Session sise>10"));
    filter->apply();
    QVERIFY(wait_settled(window));
    QVERIFY(filter->errorLabel()->isVisible());
    const QString error = filter->errorLabel()->text();
    QVERIFY2(error.contains(QLatin1String("sise")) && error.contains(QLatin1String("column 29")), qPrintable(error));
    QCOMPARE(filter->lineEdit()->cursorPosition(), 28);
    QCOMPARE(objects->rowCount(), 200);

    // Completions for the word being typed.
    filter->lineEdit()->clear();
    QTest::keyClicks(filter->lineEdit(), QStringLiteral("type:leaky_reg"));
    auto* completion_model = qobject_cast<QStringListModel*>(filter->lineEdit()->completer()->model());
    QVERIFY(completion_model);
    const QStringList completions = completion_model->stringList();
    QVERIFY2(completions.contains(QStringLiteral("type:leaky_registry.Session")), qPrintable(completions.join(", ")));

    // Clearing the field removes the filter.
    filter->lineEdit()->clear();
    QVERIFY(wait_settled(window));
    QCOMPARE(summary->rowCount(), all_groups);
    QVERIFY(!filter->errorLabel()->isVisible());
}

void MainWindowTest::summaryGroupListsItsObjects() {
    MainWindow window;
    window.show();
    QVERIFY(open_scenario(window));
    SummaryPanel* summary = window.workspace()->summaryPanel();
    QVERIFY(summary->selectGroup(QStringLiteral("leaky_registry.Session")));
    ObjectsPanel* objects = window.workspace()->objectsPanel();
    QCOMPARE(objects->model()->rowCount(), 250);
    QVERIFY(objects->caption().contains(QLatin1String("leaky_registry.Session")));
    // The growth since the baseline is in the summary.
    const int row = summary->model()->rowOfGroup(QStringLiteral("leaky_registry.Session"));
    QCOMPARE(summary->model()->index(row, TypeSummaryModel::DeltaObjectsColumn).data().toString(),
             QStringLiteral("+200"));
    // Choosing an object row selects it everywhere.
    objects->view()->setCurrentIndex(objects->model()->index(3, 0));
    const uint32_t node = objects->model()->nodeAt(3);
    QCOMPARE(window.workspace()->selectedObject(), node);
    QVERIFY(window.selectedPathText().contains(QLatin1String("leaky_registry.Session @ ")));
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    MainWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "main_window_test.moc"

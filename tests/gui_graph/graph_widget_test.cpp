// GraphWidget: showing objects, selection in both directions, expanding nodes
// and groups, the toolbar's options, the status line, and export to every
// format (files checked with the readers a user would use), including an
// export that cannot be written.
#include "graph/graph_widget.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <QXmlStreamReader>

#include "graph/graph_layout_job.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph_test_heap.h"
#include "graph_test_input.h"
#include "test_support.h"

using namespace refscope;
using namespace refscope::app;
using graphtest::double_click;
using graphtest::group_item;

namespace {

// Waits until the widget shows a drawing for its newest request.
// Then lets the layout of the widget settle (the view is shown, resized and
// fitted through posted events), as it would before a user sees it.
bool wait_for_graph(GraphWidget& widget, int timeout_ms = 20000) {
    const bool shown = QTest::qWaitFor(
        [&] {
            const GraphDataPtr g = widget.currentGraph();
            return !widget.busy() && g && g->requestId == widget.layoutJob()->latestRequestId();
        },
        timeout_ms);
    QCoreApplication::processEvents();
    return shown;
}

QByteArray read_all(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return file.readAll();
}

}  // namespace

class GraphWidgetTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { heap_ = graphtest::make_test_heap(); }

    void emptyStatesSayWhatToDo();
    void showObjectDrawsItAndSelectsIt();
    void clickingANodeSelectsTheObject();
    void selectionFromElsewhereHighlightsWithoutASignal();
    void expandingANodeRequestsItsNeighbours();
    void expandingAGroupDrawsItsMembers();
    void toolbarOptionsReLayOut();
    void statusShowsNotesAndTheNodeCap();
    void theWidestDefaultViewStaysLegible();
    void failuresAreShownAndClearTheDrawing();
    void newAnalysisDropsTheOldDrawing();
    void exportWritesEveryFormat();
    void exportToAnUnwritablePathFailsCleanly();
    void exportRunsOnAWorkerThread();

    void cleanupTestCase() {
        heap_ = {};
        QCOMPARE(graphviz::graphviz_live_objects(), 0);
    }

private:
    graphtest::TestHeap heap_;
};

void GraphWidgetTest::emptyStatesSayWhatToDo() {
    GraphWidget widget;
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    QVERIFY(!widget.view()->isVisible());
    QVERIFY(!widget.fitAction()->isEnabled());
    widget.setAnalysis(heap_.analysis);
    QVERIFY(!widget.view()->isVisible());
    QVERIFY(!widget.currentGraph());
    QString error;
    QVERIFY(
        !widget.exportTo(QDir::temp().filePath("never.png"), graphviz::OutputFormat::Png, &error));
    QVERIFY(error.contains("Nothing to export"));
    QVERIFY(!QFile::exists(QDir::temp().filePath("never.png")));
}

void GraphWidgetTest::showObjectDrawsItAndSelectsIt() {
    GraphWidget widget;
    widget.resize(900, 700);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    widget.setAnalysis(heap_.analysis);
    QSignalSpy shown(&widget, &GraphWidget::graphShown);
    widget.showObject(heap_.target);
    QVERIFY(widget.busy());
    QVERIFY(widget.statusText().contains("Laying out"));
    QVERIFY(wait_for_graph(widget));
    QCOMPARE(shown.count(), 1);

    const GraphDataPtr g = widget.currentGraph();
    QCOMPARE(g->targets, std::vector<uint32_t>{heap_.target});
    QCOMPARE(widget.scene()->nodeItems().size(), g->subgraph.nodes.size());
    QVERIFY(widget.view()->isVisible());
    QVERIFY(widget.fitAction()->isEnabled());
    // The target is selected and in view, at a zoom where the nodes' text is
    // as tall as the UI font (issue 16: text of 5 px at Fit); the whole
    // drawing when it fits at that zoom, kept fitted then.
    const GraphNodeItem* target = widget.scene()->nodeItemFor(heap_.target);
    QVERIFY(target->isHighlighted());
    GraphView* view = widget.view();
    QVERIFY2(view->zoom() >= view->readableZoom() - 1e-9, qPrintable(QString::number(view->zoom())));
    const QRect viewport = view->viewport()->rect().adjusted(-2, -2, 2, 2);
    QVERIFY(viewport.contains(view->mapFromScene(target->pos())));
    const QRect drawn = view->mapFromScene(widget.scene()->sceneRect()).boundingRect();
    QCOMPARE(view->keepsFitted(), viewport.contains(drawn));
    // Status: counts and timing, no "laying out" any more.
    const QString status = widget.statusText();
    QVERIFY2(status.contains("objects") && status.contains("references") &&
                 status.contains("laid out in"),
             qPrintable(status));
    QVERIFY(!status.contains("Laying out"));
}

void GraphWidgetTest::clickingANodeSelectsTheObject() {
    GraphWidget widget;
    widget.resize(900, 700);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    widget.setAnalysis(heap_.analysis);
    widget.showObject(heap_.target);
    QVERIFY(wait_for_graph(widget));
    QSignalSpy selected(&widget, &GraphWidget::objectSelected);
    GraphView* view = widget.view();
    const GraphNodeItem* dict = widget.scene()->nodeItemFor(heap_.dict);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(dict->pos()));
    QTRY_COMPARE(selected.count(), 1);
    QCOMPARE(selected.first().first().value<uint32_t>(), heap_.dict);
    QVERIFY(dict->isHighlighted());
    QVERIFY(!widget.scene()->nodeItemFor(heap_.target)->isHighlighted());
}

void GraphWidgetTest::selectionFromElsewhereHighlightsWithoutASignal() {
    GraphWidget widget;
    widget.setAnalysis(heap_.analysis);
    widget.showObject(heap_.target);
    QVERIFY(wait_for_graph(widget));
    QSignalSpy selected(&widget, &GraphWidget::objectSelected);
    widget.selectObject(heap_.callback);
    QVERIFY(widget.scene()->nodeItemFor(heap_.callback)->isHighlighted());
    widget.selectObject(heap_.holder);  // not drawn: nothing highlighted
    for (const GraphNodeItem* item : widget.scene()->nodeItems()) QVERIFY(!item->isHighlighted());
    QCOMPARE(selected.count(), 0);
}

void GraphWidgetTest::expandingANodeRequestsItsNeighbours() {
    GraphWidget widget;
    widget.resize(900, 700);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    widget.setAnalysis(heap_.analysis);
    widget.showObject(heap_.target);
    QVERIFY(wait_for_graph(widget));
    // The observer's state is two hops from the target: not drawn yet.
    QVERIFY(!widget.scene()->nodeItemFor(heap_.state));
    widget.view()->fitToWindow();
    QVERIFY(widget.view()->keepsFitted());
    const double zoom = widget.view()->zoom();

    // Double-click the observer: the widget re-requests with it expanded.
    const quint64 before = widget.layoutJob()->latestRequestId();
    GraphView* view = widget.view();
    const GraphNodeItem* observer = widget.scene()->nodeItemFor(heap_.observer);
    double_click(view->viewport(), view->mapFromScene(observer->pos()));
    QTRY_COMPARE(widget.layoutJob()->latestRequestId(), before + 1);
    QCOMPARE(widget.currentRequest().expanded, std::vector<uint32_t>{heap_.observer});
    QCOMPARE(widget.currentRequest().targets, std::vector<uint32_t>{heap_.target});
    QVERIFY(wait_for_graph(widget));
    const GraphDataPtr g = widget.currentGraph();
    QCOMPARE(g->expanded, std::vector<uint32_t>{heap_.observer});
    QVERIFY(widget.scene()->nodeItemFor(heap_.state));
    // The expanded node is not made a target; the zoom is kept.
    QVERIFY(!g->subgraph.nodes[g->subgraph.find(heap_.observer)].is_target);
    QVERIFY(g->subgraph.nodes[g->subgraph.find(heap_.target)].is_target);
    QCOMPARE(widget.view()->zoom(), zoom);
    QVERIFY(!widget.view()->keepsFitted());

    // Expanding it again widens the neighbourhood instead.
    const int hops = widget.hops();
    widget.expandNeighbours(heap_.observer);
    QCOMPARE(widget.hops(), hops + 1);
    QCOMPARE(widget.currentRequest().options.hops, static_cast<uint32_t>(hops + 1));
    QVERIFY(wait_for_graph(widget));

    // Showing another object starts afresh.
    widget.showObject(heap_.lost);
    QVERIFY(widget.expandedNodes().empty());
    QVERIFY(wait_for_graph(widget));
}

void GraphWidgetTest::expandingAGroupDrawsItsMembers() {
    GraphWidget widget;
    widget.setAnalysis(heap_.analysis);
    widget.showObject(heap_.target);
    QVERIFY(wait_for_graph(widget));
    const GraphNodeItem* group = group_item(*widget.scene());
    QVERIFY(group);
    for (uint32_t s : heap_.strings) QVERIFY(!widget.scene()->nodeItemFor(s));

    const quint64 before = widget.layoutJob()->latestRequestId();
    widget.scene()->requestExpansion(kNoNode, group->groupAnchorNode(), group->groupCount());
    QTRY_COMPARE(widget.layoutJob()->latestRequestId(), before + 1);
    const GraphRequest request = widget.currentRequest();
    QVERIFY(request.expanded.empty());  // the anchor is the target: already explained
    QVERIFY(request.options.collapse_threshold > 20);
    QVERIFY(request.options.max_fanout > 20);
    QVERIFY(wait_for_graph(widget));
    for (uint32_t s : heap_.strings) QVERIFY(widget.scene()->nodeItemFor(s));
    for (const GraphNodeItem* item : widget.scene()->nodeItems()) QVERIFY(!item->isGroup());

    // A group hanging off another node: that node's neighbourhood is opened.
    widget.expandGroup(heap_.module, 30);
    QCOMPARE(widget.expandedNodes(), std::vector<uint32_t>{heap_.module});
    QVERIFY(widget.currentRequest().options.max_fanout > 30);
    QVERIFY(wait_for_graph(widget));
}

void GraphWidgetTest::toolbarOptionsReLayOut() {
    GraphWidget widget;
    widget.setAnalysis(heap_.analysis);
    widget.showObject(heap_.target);
    QVERIFY(wait_for_graph(widget));
    QVERIFY(widget.currentGraph()->subgraph.clusters.empty());

    // The combo box in the toolbar, as a user would change it.
    auto* combo = widget.toolBar()->findChild<QComboBox*>();
    QVERIFY(combo);
    combo->setCurrentIndex(combo->findText("module"));
    QCOMPARE(widget.clusterBy(), analysis::ClusterBy::Module);
    QVERIFY(widget.busy());
    QVERIFY(wait_for_graph(widget));
    QCOMPARE(widget.currentGraph()->clusterBy, analysis::ClusterBy::Module);
    QVERIFY(!widget.scene()->clusterItems().empty());
    QVERIFY(widget.statusText().contains("cluster"));

    widget.setHops(0);
    QCOMPARE(widget.currentRequest().options.hops, 0u);
    QVERIFY(wait_for_graph(widget));
    // Without neighbours only the path remains: module, dict, target.
    QCOMPARE(widget.currentGraph()->subgraph.nodes.size(), size_t{3});

    widget.setHops(99);  // clamped by the spin box
    QCOMPARE(widget.hops(), GraphWidget::kMaxHops);
    widget.setMaxNodes(40);
    QCOMPARE(widget.currentRequest().options.max_nodes, 40u);
    widget.setClusterBy(analysis::ClusterBy::Cycle);
    QCOMPARE(widget.currentRequest().options.cluster_by, analysis::ClusterBy::Cycle);
    QVERIFY(wait_for_graph(widget));
    QCOMPARE(widget.currentGraph()->clusterBy, analysis::ClusterBy::Cycle);
}

void GraphWidgetTest::statusShowsNotesAndTheNodeCap() {
    GraphWidget widget;
    widget.setAnalysis(heap_.analysis);
    widget.showObject(heap_.lost);  // no retention path: a note says why
    QVERIFY(wait_for_graph(widget));
    const analysis::Subgraph& g = widget.currentGraph()->subgraph;
    QVERIFY(!g.notes.empty());
    QVERIFY2(widget.statusText().contains(QString::fromStdString(g.notes.front())),
             qPrintable(widget.statusText()));

    // A busy heap with a small cap: the omitted neighbours are counted.
    const AnalysisPtr big =
        analysis::SnapshotAnalysis::analyse(refscope::testing::make_synthetic_heap(5'000, 5));
    widget.setAnalysis(big);
    widget.setMaxNodes(GraphWidget::kMinNodes);
    widget.setHops(3);
    widget.showObject(10);
    QVERIFY(wait_for_graph(widget));
    QVERIFY(widget.currentGraph()->subgraph.truncated);
    QVERIFY2(widget.statusText().contains("not shown"), qPrintable(widget.statusText()));
}

// "Hops 3 with clustering gives a 120-node tangle": whatever hops and
// clusters are chosen, the default cap keeps the drawing to what a window
// shows legibly, and says what it left out.
void GraphWidgetTest::theWidestDefaultViewStaysLegible() {
    GraphWidget widget;
    const AnalysisPtr big =
        analysis::SnapshotAnalysis::analyse(refscope::testing::make_synthetic_heap(5'000, 5));
    widget.setAnalysis(big);
    widget.setHops(GraphWidget::kMaxHops);
    widget.setClusterBy(analysis::ClusterBy::Module);
    widget.showObject(10);
    QVERIFY(wait_for_graph(widget));
    const analysis::Subgraph& g = widget.currentGraph()->subgraph;
    QVERIFY2(g.nodes.size() <= size_t{GraphWidget::kDefaultMaxNodes}, qPrintable(QString::number(g.nodes.size())));
    QVERIFY(g.truncated);
    QVERIFY2(widget.statusText().contains("not shown"), qPrintable(widget.statusText()));
}

void GraphWidgetTest::failuresAreShownAndClearTheDrawing() {
    GraphWidget widget;
    widget.setAnalysis(heap_.analysis);
    widget.showObject(heap_.target);
    QVERIFY(wait_for_graph(widget));
    widget.showObject(123'456'789);
    QVERIFY(QTest::qWaitFor([&] { return !widget.busy(); }, 5000));
    QVERIFY(!widget.currentGraph());
    QVERIFY(widget.scene()->items().isEmpty());
    QVERIFY2(widget.statusText().contains("Cannot draw the graph") &&
                 widget.statusText().contains("not in this snapshot"),
             qPrintable(widget.statusText()));
}

void GraphWidgetTest::newAnalysisDropsTheOldDrawing() {
    GraphWidget widget;
    widget.setAnalysis(heap_.analysis);
    QSignalSpy shown(&widget, &GraphWidget::graphShown);
    widget.showObject(heap_.target);
    // Replaced before the layout arrives: its result is never shown.
    const graphtest::TestHeap other = graphtest::make_test_heap();
    widget.setAnalysis(other.analysis);
    QVERIFY(!widget.busy());
    QTest::qWait(400);
    QCOMPARE(shown.count(), 0);
    QVERIFY(!widget.currentGraph());
    QVERIFY(widget.targets().empty());
    widget.setAnalysis(nullptr);
    QVERIFY(!widget.view()->isVisible());
}

void GraphWidgetTest::exportWritesEveryFormat() {
    GraphWidget widget;
    widget.setAnalysis(heap_.analysis);
    widget.showObject(heap_.target);
    QVERIFY(wait_for_graph(widget));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;

    const QString png = dir.filePath("graph.png");
    QVERIFY2(widget.exportTo(png, graphviz::OutputFormat::Png, &error), qPrintable(error));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 100 && image.height() > 50);

    const QString svg = dir.filePath("graph.svg");
    QVERIFY2(widget.exportTo(svg, graphviz::OutputFormat::Svg, &error), qPrintable(error));
    const QByteArray svgBytes = read_all(svg);
    QXmlStreamReader xml(svgBytes);
    int elements = 0;
    while (!xml.atEnd()) elements += xml.readNext() == QXmlStreamReader::StartElement;
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(elements > 20);
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    QVERIFY(svgBytes.contains("app.Leaky"));

    const QString pdf = dir.filePath("graph.pdf");
    QVERIFY2(widget.exportTo(pdf, graphviz::OutputFormat::Pdf, &error), qPrintable(error));
    const QByteArray pdfBytes = read_all(pdf);
    QVERIFY(pdfBytes.startsWith("%PDF"));
    QVERIFY(pdfBytes.size() > 1000);

    const QString dot = dir.filePath("graph.dot");
    QVERIFY2(widget.exportTo(dot, graphviz::OutputFormat::Dot, &error), qPrintable(error));
    const QByteArray dotBytes = read_all(dot);
    QVERIFY(dotBytes.startsWith("digraph"));
    // Every node's title is in the DOT, and the CLI's title line.
    for (const analysis::SubgraphNode& n : widget.currentGraph()->subgraph.nodes) {
        QVERIFY2(dotBytes.contains(QByteArray::fromStdString(n.lines[0])), n.lines[0].c_str());
    }
    QVERIFY(dotBytes.contains("why is app.Leaky @ 0x"));
    // Only the four files: no temporaries left beside them.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 4);
}

void GraphWidgetTest::exportToAnUnwritablePathFailsCleanly() {
    GraphWidget widget;
    widget.setAnalysis(heap_.analysis);
    widget.showObject(heap_.target);
    QVERIFY(wait_for_graph(widget));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());

    // A folder that does not exist.
    QString error;
    const QString missing = dir.filePath("no-such-folder/graph.png");
    QVERIFY(!widget.exportTo(missing, graphviz::OutputFormat::Png, &error));
    QVERIFY2(error.startsWith("Cannot export the graph:") && error.contains("no-such-folder") &&
                 error.contains("No such file or directory"),
             qPrintable(error));
    QVERIFY(!QFile::exists(missing));

    // A name taken by a folder: the temporary file is written, the rename
    // fails, and nothing is left behind.
    QVERIFY(QDir(dir.path()).mkdir("taken.svg"));
    error.clear();
    QVERIFY(!widget.exportTo(dir.filePath("taken.svg"), graphviz::OutputFormat::Svg, &error));
    QVERIFY2(error.contains("taken.svg"), qPrintable(error));
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
             QStringList{"taken.svg"});
    QVERIFY(QDir(dir.filePath("taken.svg")).isEmpty());

    // An existing file is untouched by a failed export.
    const QString kept = dir.filePath("kept.png");
    {
        QFile file(kept);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("old contents");
    }
    QVERIFY(!widget.exportTo(QString(), graphviz::OutputFormat::Png, &error));
    QCOMPARE(read_all(kept), QByteArray("old contents"));
}

void GraphWidgetTest::exportRunsOnAWorkerThread() {
    GraphWidget widget;
    widget.setAnalysis(heap_.analysis);
    widget.showObject(heap_.target);
    QVERIFY(wait_for_graph(widget));
    QTemporaryDir dir;
    QSignalSpy done(&widget, &GraphWidget::exportFinished);
    const QString png = dir.filePath("async.png");
    QVERIFY(widget.startExport(png, graphviz::OutputFormat::Png));
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 20000));
    QCOMPARE(done.first().at(0).toString(), png);
    QCOMPARE(done.first().at(1).toBool(), true);
    QVERIFY(!QImage(png).isNull());
    QVERIFY(widget.statusText().contains("Exported"));

    done.clear();
    const QString bad = dir.filePath("missing/async.pdf");
    QVERIFY(widget.startExport(bad, graphviz::OutputFormat::Pdf));
    QVERIFY(QTest::qWaitFor([&] { return !done.isEmpty(); }, 20000));
    QCOMPARE(done.first().at(1).toBool(), false);
    QVERIFY(done.first().at(2).toString().contains("Cannot export the graph"));
    QVERIFY(!QFile::exists(bad));

    // Destroyed while exporting: waits, the file is whole or absent.
    {
        GraphWidget other;
        other.setAnalysis(heap_.analysis);
        other.showObject(heap_.target);
        QVERIFY(wait_for_graph(other));
        QVERIFY(other.startExport(dir.filePath("during.svg"), graphviz::OutputFormat::Svg));
    }
    if (QFile::exists(dir.filePath("during.svg"))) {
        QVERIFY(read_all(dir.filePath("during.svg")).trimmed().endsWith("</svg>"));
    }
}

QTEST_MAIN(GraphWidgetTest)
#include "graph_widget_test.moc"

// GraphLayoutJob, GraphScene and GraphView on a small known heap: the job lays
// out what was asked and only the newest request; the scene draws exactly the
// subgraph at the layout's positions with the styles of the export; clicks,
// double-clicks, zoom and fit behave.
#include "graph/graph_scene.h"

#include <QApplication>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "graph/graph_layout_job.h"
#include "graph/graph_view.h"
#include "graph_test_heap.h"
#include "graph_test_input.h"
#include "test_support.h"

using namespace refscope;
using namespace refscope::app;
using graphtest::double_click;
using graphtest::group_item;

namespace {

// Waits for the job's result; null on failure or timeout.
GraphDataPtr lay_out(GraphLayoutJob& job, GraphRequest request) {
    QSignalSpy finished(&job, &GraphLayoutJob::finished);
    QSignalSpy failed(&job, &GraphLayoutJob::failed);
    job.request(std::move(request));
    if (!QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, 20000)) {
        return nullptr;
    }
    if (finished.isEmpty()) {
        qWarning("layout failed: %s", qPrintable(failed.first().first().toString()));
        return nullptr;
    }
    return finished.first().first().value<GraphDataPtr>();
}

GraphRequest request_for(const graphtest::TestHeap& heap, std::vector<uint32_t> targets) {
    GraphRequest request;
    request.analysis = heap.analysis;
    request.targets = std::move(targets);
    return request;
}

const analysis::SubgraphNode* find_group(const analysis::Subgraph& g, std::string_view title) {
    for (const analysis::SubgraphNode& n : g.nodes) {
        if (n.is_group() && !n.lines.empty() && n.lines[0] == title) return &n;
    }
    return nullptr;
}

GraphEdgeItem* edge_between(GraphScene& scene, uint32_t from, uint32_t to) {
    const analysis::Subgraph& g = scene.graph()->subgraph;
    for (GraphEdgeItem* item : scene.edgeItems()) {
        const analysis::SubgraphEdge& e = g.edges[item->subgraphIndex()];
        if (g.nodes[e.from].node == from && g.nodes[e.to].node == to) return item;
    }
    return nullptr;
}

bool near(QPointF a, QPointF b) {
    return std::abs(a.x() - b.x()) < 1e-6 && std::abs(a.y() - b.y()) < 1e-6;
}

}  // namespace

class GraphSceneTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { heap_ = graphtest::make_test_heap(); }

    void jobLaysOutTheRequestedSubgraph();
    void layoutNeverRunsOnTheGuiThread();
    void sceneDrawsExactlyTheSubgraphAtTheLayoutPositions();
    void rolesAndEdgesHaveDistinctStyles();
    void darkPaletteRestylesEverything();
    void clusterBoxesAreDrawnBehindTheirNodes();
    void staleRequestsAreNeverDelivered();
    void cancelDropsEverythingOutstanding();
    void badRequestsFailWithAClearMessage();
    void destroyingABusyJobJoinsCleanly();
    void clickingANodeEmitsItsSnapshotNode();
    void doubleClickRequestsExpansion();
    void zoomAndFitStayWithinBounds();
    void renderToImageDrawsAtTheDevicePixelRatio();

    void cleanupTestCase() {
        heap_ = {};
        QCOMPARE(graphviz::graphviz_live_objects(), 0);
    }

private:
    graphtest::TestHeap heap_;
};

void GraphSceneTest::jobLaysOutTheRequestedSubgraph() {
    GraphLayoutJob job;
    QSignalSpy busy(&job, &GraphLayoutJob::busyChanged);
    const GraphDataPtr g = lay_out(job, request_for(heap_, {heap_.target}));
    QVERIFY(g);
    QCOMPARE(g->requestId, job.latestRequestId());
    QVERIFY(!job.busy());
    QCOMPARE(busy.count(), 2);  // true, then false
    QCOMPARE(busy.at(0).first().toBool(), true);
    QCOMPARE(busy.at(1).first().toBool(), false);

    const analysis::Subgraph& sub = g->subgraph;
    // The target, its path (module, dict), its hop-1 neighbours, the strings as
    // one group node; not the observer's state (2 hops) nor the unrelated holder.
    for (uint32_t n : {heap_.target, heap_.module, heap_.dict, heap_.callback, heap_.observer}) {
        QVERIFY2(sub.find(n) != kNoNode, qPrintable(QString::number(n)));
    }
    QCOMPARE(sub.find(heap_.state), kNoNode);
    QCOMPARE(sub.find(heap_.holder), kNoNode);
    QVERIFY(find_group(sub, "20 \u00d7 str"));
    QVERIFY(sub.nodes[sub.find(heap_.target)].is_target);
    QVERIFY(!sub.nodes[sub.find(heap_.module)].is_target);
    // One placement per node and edge, all inside the drawing.
    QCOMPARE(g->layout.nodes.size(), sub.nodes.size());
    QCOMPARE(g->layout.edges.size(), sub.edges.size());
    QVERIFY(g->layout.width > 0 && g->layout.height > 0);
    for (const graphviz::NodePlacement& p : g->layout.nodes) {
        QVERIFY(p.x >= 0 && p.x <= g->layout.width && p.y >= 0 && p.y <= g->layout.height);
    }
    QCOMPARE(graphviz::graphviz_live_objects(), 0);
}

void GraphSceneTest::layoutNeverRunsOnTheGuiThread() {
    GraphLayoutJob job;
    QSignalSpy finished(&job, &GraphLayoutJob::finished);
    {
        // With the Graphviz lock held here, a layout on this thread would
        // deadlock; the request returns at once and the event loop turns
        // while the worker waits for the lock.
        const std::lock_guard lock(graphviz::graphviz_mutex());
        job.request(request_for(heap_, {heap_.target}));
        QVERIFY(job.busy());
        QTest::qWait(150);
        QCOMPARE(finished.count(), 0);
        QVERIFY(job.busy());
    }
    QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, 20000));
    QVERIFY(!job.busy());
}

void GraphSceneTest::sceneDrawsExactlyTheSubgraphAtTheLayoutPositions() {
    GraphLayoutJob job;
    const GraphDataPtr g = lay_out(job, request_for(heap_, {heap_.target}));
    QVERIFY(g);
    GraphScene scene;
    scene.setGraph(g);
    const analysis::Subgraph& sub = g->subgraph;
    QCOMPARE(scene.nodeItems().size(), sub.nodes.size());
    QCOMPARE(scene.edgeItems().size(), sub.edges.size());
    QCOMPARE(scene.clusterItems().size(), sub.clusters.size());
    // The scene holds nothing else.
    QCOMPARE(static_cast<size_t>(scene.items().size()),
             sub.nodes.size() + sub.edges.size() + sub.clusters.size());

    for (size_t i = 0; i < sub.nodes.size(); ++i) {
        const GraphNodeItem* item = scene.nodeItems()[i];
        const graphviz::NodePlacement& p = g->layout.nodes[i];
        QCOMPARE(item->subgraphIndex(), static_cast<uint32_t>(i));
        QCOMPARE(item->snapshotNode(), sub.nodes[i].node);
        QVERIFY(near(item->pos(), QPointF(p.x, p.y)));
        QCOMPARE(item->nodeRect().size(), QSizeF(p.width, p.height));
        QVERIFY(near(item->sceneBoundingRect().center(), QPointF(p.x, p.y)));
        QCOMPARE(item->lines().first(), QString::fromStdString(sub.nodes[i].lines[0]));
        QCOMPARE(item->toolTip(), QString::fromStdString(sub.nodes[i].tooltip));
        if (!sub.nodes[i].is_group()) QCOMPARE(scene.nodeItemFor(sub.nodes[i].node), item);
    }
    for (size_t e = 0; e < sub.edges.size(); ++e) {
        const GraphEdgeItem* item = scene.edgeItems()[e];
        const graphviz::EdgePlacement& p = g->layout.edges[e];
        QVERIFY(p.points.size() >= 4);
        // The spline runs through Graphviz's end points, and the arrow tip is
        // where Graphviz put it.
        QVERIFY(
            near(item->path().pointAtPercent(0), QPointF(p.points.front().x, p.points.front().y)));
        QVERIFY(
            near(item->path().currentPosition(), QPointF(p.points.back().x, p.points.back().y)));
        if (p.arrow_head) {
            QVERIFY(item->arrowHead().contains(QPointF(p.arrow_head->x, p.arrow_head->y)));
        }
        QCOMPARE(item->label(), QString::fromStdString(sub.edges[e].label));
        if (p.label && !sub.edges[e].label.empty()) {
            QVERIFY(near(item->labelCentre(), QPointF(p.label->x, p.label->y)));
        }
    }
    // The scene rectangle covers the drawing with a margin.
    QVERIFY(scene.sceneRect().contains(QRectF(0, 0, g->layout.width, g->layout.height)));

    // A new drawing replaces the old one entirely; null empties the scene.
    const GraphDataPtr other = lay_out(job, request_for(heap_, {heap_.lost}));
    QVERIFY(other);
    scene.setGraph(other);
    QCOMPARE(scene.nodeItems().size(), other->subgraph.nodes.size());
    QVERIFY(!scene.nodeItemFor(heap_.target));
    scene.setGraph(nullptr);
    QVERIFY(scene.items().isEmpty());
    QVERIFY(scene.nodeItems().empty());
}

void GraphSceneTest::rolesAndEdgesHaveDistinctStyles() {
    GraphLayoutJob job;
    const GraphDataPtr g = lay_out(job, request_for(heap_, {heap_.target, heap_.lost}));
    QVERIFY(g);
    GraphScene scene;
    scene.setGraph(g);
    const GraphColours& c = scene.colours();
    QVERIFY(!c.dark);  // the offscreen platform's default palette is light

    const GraphNodeItem* root = scene.nodeItemFor(heap_.module);
    const GraphNodeItem* target = scene.nodeItemFor(heap_.target);
    const GraphNodeItem* holder = scene.nodeItemFor(heap_.holder);
    const GraphNodeItem* plain = scene.nodeItemFor(heap_.callback);
    QVERIFY(root && target && holder && plain);
    const GraphNodeItem* group = group_item(scene);
    QVERIFY(group);

    // GC root: a bold octagon in the root colours.
    QCOMPARE(root->style().shape, NodeShape::Octagon);
    QVERIFY(root->style().bold);
    QCOMPARE(root->pen().widthF(), 2.0);
    QCOMPARE(root->pen().color(), c.rootBorder);
    QCOMPARE(root->brush().color(), c.rootFill);
    // Target: red fill and a thick red border.
    QCOMPARE(target->brush().color(), c.targetFill);
    QCOMPARE(target->pen().color(), c.targetBorder);
    QCOMPARE(target->pen().widthF(), 2.5);
    // The holder of the unreachable target has unexplained surplus: a suspect
    // (orange fill) and the holder (red double border).
    QVERIFY(g->subgraph.nodes[g->subgraph.find(heap_.holder)].is_suspect);
    QCOMPARE(holder->brush().color(), c.suspectFill);
    QCOMPARE(holder->pen().color(), c.holderBorder);
    QVERIFY(holder->style().doubleBorder);
    // Group node: a folder; a plain node: the plain box.
    QCOMPARE(group->style().shape, NodeShape::Folder);
    QCOMPARE(group->brush().color(), c.groupFill);
    QCOMPARE(group->groupCount(), 20u);
    QCOMPARE(group->groupAnchorNode(), heap_.target);
    QCOMPARE(plain->style().shape, NodeShape::RoundedBox);
    QCOMPARE(plain->brush().color(), c.plainFill);
    QCOMPARE(plain->pen().color(), c.plainBorder);
    // Every role looks different from a plain node.
    for (const GraphNodeItem* item : {root, target, holder, group}) {
        QVERIFY(item->brush().color() != plain->brush().color());
    }

    // Edges: the GC-invisible one is red and dashed, the weak one dotted with a
    // hollow arrow, path edges thicker than others.
    const GraphEdgeItem* invisible = edge_between(scene, heap_.target, heap_.callback);
    const GraphEdgeItem* weak = edge_between(scene, heap_.target, heap_.observer);
    const GraphEdgeItem* path = edge_between(scene, heap_.dict, heap_.target);
    const GraphEdgeItem* attribute = edge_between(scene, heap_.module, heap_.observer);
    QVERIFY(invisible && weak && path && attribute);
    QCOMPARE(invisible->pen().style(), Qt::DashLine);
    QCOMPARE(invisible->pen().color(), c.invisibleEdge);
    QVERIFY(invisible->toolTip().contains("GC cannot see"));
    QCOMPARE(weak->pen().style(), Qt::DotLine);
    QCOMPARE(weak->pen().color(), c.weakEdge);
    QVERIFY(weak->style().hollowArrow);
    QVERIFY(path->pen().widthF() > attribute->pen().widthF());
    QCOMPARE(path->pen().color(), c.pathEdge);
    QCOMPARE(attribute->pen().style(), Qt::SolidLine);
    QCOMPARE(attribute->pen().color(), c.edge);
}

void GraphSceneTest::darkPaletteRestylesEverything() {
    GraphLayoutJob job;
    const GraphDataPtr g = lay_out(job, request_for(heap_, {heap_.target}));
    QVERIFY(g);
    GraphScene scene;
    scene.setGraph(g);
    const QColor lightFill = scene.nodeItemFor(heap_.callback)->brush().color();

    QPalette dark;
    dark.setColor(QPalette::Base, QColor(0x202020));
    dark.setColor(QPalette::Window, QColor(0x2a2a2a));
    dark.setColor(QPalette::Text, QColor(0xeeeeee));
    scene.setPalette(dark);
    QVERIFY(scene.colours().dark);
    const GraphNodeItem* plain = scene.nodeItemFor(heap_.callback);
    QVERIFY(plain->brush().color() != lightFill);
    QVERIFY(plain->brush().color().lightness() < 128);
    QVERIFY(scene.colours().text.lightness() > 160);  // light text on dark boxes
    QCOMPARE(scene.backgroundBrush().color(), QColor(0x202020));
    QCOMPARE(edge_between(scene, heap_.target, heap_.callback)->pen().color(),
             scene.colours().invisibleEdge);
}

void GraphSceneTest::clusterBoxesAreDrawnBehindTheirNodes() {
    GraphLayoutJob job;
    GraphRequest request = request_for(heap_, {heap_.target});
    request.options.cluster_by = analysis::ClusterBy::Module;
    const GraphDataPtr g = lay_out(job, request);
    QVERIFY(g);
    QCOMPARE(g->clusterBy, analysis::ClusterBy::Module);
    GraphScene scene;
    scene.setGraph(g);
    QCOMPARE(scene.clusterItems().size(), g->subgraph.clusters.size());
    QVERIFY(!scene.clusterItems().empty());
    const GraphClusterItem* app = nullptr;
    for (const GraphClusterItem* item : scene.clusterItems()) {
        if (item->label() == "module app") app = item;
    }
    QVERIFY(app);
    for (size_t i = 0; i < g->subgraph.nodes.size(); ++i) {
        const analysis::SubgraphNode& n = g->subgraph.nodes[i];
        if (n.cluster != app->clusterIndex()) continue;
        const GraphNodeItem* item = scene.nodeItems()[i];
        QVERIFY(app->clusterRect().contains(item->sceneBoundingRect().center()));
        QVERIFY(app->zValue() < item->zValue());
    }
}

void GraphSceneTest::staleRequestsAreNeverDelivered() {
    GraphLayoutJob job;
    QSignalSpy finished(&job, &GraphLayoutJob::finished);
    QSignalSpy failed(&job, &GraphLayoutJob::failed);
    // Three in a row: an invalid one (it would fail), then two valid ones.
    job.request(request_for(heap_, {999'999}));
    job.request(request_for(heap_, {heap_.target}));
    const quint64 newest = job.request(request_for(heap_, {heap_.lost}));
    QVERIFY(job.busy());
    QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, 20000));
    // Give any stale result time to arrive (it must not).
    QTest::qWait(300);
    QCOMPARE(finished.count(), 1);
    QCOMPARE(failed.count(), 0);
    const GraphDataPtr g = finished.first().first().value<GraphDataPtr>();
    QCOMPARE(g->requestId, newest);
    QCOMPARE(g->targets, std::vector<uint32_t>{heap_.lost});
    QVERIFY(!job.busy());

    // Requests made while others run, with the event loop turning between
    // some of them: a result may arrive only while its request is the newest,
    // and the last one always arrives.
    std::vector<std::pair<quint64, quint64>> delivered;  // (result id, newest id then)
    connect(&job, &GraphLayoutJob::finished, this, [&](const GraphDataPtr& graph) {
        delivered.emplace_back(graph->requestId, job.latestRequestId());
    });
    quint64 last = 0;
    for (int i = 0; i < 12; ++i) {
        last = job.request(request_for(heap_, {i % 2 ? heap_.target : heap_.lost}));
        QTest::qWait(i % 3);
    }
    QVERIFY(QTest::qWaitFor([&] { return !delivered.empty() && delivered.back().first == last; },
                            20000));
    QTest::qWait(300);
    QCOMPARE(delivered.back().first, last);
    for (const auto& [result, newest_then] : delivered) QCOMPARE(result, newest_then);
    job.disconnect(this);
}

void GraphSceneTest::cancelDropsEverythingOutstanding() {
    GraphLayoutJob job;
    QSignalSpy finished(&job, &GraphLayoutJob::finished);
    QSignalSpy busy(&job, &GraphLayoutJob::busyChanged);
    job.request(request_for(heap_, {heap_.target}));
    job.cancel();
    QVERIFY(!job.busy());
    QTest::qWait(500);
    QCOMPARE(finished.count(), 0);
    QCOMPARE(busy.count(), 2);
    // The job still works afterwards.
    QVERIFY(lay_out(job, request_for(heap_, {heap_.target})));
}

void GraphSceneTest::badRequestsFailWithAClearMessage() {
    GraphLayoutJob job;
    QSignalSpy failed(&job, &GraphLayoutJob::failed);
    job.request(GraphRequest{});
    QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, 5000));
    QCOMPARE(failed.first().first().toString(), QString("no snapshot is open"));
    QVERIFY(!job.busy());

    failed.clear();
    job.request(request_for(heap_, {4'000'000'000u}));
    QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, 5000));
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains("object #4000000000 is not in this snapshot"), qPrintable(message));

    // No targets: an empty drawing, no Graphviz call.
    const GraphDataPtr empty = lay_out(job, request_for(heap_, {}));
    QVERIFY(empty);
    QVERIFY(empty->subgraph.nodes.empty());
    GraphScene scene;
    scene.setGraph(empty);
    QVERIFY(scene.items().isEmpty());
}

void GraphSceneTest::destroyingABusyJobJoinsCleanly() {
    // A heap big enough that the worker is inside extraction or Graphviz when
    // the job is destroyed.
    const AnalysisPtr big =
        analysis::SnapshotAnalysis::analyse(refscope::testing::make_synthetic_heap(20'000, 3));
    for (int round = 0; round < 4; ++round) {
        auto job = std::make_unique<GraphLayoutJob>();
        QSignalSpy finished(job.get(), &GraphLayoutJob::finished);
        GraphRequest request;
        request.analysis = big;
        request.targets = {static_cast<uint32_t>(100 + round)};
        request.options.hops = 3;
        request.options.max_nodes = 200;
        job->request(request);
        QTest::qWait(round * 20);
        job.reset();  // joins; queued results die with it
        QCoreApplication::processEvents();
    }
    QCOMPARE(graphviz::graphviz_live_objects(), 0);
}

void GraphSceneTest::clickingANodeEmitsItsSnapshotNode() {
    GraphLayoutJob job;
    const GraphDataPtr g = lay_out(job, request_for(heap_, {heap_.target}));
    QVERIFY(g);
    GraphScene scene;
    scene.setGraph(g);
    GraphView view;
    view.setScene(&scene);
    view.resize(900, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.fitToWindow();
    QSignalSpy clicked(&scene, &GraphScene::nodeClicked);

    for (uint32_t node : {heap_.dict, heap_.callback, heap_.module}) {
        const GraphNodeItem* item = scene.nodeItemFor(node);
        QVERIFY(item);
        const QPoint at = view.mapFromScene(item->pos());
        QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, at);
        QVERIFY(item->isHighlighted());  // at once; the signal comes from the event loop
        QTRY_COMPARE(clicked.count(), 1);
        QCOMPARE(clicked.takeFirst().first().value<uint32_t>(), node);
        QVERIFY(item->isHighlighted());
        QCOMPARE(scene.selectedNode(), node);
    }
    // Only one node is highlighted at a time.
    int highlighted = 0;
    for (const GraphNodeItem* item : scene.nodeItems()) highlighted += item->isHighlighted();
    QCOMPARE(highlighted, 1);

    // A click on the background selects nothing.
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(2, 2));
    QCoreApplication::processEvents();
    QCOMPARE(clicked.count(), 0);

    // selectNode from elsewhere: highlights without a signal; false if not drawn.
    QVERIFY(scene.selectNode(heap_.target));
    QVERIFY(scene.nodeItemFor(heap_.target)->isHighlighted());
    QVERIFY(!scene.nodeItemFor(heap_.module)->isHighlighted());
    QVERIFY(!scene.selectNode(heap_.holder));
    QCOMPARE(scene.selectedNode(), kNoNode);
    QCoreApplication::processEvents();
    QCOMPARE(clicked.count(), 0);

    // A receiver may replace the drawing when a node is clicked (the window
    // shows the clicked object): the clicked item is deleted safely.
    connect(&scene, &GraphScene::nodeClicked, &scene, [&] { scene.setGraph(nullptr); });
    QTest::mouseClick(view.viewport(), Qt::LeftButton, {},
                      view.mapFromScene(scene.nodeItemFor(heap_.dict)->pos()));
    QTRY_COMPARE(clicked.count(), 1);
    QVERIFY(scene.items().isEmpty());
}

void GraphSceneTest::doubleClickRequestsExpansion() {
    GraphLayoutJob job;
    const GraphDataPtr g = lay_out(job, request_for(heap_, {heap_.target}));
    QVERIFY(g);
    GraphScene scene;
    scene.setGraph(g);
    GraphView view;
    view.setScene(&scene);
    view.resize(900, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.fitToWindow();
    QSignalSpy expand(&scene, &GraphScene::nodeExpandRequested);
    QSignalSpy expandGroup(&scene, &GraphScene::groupExpandRequested);

    const GraphNodeItem* observer = scene.nodeItemFor(heap_.observer);
    double_click(view.viewport(), view.mapFromScene(observer->pos()));
    QTRY_COMPARE(expand.count(), 1);
    QCOMPARE(expand.first().first().value<uint32_t>(), heap_.observer);

    const GraphNodeItem* group = group_item(scene);
    QVERIFY(group);
    double_click(view.viewport(), view.mapFromScene(group->pos()));
    QTRY_COMPARE(expandGroup.count(), 1);
    QCOMPARE(expandGroup.first().at(0).value<uint32_t>(), heap_.target);
    QCOMPARE(expandGroup.first().at(1).value<uint32_t>(), 20u);
    QCOMPARE(expand.count(), 1);
}

void GraphSceneTest::zoomAndFitStayWithinBounds() {
    GraphLayoutJob job;
    const GraphDataPtr g = lay_out(job, request_for(heap_, {heap_.target}));
    QVERIFY(g);
    GraphScene scene;
    scene.setGraph(g);
    GraphView view;
    view.setScene(&scene);
    view.resize(400, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy zoomed(&view, &GraphView::zoomChanged);

    QCOMPARE(view.zoom(), 1.0);
    view.zoomIn();
    QCOMPARE(view.zoom(), GraphView::kZoomStep);
    view.zoomOut();
    QCOMPARE(view.zoom(), 1.0);
    for (int i = 0; i < 40; ++i) view.zoomIn();
    QCOMPARE(view.zoom(), GraphView::kMaxZoom);
    for (int i = 0; i < 80; ++i) view.zoomOut();
    QCOMPARE(view.zoom(), GraphView::kMinZoom);
    view.setZoom(1e9);
    QCOMPARE(view.zoom(), GraphView::kMaxZoom);
    view.resetZoom();
    QCOMPARE(view.zoom(), 1.0);
    QVERIFY(zoomed.count() >= 5);

    // Keys: + and - step, 0 resets.
    view.setFocus();
    QTest::keyClick(&view, Qt::Key_Plus);
    QCOMPARE(view.zoom(), GraphView::kZoomStep);
    QTest::keyClick(&view, Qt::Key_Minus);
    QTest::keyClick(&view, Qt::Key_Minus);
    QCOMPARE(view.zoom(), 1.0 / GraphView::kZoomStep);
    QTest::keyClick(&view, Qt::Key_0);
    QCOMPARE(view.zoom(), 1.0);

    // Ctrl+wheel zooms; a plain wheel scrolls and leaves the zoom alone.
    const QPointF centre(view.viewport()->width() / 2.0, view.viewport()->height() / 2.0);
    QWheelEvent ctrlWheel(centre, view.viewport()->mapToGlobal(centre), QPoint(), QPoint(0, 120),
                          Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.viewport(), &ctrlWheel);
    QCOMPARE(view.zoom(), GraphView::kZoomStep);
    QWheelEvent plainWheel(centre, view.viewport()->mapToGlobal(centre), QPoint(), QPoint(0, -120),
                           Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.viewport(), &plainWheel);
    QCOMPARE(view.zoom(), GraphView::kZoomStep);

    // Fit: the whole scene inside the viewport, zoom within bounds.
    view.fitToWindow();
    QVERIFY(view.zoom() >= GraphView::kMinZoom && view.zoom() <= GraphView::kMaxFitZoom);
    const QRect shown = view.mapFromScene(scene.sceneRect()).boundingRect();
    QVERIFY2(view.viewport()->rect().adjusted(-2, -2, 2, 2).contains(shown),
             qPrintable(QString("%1x%2").arg(shown.width()).arg(shown.height())));
    // A graph wider than the window is shrunk to fit.
    QVERIFY(view.zoom() < 1.0);

    // Arrow keys pan at a zoom where the scene does not fit.
    view.setZoom(3.0);
    const int before = view.horizontalScrollBar()->value();
    QTest::keyClick(&view, Qt::Key_Right);
    QVERIFY(view.horizontalScrollBar()->value() > before);
}

void GraphSceneTest::renderToImageDrawsAtTheDevicePixelRatio() {
    GraphLayoutJob job;
    const GraphDataPtr g = lay_out(job, request_for(heap_, {heap_.target}));
    QVERIFY(g);
    GraphScene scene;
    scene.setGraph(g);
    const QImage one = scene.renderToImage(1.0, 1.0);
    const QImage two = scene.renderToImage(1.0, 2.0);
    QCOMPARE(two.width(), one.width() * 2);
    QCOMPARE(two.height(), one.height() * 2);
    QCOMPARE(two.devicePixelRatio(), 2.0);
    QVERIFY(one.width() >= static_cast<int>(g->layout.width));
    // Something is drawn: many pixels differ from the background, and the
    // target's fill colour is found at its centre.
    const QRgb background = scene.colours().background.rgb();
    int drawn = 0;
    for (int y = 0; y < one.height(); y += 2) {
        for (int x = 0; x < one.width(); x += 2) drawn += one.pixel(x, y) != background;
    }
    QVERIFY2(drawn > 500, qPrintable(QString::number(drawn)));
    const GraphNodeItem* target = scene.nodeItemFor(heap_.target);
    // Inside the box, beside the centred text and inside the border.
    const QPointF corner =
        target->pos() + QPointF(target->nodeRect().left() + 3.5, 0) - scene.sceneRect().topLeft();
    QCOMPARE(QColor(one.pixel(corner.toPoint())), scene.colours().targetFill);
}

QTEST_MAIN(GraphSceneTest)
#include "graph_scene_test.moc"

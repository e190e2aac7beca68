// The graph panel: a toolbar (fit, zoom, clustering, hops, node cap, export),
// the view on the laid-out subgraph, and a status line (what is drawn, the
// notes of targets with no path, "N neighbours not shown", a busy indicator
// while Graphviz lays out, errors).
//
// The widget keeps the drawing's state: the analysis, the targets (what the
// window asked to explain), the nodes whose neighbours were expanded, and the
// options. Every change re-requests the drawing from its GraphLayoutJob; only
// the newest result is shown.
//
// Expanding:
//  - a node (double-click, "Expand neighbours"): the node joins the expanded
//    set, so its paths and neighbourhood are drawn too (it is not styled as a
//    target). Expanding a node already expanded (or a target) widens the
//    neighbourhood: one more hop, up to 3.
//  - a group node ("1,000 × str"): its anchor joins the expanded set and the
//    grouping limits (collapse threshold, fan-out) and the node cap are raised
//    so up to kMaxGroupExpansion members are drawn one by one; bigger groups
//    keep their remainder as a "N more" node.
// showObject(s) and setAnalysis start afresh (expansions forgotten).
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "graph/graph_data.h"

class QAction;
class QComboBox;
class QLabel;
class QProgressBar;
class QSpinBox;
class QStackedWidget;
class QToolBar;
class QToolButton;

namespace refscope::app {

class GraphExportJob;
class GraphLayoutJob;
class GraphScene;
class GraphView;

class GraphWidget : public QWidget {
    Q_OBJECT

public:
    static constexpr int kMaxHops = 3;
    // The drawing's default cap: about what a window shows legibly at the
    // zoom the view opens at (a first use with Hops 3 and clusters drew a
    // 120-box tangle under the former 300). Retention paths are drawn whole
    // whatever the cap; the status line counts what was left out, and Max
    // nodes raises it.
    static constexpr int kDefaultMaxNodes = 60;
    static constexpr int kMinNodes = 10;
    static constexpr int kMaxNodes = 2000;
    static constexpr uint32_t kMaxGroupExpansion = 200;

    explicit GraphWidget(QWidget* parent = nullptr);
    ~GraphWidget() override;

    // A new snapshot (or none): the drawing is cleared, nothing requested for
    // the previous analysis is shown.
    void setAnalysis(AnalysisPtr analysis);
    AnalysisPtr analysis() const { return analysis_; }

    // Draws why `node` (or these nodes) are alive. The first is selected.
    void showObject(uint32_t node);
    void showObjects(std::vector<uint32_t> nodes);
    const std::vector<uint32_t>& targets() const { return targets_; }
    const std::vector<uint32_t>& expandedNodes() const { return expanded_; }

    // The drawing on screen (null when none): what export writes.
    GraphDataPtr currentGraph() const { return current_; }
    // The request the widget makes for its current state.
    GraphRequest currentRequest() const;
    bool busy() const;

    // Writes the current drawing (graphviz::render_to_file: the CLI's look,
    // atomic). Runs on the calling thread; false with `*error` on failure.
    bool exportTo(const QString& path, graphviz::OutputFormat format, QString* error = nullptr);
    // The same on a worker thread; exportFinished reports the outcome. False
    // when there is nothing to export or an export is running.
    bool startExport(const QString& path, graphviz::OutputFormat format);

    analysis::ClusterBy clusterBy() const;
    void setClusterBy(analysis::ClusterBy by);
    int hops() const;
    void setHops(int hops);
    int maxNodes() const;
    void setMaxNodes(int maxNodes);

    // The status line's text (for tests and the window's status bar).
    QString statusText() const;

    GraphView* view() const { return view_; }
    GraphScene* scene() const { return scene_; }
    GraphLayoutJob* layoutJob() const { return layoutJob_; }
    QToolBar* toolBar() const { return toolBar_; }
    QAction* fitAction() const { return fitAction_; }
    QAction* zoomInAction() const { return zoomInAction_; }
    QAction* zoomOutAction() const { return zoomOutAction_; }

public slots:
    // Highlights `node` if drawn (a selection made elsewhere); emits nothing.
    void selectObject(uint32_t node);
    void expandNeighbours(uint32_t node);
    void expandGroup(uint32_t anchorNode, uint32_t memberCount);
    // Requests the drawing again with the current state.
    void relayout();
    // Asks for a file name (a save dialog), then exports on a worker thread.
    void exportInteractively(graphviz::OutputFormat format);

signals:
    // A node was clicked: the window selects it in every view.
    void objectSelected(uint32_t node);
    // A new drawing is on screen.
    void graphShown(refscope::app::GraphDataPtr graph);
    void exportFinished(QString path, bool ok, QString message);

protected:
    void changeEvent(QEvent* event) override;

private:
    void buildToolBar();
    void resetExpansion();
    void showResult(GraphDataPtr graph);
    void showFailure(const QString& message);
    void setBusyIndicator(bool busy);
    void updateStatus();
    void updateEmptyState();

    AnalysisPtr analysis_;
    std::vector<uint32_t> targets_;
    std::vector<uint32_t> expanded_;
    // Raised by expanding groups; reset with the targets.
    uint32_t collapseThreshold_;
    uint32_t maxFanout_;
    uint32_t extraNodes_ = 0;
    GraphDataPtr current_;
    QString error_;          // the last layout failure
    QString exportMessage_;  // the outcome of the last export started here
    uint32_t selected_;      // highlighted whenever it is drawn
    uint32_t focusNode_;     // centred on after the next result (an expansion)
    bool fitOnResult_ = true;
    QString lastExportFolder_;

    GraphLayoutJob* layoutJob_;
    GraphExportJob* exportJob_;
    GraphScene* scene_;
    GraphView* view_;
    QToolBar* toolBar_ = nullptr;
    QAction* fitAction_ = nullptr;
    QAction* zoomInAction_ = nullptr;
    QAction* zoomOutAction_ = nullptr;
    QToolButton* exportButton_ = nullptr;
    QComboBox* clusterBox_ = nullptr;
    QSpinBox* hopsBox_ = nullptr;
    QSpinBox* maxNodesBox_ = nullptr;
    QStackedWidget* pages_ = nullptr;
    QLabel* emptyLabel_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    QProgressBar* busyBar_ = nullptr;
};

}  // namespace refscope::app

#include "graph/graph_widget.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "graph/graph_export.h"
#include "graph/graph_layout_job.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "refscope/analysis/display_text.h"

namespace refscope::app {
namespace {

using analysis::ClusterBy;

bool contains(const std::vector<uint32_t>& nodes, uint32_t node) {
    return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

QString count_text(uint64_t n) { return QString::fromStdString(analysis::with_thousands(n)); }

// "1 object", "1,234 objects".
QString counted(uint64_t n, const QString& one, const QString& many) {
    return count_text(n) + QLatin1Char(' ') + (n == 1 ? one : many);
}

}  // namespace

GraphWidget::GraphWidget(QWidget* parent)
    : QWidget(parent),
      collapseThreshold_(analysis::SubgraphOptions{}.collapse_threshold),
      maxFanout_(analysis::SubgraphOptions{}.max_fanout),
      selected_(refscope::kNoNode),
      focusNode_(refscope::kNoNode),
      layoutJob_(new GraphLayoutJob(this)),
      exportJob_(new GraphExportJob(this)),
      scene_(new GraphScene(this)),
      view_(new GraphView(this)) {
    view_->setScene(scene_);
    lastExportFolder_ = QDir::homePath();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    buildToolBar();
    layout->addWidget(toolBar_);

    pages_ = new QStackedWidget(this);
    emptyLabel_ = new QLabel(pages_);
    emptyLabel_->setAlignment(Qt::AlignCenter);
    emptyLabel_->setWordWrap(true);
    emptyLabel_->setForegroundRole(QPalette::PlaceholderText);
    pages_->addWidget(emptyLabel_);
    pages_->addWidget(view_);
    layout->addWidget(pages_, 1);

    auto* statusRow = new QHBoxLayout;
    statusRow->setContentsMargins(4, 0, 4, 2);
    busyBar_ = new QProgressBar(this);
    busyBar_->setRange(0, 0);  // indeterminate: Graphviz reports no progress
    busyBar_->setMaximumWidth(80);
    busyBar_->setMaximumHeight(12);
    busyBar_->setTextVisible(false);
    busyBar_->setVisible(false);
    statusLabel_ = new QLabel(this);
    statusLabel_->setWordWrap(true);
    statusLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusRow->addWidget(busyBar_, 0, Qt::AlignVCenter);
    statusRow->addWidget(statusLabel_, 1);
    layout->addLayout(statusRow);

    connect(layoutJob_, &GraphLayoutJob::finished, this, &GraphWidget::showResult);
    connect(layoutJob_, &GraphLayoutJob::failed, this, &GraphWidget::showFailure);
    connect(layoutJob_, &GraphLayoutJob::busyChanged, this, &GraphWidget::setBusyIndicator);
    connect(scene_, &GraphScene::nodeClicked, this, [this](uint32_t node) {
        selected_ = node;
        emit objectSelected(node);
    });
    connect(scene_, &GraphScene::nodeExpandRequested, this, &GraphWidget::expandNeighbours);
    connect(scene_, &GraphScene::groupExpandRequested, this, &GraphWidget::expandGroup);
    connect(exportJob_, &GraphExportJob::finished, this, [this](const QString& path) {
        exportMessage_ = tr("Exported %1").arg(QDir::toNativeSeparators(path));
        updateStatus();
        emit exportFinished(path, true, QString());
    });
    connect(exportJob_, &GraphExportJob::failed, this,
            [this](const QString& path, const QString& message) {
                exportMessage_ = message;
                updateStatus();
                emit exportFinished(path, false, message);
            });
    updateEmptyState();
    updateStatus();
}

// Members are QObject children: the jobs join their threads as they go.
GraphWidget::~GraphWidget() = default;

void GraphWidget::buildToolBar() {
    toolBar_ = new QToolBar(tr("Graph"), this);
    toolBar_->setToolButtonStyle(Qt::ToolButtonTextOnly);

    fitAction_ = toolBar_->addAction(tr("Fit"), view_, &GraphView::fitToWindow);
    fitAction_->setToolTip(tr("Fit the whole graph in the window"));
    zoomInAction_ = toolBar_->addAction(tr("Zoom in"), view_, &GraphView::zoomIn);
    zoomInAction_->setShortcut(QKeySequence::ZoomIn);
    zoomInAction_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    zoomOutAction_ = toolBar_->addAction(tr("Zoom out"), view_, &GraphView::zoomOut);
    zoomOutAction_->setShortcut(QKeySequence::ZoomOut);
    zoomOutAction_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    toolBar_->addSeparator();

    toolBar_->addWidget(new QLabel(tr("Cluster by "), toolBar_));
    clusterBox_ = new QComboBox(toolBar_);
    clusterBox_->addItem(tr("none"), static_cast<int>(ClusterBy::None));
    clusterBox_->addItem(tr("module"), static_cast<int>(ClusterBy::Module));
    clusterBox_->addItem(tr("type"), static_cast<int>(ClusterBy::Type));
    clusterBox_->addItem(tr("cycle"), static_cast<int>(ClusterBy::Cycle));
    clusterBox_->setToolTip(tr("Frame the objects of one module, type or reference cycle"));
    toolBar_->addWidget(clusterBox_);

    toolBar_->addWidget(new QLabel(tr("  Hops "), toolBar_));
    hopsBox_ = new QSpinBox(toolBar_);
    hopsBox_->setRange(0, kMaxHops);
    hopsBox_->setValue(static_cast<int>(analysis::SubgraphOptions{}.hops));
    hopsBox_->setKeyboardTracking(false);
    hopsBox_->setToolTip(tr("Neighbours drawn around the selected objects, in references"));
    toolBar_->addWidget(hopsBox_);

    toolBar_->addWidget(new QLabel(tr("  Max nodes "), toolBar_));
    maxNodesBox_ = new QSpinBox(toolBar_);
    maxNodesBox_->setRange(kMinNodes, kMaxNodes);
    maxNodesBox_->setSingleStep(50);
    maxNodesBox_->setValue(kDefaultMaxNodes);
    maxNodesBox_->setKeyboardTracking(false);
    maxNodesBox_->setToolTip(tr("At most this many boxes; retention paths are always drawn whole"));
    toolBar_->addWidget(maxNodesBox_);
    toolBar_->addSeparator();

    exportButton_ = new QToolButton(toolBar_);
    exportButton_->setText(tr("Export…"));
    exportButton_->setToolTip(tr("Save the graph as PNG, SVG, PDF or DOT"));
    exportButton_->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(exportButton_);
    const std::pair<graphviz::OutputFormat, QString> formats[] = {
        {graphviz::OutputFormat::Png, tr("PNG image…")},
        {graphviz::OutputFormat::Svg, tr("SVG drawing…")},
        {graphviz::OutputFormat::Pdf, tr("PDF document…")},
        {graphviz::OutputFormat::Dot, tr("Graphviz DOT…")},
    };
    for (const auto& [format, text] : formats) {
        menu->addAction(text, this, [this, f = format] { exportInteractively(f); });
    }
    exportButton_->setMenu(menu);
    toolBar_->addWidget(exportButton_);

    connect(clusterBox_, &QComboBox::currentIndexChanged, this, [this] { relayout(); });
    connect(hopsBox_, &QSpinBox::valueChanged, this, [this] { relayout(); });
    connect(maxNodesBox_, &QSpinBox::valueChanged, this, [this] { relayout(); });
}

void GraphWidget::setAnalysis(AnalysisPtr analysis) {
    if (analysis == analysis_) return;
    layoutJob_->cancel();
    analysis_ = std::move(analysis);
    targets_.clear();
    resetExpansion();
    current_.reset();
    error_.clear();
    selected_ = refscope::kNoNode;
    scene_->selectNode(refscope::kNoNode);
    scene_->setGraph(nullptr);
    updateEmptyState();
    updateStatus();
}

void GraphWidget::resetExpansion() {
    expanded_.clear();
    collapseThreshold_ = analysis::SubgraphOptions{}.collapse_threshold;
    maxFanout_ = analysis::SubgraphOptions{}.max_fanout;
    extraNodes_ = 0;
    focusNode_ = refscope::kNoNode;
}

void GraphWidget::showObject(uint32_t node) { showObjects({node}); }

void GraphWidget::showObjects(std::vector<uint32_t> nodes) {
    targets_.clear();
    for (uint32_t n : nodes) {
        if (!contains(targets_, n)) targets_.push_back(n);
    }
    resetExpansion();
    fitOnResult_ = true;
    selected_ = targets_.empty() ? refscope::kNoNode : targets_.front();
    relayout();
}

GraphRequest GraphWidget::currentRequest() const {
    GraphRequest request;
    request.analysis = analysis_;
    request.targets = targets_;
    request.expanded = expanded_;
    analysis::SubgraphOptions& o = request.options;
    o.hops = static_cast<uint32_t>(hopsBox_->value());
    o.max_nodes = static_cast<uint32_t>(maxNodesBox_->value()) + extraNodes_;
    o.cluster_by = static_cast<ClusterBy>(clusterBox_->currentData().toInt());
    o.collapse_threshold = collapseThreshold_;
    o.max_fanout = maxFanout_;
    return request;
}

bool GraphWidget::busy() const { return layoutJob_->busy(); }

void GraphWidget::relayout() {
    error_.clear();
    exportMessage_.clear();
    if (!analysis_ || (targets_.empty() && expanded_.empty())) {
        layoutJob_->cancel();
        current_.reset();
        scene_->setGraph(nullptr);
        updateEmptyState();
        updateStatus();
        return;
    }
    layoutJob_->request(currentRequest());
    updateStatus();
}

void GraphWidget::showResult(GraphDataPtr graph) {
    current_ = std::move(graph);
    error_.clear();
    scene_->setGraph(current_);
    scene_->selectNode(selected_);
    updateEmptyState();
    if (fitOnResult_) {
        // Readable first: the whole drawing when it reads that way, else
        // the selection at a readable zoom.
        const GraphNodeItem* focus = scene_->nodeItemFor(selected_);
        if (focus) {
            view_->openAt(focus->pos());
        } else {
            view_->fitToWindow();
        }
        fitOnResult_ = false;
    } else {
        // A re-layout (hops, clusters, an expansion) moves every node: keep
        // the expanded node, else the selection, where the eye is.
        view_->keepZoom();
        const uint32_t centre = focusNode_ != refscope::kNoNode ? focusNode_ : selected_;
        if (const GraphNodeItem* item = scene_->nodeItemFor(centre)) {
            view_->centreOn(item->pos());
        }
    }
    focusNode_ = refscope::kNoNode;
    updateStatus();
    emit graphShown(current_);
}

void GraphWidget::showFailure(const QString& message) {
    // The old drawing no longer answers what was asked: clear it.
    current_.reset();
    scene_->setGraph(nullptr);
    error_ = tr("Cannot draw the graph: %1").arg(message);
    updateEmptyState();
    updateStatus();
}

void GraphWidget::selectObject(uint32_t node) {
    selected_ = node;
    if (scene_->selectNode(node)) {
        if (const GraphNodeItem* item = scene_->nodeItemFor(node)) view_->ensureVisible(item);
    }
}

void GraphWidget::expandNeighbours(uint32_t node) {
    if (!analysis_ || node >= analysis_->snapshot().node_count()) return;
    if (!contains(targets_, node) && !contains(expanded_, node)) {
        expanded_.push_back(node);
    } else if (hopsBox_->value() < kMaxHops) {
        // Already explained: widen the neighbourhood instead.
        const QSignalBlocker blocker(hopsBox_);
        hopsBox_->setValue(hopsBox_->value() + 1);
    }
    focusNode_ = node;
    fitOnResult_ = false;
    relayout();
}

void GraphWidget::expandGroup(uint32_t anchorNode, uint32_t memberCount) {
    if (!analysis_ || anchorNode >= analysis_->snapshot().node_count()) return;
    if (!contains(targets_, anchorNode) && !contains(expanded_, anchorNode)) {
        expanded_.push_back(anchorNode);
    }
    const uint32_t shown = std::min(memberCount, kMaxGroupExpansion);
    // Groups form at collapse_threshold members and individual neighbours stop
    // at max_fanout: both above the group's size draws its members one by one.
    collapseThreshold_ = std::max(collapseThreshold_, shown + 1);
    maxFanout_ = std::max(maxFanout_, shown + 1);
    extraNodes_ = std::min<uint32_t>(extraNodes_ + shown, 4 * kMaxGroupExpansion);
    focusNode_ = anchorNode;
    fitOnResult_ = false;
    relayout();
}

bool GraphWidget::exportTo(const QString& path, graphviz::OutputFormat format, QString* error) {
    if (!current_) {
        if (error) *error = tr("Nothing to export: no graph is drawn.");
        return false;
    }
    return export_graph(*current_, path, format, error);
}

bool GraphWidget::startExport(const QString& path, graphviz::OutputFormat format) {
    if (!current_ || current_->subgraph.nodes.empty()) return false;
    return exportJob_->start(current_, path, format);
}

void GraphWidget::exportInteractively(graphviz::OutputFormat format) {
    if (!current_ || current_->subgraph.nodes.empty()) return;
    const QString extension = graph_export_extension(format);
    const QString suggested =
        QDir(lastExportFolder_).filePath(QStringLiteral("refscope-graph") + extension);
    QString path = QFileDialog::getSaveFileName(this, tr("Export graph"), suggested,
                                                graph_export_filter(format));
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += extension;
    lastExportFolder_ = QFileInfo(path).absolutePath();
    if (!startExport(path, format)) {
        exportMessage_ = tr("An export is still running; try again when it is done.");
    } else {
        exportMessage_ = tr("Exporting %1…").arg(QDir::toNativeSeparators(path));
    }
    updateStatus();
}

analysis::ClusterBy GraphWidget::clusterBy() const {
    return static_cast<ClusterBy>(clusterBox_->currentData().toInt());
}

void GraphWidget::setClusterBy(analysis::ClusterBy by) {
    const int index = clusterBox_->findData(static_cast<int>(by));
    if (index >= 0) clusterBox_->setCurrentIndex(index);  // relays out when it changes
}

int GraphWidget::hops() const { return hopsBox_->value(); }
void GraphWidget::setHops(int hops) { hopsBox_->setValue(hops); }
int GraphWidget::maxNodes() const { return maxNodesBox_->value(); }
void GraphWidget::setMaxNodes(int maxNodes) { maxNodesBox_->setValue(maxNodes); }

QString GraphWidget::statusText() const { return statusLabel_->text(); }

void GraphWidget::setBusyIndicator(bool busy) {
    busyBar_->setVisible(busy);
    updateStatus();
}

void GraphWidget::updateEmptyState() {
    const bool drawn = current_ && !current_->subgraph.nodes.empty();
    if (!analysis_) {
        emptyLabel_->setText(tr("Open a snapshot to draw its reference graph."));
    } else if (targets_.empty() && expanded_.empty()) {
        emptyLabel_->setText(
            tr("Select an object (in the objects, suspects or path views) to draw why it is "
               "alive."));
    } else if (!error_.isEmpty()) {
        emptyLabel_->setText(error_);
    } else {
        emptyLabel_->setText(tr("Laying out the graph…"));
    }
    pages_->setCurrentWidget(drawn ? static_cast<QWidget*>(view_) : emptyLabel_);
    for (QAction* action : {fitAction_, zoomInAction_, zoomOutAction_}) action->setEnabled(drawn);
    exportButton_->setEnabled(drawn);
}

void GraphWidget::updateStatus() {
    QStringList lines;
    if (layoutJob_->busy()) lines << tr("Laying out…");
    if (!error_.isEmpty()) lines << error_;
    if (current_ && error_.isEmpty()) {
        const analysis::Subgraph& g = current_->subgraph;
        size_t groups = 0;
        for (const analysis::SubgraphNode& n : g.nodes) groups += n.is_group();
        QString summary = counted(g.nodes.size() - groups, tr("object"), tr("objects"));
        if (groups > 0) summary += tr(" and ") + counted(groups, tr("group"), tr("groups"));
        summary +=
            QStringLiteral(", ") + counted(g.edges.size(), tr("reference"), tr("references"));
        if (g.path_count > 0) {
            summary += QStringLiteral(", ") +
                       counted(g.path_count, tr("retention path"), tr("retention paths"));
        }
        if (!g.clusters.empty()) {
            summary +=
                QStringLiteral(", ") + counted(g.clusters.size(), tr("cluster"), tr("clusters"));
        }
        summary +=
            tr(" · laid out in %1 ms")
                .arg(static_cast<int>((current_->extractSeconds + current_->layoutSeconds) * 1000));
        lines << summary;
        for (const std::string& note : g.notes) lines << QString::fromStdString(note);
        if (g.truncated) {
            lines << tr("%1 more neighbours not shown (node cap reached: raise Max nodes)")
                         .arg(count_text(g.omitted_nodes));
        }
    }
    if (!exportMessage_.isEmpty()) lines << exportMessage_;
    statusLabel_->setText(lines.join(QLatin1Char('\n')));
}

void GraphWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange) scene_->setPalette(palette());
    QWidget::changeEvent(event);
}

}  // namespace refscope::app

#include "window/workspace.h"

#include <utility>

#include <QAbstractItemView>
#include <QDataStream>
#include <QHeaderView>
#include <QIODevice>
#include <QTimer>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "models/cell_text.h"
#include "models/filter_runner.h"
#include "models/inspector_model.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/graph_index.h"
#include "session/snapshot_timeline.h"
#include "window/diff_panel.h"
#include "window/filter_bar.h"
#include "window/growth_panel.h"
#include "window/inspector_panel.h"
#include "window/object_menu.h"
#include "window/object_tree_panels.h"
#include "window/objects_panel.h"
#include "window/path_panel.h"
#include "window/summary_panel.h"
#include "window/suspects_panel.h"

namespace refscope::app {

namespace {
// Bumped when the saved layout changes meaning: older states are ignored.
constexpr quint32 kStateVersion = 4;
}  // namespace

Workspace::Workspace(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("workspace"));
    filter_bar_ = new FilterBar(this);
    suspects_panel_ = new SuspectsPanel(this);
    summary_panel_ = new SummaryPanel(this);
    diff_panel_ = new DiffPanel(this);
    objects_panel_ = new ObjectsPanel(this);
    path_panel_ = new PathPanel(this);
    retainers_panel_ = new RetainersPanel(this);
    retained_panel_ = new RetainedPanel(this);
    inspector_panel_ = new InspectorPanel(this);
    graph_ = new GraphWidget(this);
    graph_->setObjectName(QStringLiteral("graphPanel"));
    graph_->setFocusProxy(graph_->view());
    growth_panel_ = new GrowthPanel(this);

    group_tabs_ = new QTabWidget(this);
    group_tabs_->setObjectName(QStringLiteral("groupTabs"));
    for (Panel panel : {Panel::Suspects, Panel::Summary, Panel::Diff, Panel::Growth}) {
        group_tabs_->addTab(panelWidget(panel), panelName(panel));
    }
    detail_tabs_ = new QTabWidget(this);
    detail_tabs_->setObjectName(QStringLiteral("detailTabs"));
    for (Panel panel : {Panel::Graph, Panel::Retainers, Panel::Retained, Panel::Inspector}) {
        detail_tabs_->addTab(panelWidget(panel), panelName(panel));
    }
    // The path is always in view above the picture: it is the answer, the
    // graph and the trees are the detail.
    right_splitter_ = new QSplitter(Qt::Vertical, this);
    right_splitter_->setObjectName(QStringLiteral("rightSplitter"));
    right_splitter_->addWidget(path_panel_);
    right_splitter_->addWidget(detail_tabs_);
    right_splitter_->setStretchFactor(0, 1);
    right_splitter_->setStretchFactor(1, 3);

    left_splitter_ = new QSplitter(Qt::Vertical, this);
    left_splitter_->setObjectName(QStringLiteral("leftSplitter"));
    left_splitter_->addWidget(group_tabs_);
    left_splitter_->addWidget(objects_panel_);
    left_splitter_->setStretchFactor(0, 1);
    left_splitter_->setStretchFactor(1, 1);

    main_splitter_ = new QSplitter(Qt::Horizontal, this);
    main_splitter_->setObjectName(QStringLiteral("mainSplitter"));
    main_splitter_->addWidget(left_splitter_);
    main_splitter_->addWidget(right_splitter_);
    // 5/12 and 7/12 of the width at any window size (also set on the first
    // show: showEvent).
    main_splitter_->setStretchFactor(0, 5);
    main_splitter_->setStretchFactor(1, 7);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(filter_bar_);
    layout->addWidget(main_splitter_, 1);

    QAbstractItemView* const object_views[] = {suspects_panel_->view(),   summary_panel_->view(),
                                               diff_panel_->view(),       objects_panel_->view(),
                                               retainers_panel_->view(), retained_panel_->view(),
                                               inspector_panel_->view()};
    for (QAbstractItemView* view : object_views) {
        attach_object_menu(view, *this);
    }
    graph_->scene()->setNodeMenuHook(
        [this](QMenu& menu, uint32_t node) { fill_object_menu(menu, *this, MenuSubject{node, {}}, true); });

    connect(filter_bar_, &FilterBar::filterChanged, this, &Workspace::onFilterChanged);
    connect(suspects_panel_, &SuspectsPanel::suspectActivated, this,
            [this](const QString& type, const std::vector<uint32_t>& objects, uint32_t representative) {
                chooseGroup({tr("suspect %1").arg(type), objects, true});
                select(representative, Origin::Elsewhere);
                growth_panel_->setChosenType(type);
            });
    connect(suspects_panel_, &SuspectsPanel::suspectReranked, this, &Workspace::onSuspectReranked);
    connect(summary_panel_, &SummaryPanel::groupActivated, this,
            [this](const QString& caption, const std::vector<uint32_t>& nodes) { chooseGroup({caption, nodes, false}); });
    connect(diff_panel_, &DiffPanel::typeActivated, this,
            [this](const QString& caption, const std::vector<uint32_t>& nodes) { chooseGroup({caption, nodes, false}); });
    // The inspector is filled when it is shown, not with every selection
    // made while another detail tab is in front.
    connect(detail_tabs_, &QTabWidget::currentChanged, this, [this] {
        if (detail_tabs_->currentWidget() == inspector_panel_ && inspector_panel_->model()->target() != selected_) {
            inspector_panel_->showObject(selected_);
        }
    });
    connect(objects_panel_, &ObjectsPanel::objectActivated, this,
            [this](uint32_t node) { select(node, Origin::Objects); });
    connect(path_panel_, &PathPanel::objectActivated, this, &Workspace::selectObject);
    connect(retainers_panel_, &RetainersPanel::objectActivated, this, &Workspace::selectObject);
    connect(retained_panel_, &RetainedPanel::objectActivated, this, &Workspace::selectObject);
    connect(inspector_panel_, &InspectorPanel::objectActivated, this, &Workspace::selectObject);
    connect(inspector_panel_, &InspectorPanel::allocationFrameActivated, path_panel_, &PathPanel::openFrame);
    connect(graph_, &GraphWidget::objectSelected, this, [this](uint32_t node) { select(node, Origin::Graph); });
    connect(growth_panel_, &GrowthPanel::message, this, &Workspace::message);
    connect(graph_, &GraphWidget::exportFinished, this, [this](const QString& path, bool ok, const QString& text) {
        emit message(ok ? tr("Exported %1").arg(path) : text);
    });
}

Workspace::~Workspace() = default;

namespace {

bool same_process(const AnalysisPtr& a, const AnalysisPtr& b) {
    return a && b && SnapshotTimeline::processKey(a->snapshot()) == SnapshotTimeline::processKey(b->snapshot());
}

// The object `node` of `from` in `to` (snapshots of the same process:
// same_process), when an object of the same type still lives at its
// address; else kNoNode. A live session replaces the snapshot on screen every N seconds
// (and Ctrl+PgDown steps through a process's snapshots): without this, each
// arrival emptied the path, graph and inspector being read. One linear scan
// of the addresses per snapshot change (about 10 ms at 10M objects).
uint32_t same_object_in(const AnalysisPtr& from, uint32_t node, const AnalysisPtr& to) {
    if (from == to || node >= from->snapshot().node_count()) return kNoNode;
    const Snapshot& before = from->snapshot();
    const Snapshot& after = to->snapshot();
    const uint32_t found = analysis::find_node_by_address(after, before.node_address[node]);
    if (found == kNoNode || analysis::type_name(after, found) != analysis::type_name(before, node)) return kNoNode;
    return found;
}

}  // namespace

void Workspace::setAnalysis(AnalysisPtr analysis) {
    const bool one_process = same_process(analysis_, analysis);
    const uint32_t carried = one_process ? same_object_in(analysis_, selected_, analysis) : kNoNode;
    // The full analysis of the snapshot shown alone while it was analysed:
    // a group chosen in its census meanwhile is listed now.
    const bool completes = analysing() && same_snapshot(analysis_, analysis);
    analysis_ = std::move(analysis);
    comparison_.reset();
    selected_ = kNoNode;
    if (!completes) group_ = {};
    filtered_ = false;
    history_.clear();
    emit historyChanged();
    // While the graph is analysed, the summary shows the census and the
    // suspects panel says it is analysing; the panels that need the graph
    // stay empty until the full analysis replaces this one.
    const AnalysisPtr with_graph = analysing() ? nullptr : analysis_;
    filter_bar_->setAnalysis(with_graph);
    suspects_panel_->setAnalysis(analysis_);
    summary_panel_->setAnalysis(analysis_);
    diff_panel_->setComparison(nullptr);
    objects_panel_->setAnalysis(with_graph);
    path_panel_->setAnalysis(with_graph);
    retainers_panel_->setAnalysis(with_graph);
    retained_panel_->setAnalysis(with_graph);
    inspector_panel_->setAnalysis(with_graph);
    graph_->setAnalysis(with_graph);
    if (completes) showGroup(group_.caption, group_.nodes);
    // The chosen line stays while the same process's snapshots arrive (a
    // live session); another process's chart has other types.
    if (!one_process) growth_panel_->setChosenType({});
    emit objectSelected(kNoNode);
    // Ids mean nothing across snapshots, so the history starts again, from
    // the carried object when there is one.
    if (carried != kNoNode) select(carried, Origin::Elsewhere);
}

void Workspace::setComparison(ComparisonPtr comparison, const QString& error) {
    if (comparison && comparison->current() != analysis_) comparison.reset();
    const bool changed = comparison != comparison_;
    comparison_ = std::move(comparison);
    diff_panel_->setComparison(comparison_, error);
    if (!changed) return;
    suspects_panel_->setComparison(comparison_);
    summary_panel_->setComparison(comparison_);
    objects_panel_->setNewColumn(shared_new_column(comparison_));
    filter_bar_->setNewColumn(shared_new_column(comparison_));
}

void Workspace::onFilterChanged(const FilterResult& result) {
    summary_panel_->setSelection(result.nodes);
    filtered_ = result.nodes != nullptr;
    if (result.nodes) {
        const size_t matches = result.nodes->size();
        showGroup(tr("filter “%1”").arg(filter_bar_->text().trimmed()), *result.nodes);
        emit message(matches == 1 ? tr("The filter matches 1 object")
                                  : tr("The filter matches %1 objects").arg(count_text(matches)));
    } else {
        // The filter removed: back to what was listed before it.
        showGroup(group_.caption, group_.nodes);
    }
}

void Workspace::chooseGroup(Group group) {
    group_ = std::move(group);
    filtered_ = false;
    showGroup(group_.caption, group_.nodes);
}

void Workspace::onSuspectReranked(const QString& type, const std::vector<uint32_t>& objects) {
    if (!group_.of_suspect) return;  // the Objects panel lists another choice
    // Without the row, nothing is listed, and the suspect is still followed.
    group_ = {type.isEmpty() ? QString() : tr("suspect %1").arg(type), objects, true};
    if (!filtered_) showGroup(group_.caption, group_.nodes);
}

bool Workspace::analysing() const { return analysis_ && !analysis_->has_graph(); }

void Workspace::showGroup(const QString& caption, const std::vector<uint32_t>& nodes) {
    // The objects' columns (retained size, distance) need the graph: the
    // group is listed when it is analysed (setAnalysis).
    if (analysing()) return;
    objects_panel_->setObjects(caption, nodes);
    objects_panel_->showSelection(selected_);
}

QString Workspace::pathText() const { return path_panel_->plainText(); }

const analysis::LeakSuspects* Workspace::suspects() const { return suspects_panel_->suspects(); }

bool Workspace::selectSuspect(int row) { return suspects_panel_->selectRow(row); }

bool Workspace::busy() const { return summary_panel_->busy() || filter_bar_->busy() || graph_->busy() || growth_panel_->busy(); }

void Workspace::selectObject(uint32_t node) { select(node, Origin::Elsewhere); }

void Workspace::goBack() {
    if (const auto node = history_.back()) select(*node, Origin::History);
}

void Workspace::goForward() {
    if (const auto node = history_.forward()) select(*node, Origin::History);
}

void Workspace::select(uint32_t node, Origin origin) {
    if (!analysis_ || node >= analysis_->snapshot().node_count()) node = kNoNode;
    selected_ = node;
    path_panel_->showObject(node);
    retainers_panel_->showObject(node);
    retained_panel_->showObject(node);
    if (detail_tabs_->currentWidget() == inspector_panel_) inspector_panel_->showObject(node);
    if (origin != Origin::Objects) objects_panel_->showSelection(node);
    // A click in the graph highlights there; anything else draws the object
    // with its paths (the graph panel lays it out on its worker thread).
    if (origin == Origin::Graph) {
        graph_->selectObject(node);
    } else if (node != kNoNode) {
        graph_->showObject(node);
    }
    if (origin != Origin::History && node != kNoNode) history_.visit(node);
    emit historyChanged();
    emit objectSelected(node);
}

void Workspace::copyPathAsText() const { path_panel_->copyToClipboard(); }

QWidget* Workspace::panelWidget(Panel panel) const {
    switch (panel) {
    case Panel::Suspects: return suspects_panel_;
    case Panel::Summary: return summary_panel_;
    case Panel::Diff: return diff_panel_;
    case Panel::Objects: return objects_panel_;
    case Panel::Path: return path_panel_;
    case Panel::Retainers: return retainers_panel_;
    case Panel::Retained: return retained_panel_;
    case Panel::Graph: return graph_;
    case Panel::Inspector: return inspector_panel_;
    case Panel::Growth: return growth_panel_;
    }
    return nullptr;
}

void Workspace::showPanel(Panel panel) {
    QWidget* widget = panelWidget(panel);
    if (!widget) return;
    for (QTabWidget* tabs : {group_tabs_, detail_tabs_}) {
        const int index = tabs->indexOf(widget);
        if (index >= 0) tabs->setCurrentIndex(index);
    }
    widget->setFocus(Qt::ShortcutFocusReason);
}

QString Workspace::panelName(Panel panel) {
    switch (panel) {
    case Panel::Suspects: return tr("Leak Suspects");
    case Panel::Summary: return tr("Summary");
    case Panel::Diff: return tr("Diff");
    case Panel::Objects: return tr("Objects");
    case Panel::Path: return tr("Path");
    case Panel::Retainers: return tr("Retainers");
    case Panel::Retained: return tr("Retained");
    case Panel::Graph: return tr("Graph");
    case Panel::Inspector: return tr("Inspector");
    case Panel::Growth: return tr("Growth");
    }
    return {};
}

void Workspace::focusFilter() { filter_bar_->focusField(); }

QByteArray Workspace::saveState() const {
    if (!pending_state_.isEmpty()) return pending_state_;  // never shown: keep what was saved
    QByteArray state;
    QDataStream out(&state, QIODevice::WriteOnly);
    out << kStateVersion << main_splitter_->saveState() << left_splitter_->saveState()
        << right_splitter_->saveState() << qint32(group_tabs_->currentIndex())
        << qint32(detail_tabs_->currentIndex());
    // Each table's header: its sort column and order, columns moved or
    // hidden. The widths in it are fitted again (ColumnFit) when rows arrive.
    for (const QTableView* table : tables()) out << table->horizontalHeader()->saveState();
    return state;
}

std::array<QTableView*, 4> Workspace::tables() const {
    return {suspects_panel_->view(), summary_panel_->view(), diff_panel_->view(), objects_panel_->view()};
}

void Workspace::restoreState(const QByteArray& state) {
    if (isVisible()) {
        applyState(state);
    } else {
        pending_state_ = state;
    }
}

void Workspace::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    const bool first = !shown_before_;
    shown_before_ = true;
    if (pending_state_.isEmpty() && !first) return;
    // Once the page has its real size (the stacked layout gives it on its
    // next pass), restore into it. Without a saved state the tables get 5/12
    // of the width and the path and graph 7/12 (at 1280 pixels: room for
    // the summary's key columns and the retainers' tree both). Left to the
    // panels' size hints, the split depended on what they showed when the
    // page first appeared (a census still being analysed, or everything).
    QTimer::singleShot(0, this, [this] {
        if (!pending_state_.isEmpty()) {
            applyState(std::exchange(pending_state_, {}));
        } else {
            const int width = main_splitter_->width() - main_splitter_->handleWidth();
            // Not laid out yet (no width): the stretch factors give 5:7 as it grows.
            if (width > 0) main_splitter_->setSizes({width * 5 / 12, width - width * 5 / 12});
        }
    });
}

void Workspace::applyState(const QByteArray& state) {
    QDataStream in(state);
    quint32 version = 0;
    QByteArray main_state, left_state, right_state;
    qint32 group_tab = 0, detail_tab = 0;
    in >> version;
    if (version != kStateVersion) return;  // another layout: keep the defaults
    in >> main_state >> left_state >> right_state >> group_tab >> detail_tab;
    std::vector<QByteArray> headers(tables().size());
    for (QByteArray& header : headers) in >> header;
    if (in.status() != QDataStream::Ok) return;
    for (size_t t = 0; t < headers.size(); ++t) tables()[t]->horizontalHeader()->restoreState(headers[t]);
    main_splitter_->restoreState(main_state);
    left_splitter_->restoreState(left_state);
    right_splitter_->restoreState(right_state);
    group_tabs_->setCurrentIndex(group_tab);
    detail_tabs_->setCurrentIndex(detail_tab);
}

}  // namespace refscope::app

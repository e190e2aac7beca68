#include "window/workspace.h"

#include <QDataStream>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "models/cell_text.h"
#include "models/filter_runner.h"
#include "window/filter_bar.h"
#include "window/objects_panel.h"
#include "window/path_panel.h"
#include "window/summary_panel.h"

namespace refscope::app {

namespace {

// Until a panel's model lands: says what will be there.
QWidget* pending_panel(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setAlignment(Qt::AlignCenter);
    label->setWordWrap(true);
    label->setEnabled(false);
    return label;
}

constexpr quint32 kStateVersion = 1;

}  // namespace

Workspace::Workspace(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("workspace"));
    suspects_panel_ = pending_panel(tr("Leak suspects"), this);
    summary_panel_ = new SummaryPanel(this);
    diff_panel_ = pending_panel(tr("Open two snapshots of one process to compare them."), this);
    objects_panel_ = new ObjectsPanel(this);
    filter_bar_ = new FilterBar(this);
    path_panel_ = new PathPanel(this);
    retainers_panel_ = pending_panel(tr("Retainers"), this);
    retained_panel_ = pending_panel(tr("Retained"), this);
    graph_panel_ = pending_panel(tr("Graph"), this);

    group_tabs_ = new QTabWidget(this);
    group_tabs_->setObjectName(QStringLiteral("groupTabs"));
    group_tabs_->addTab(suspects_panel_, panelName(Panel::Suspects));
    group_tabs_->addTab(summary_panel_, panelName(Panel::Summary));
    group_tabs_->addTab(diff_panel_, panelName(Panel::Diff));

    detail_tabs_ = new QTabWidget(this);
    detail_tabs_->setObjectName(QStringLiteral("detailTabs"));
    detail_tabs_->addTab(path_panel_, panelName(Panel::Path));
    detail_tabs_->addTab(retainers_panel_, panelName(Panel::Retainers));
    detail_tabs_->addTab(retained_panel_, panelName(Panel::Retained));
    detail_tabs_->addTab(graph_panel_, panelName(Panel::Graph));

    left_splitter_ = new QSplitter(Qt::Vertical, this);
    left_splitter_->setObjectName(QStringLiteral("leftSplitter"));
    left_splitter_->addWidget(group_tabs_);
    left_splitter_->addWidget(objects_panel_);
    left_splitter_->setStretchFactor(0, 1);
    left_splitter_->setStretchFactor(1, 1);

    main_splitter_ = new QSplitter(Qt::Horizontal, this);
    main_splitter_->setObjectName(QStringLiteral("mainSplitter"));
    main_splitter_->addWidget(left_splitter_);
    main_splitter_->addWidget(detail_tabs_);
    main_splitter_->setStretchFactor(0, 3);
    main_splitter_->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(filter_bar_);
    layout->addWidget(main_splitter_, 1);

    connect(path_panel_, &PathPanel::objectActivated, this, &Workspace::selectObject);
    connect(filter_bar_, &FilterBar::filterChanged, this, &Workspace::onFilterChanged);
    connect(summary_panel_, &SummaryPanel::groupActivated, this, &Workspace::showGroup);
    connect(objects_panel_, &ObjectsPanel::objectActivated, this, &Workspace::selectObject);
}

Workspace::~Workspace() = default;

void Workspace::setAnalysis(AnalysisPtr analysis) {
    analysis_ = std::move(analysis);
    comparison_.reset();
    selected_ = kNoNode;
    filter_bar_->setAnalysis(analysis_);
    summary_panel_->setAnalysis(analysis_);
    objects_panel_->setAnalysis(analysis_);
    path_panel_->setAnalysis(analysis_);
}

void Workspace::setComparison(ComparisonPtr comparison) {
    if (comparison && comparison->current() != analysis_) comparison.reset();
    if (comparison == comparison_) return;
    comparison_ = std::move(comparison);
    summary_panel_->setComparison(comparison_);
    objects_panel_->setNewColumn(shared_new_column(comparison_));
    filter_bar_->setNewColumn(comparison_ ? std::span<const uint8_t>(comparison_->newColumn())
                                          : std::span<const uint8_t>());
}

void Workspace::onFilterChanged(const FilterResult& result) {
    summary_panel_->setSelection(result.nodes);
    if (result.nodes) {
        objects_panel_->setObjects(tr("filter “%1”").arg(filter_bar_->text().trimmed()), *result.nodes);
        const size_t matches = result.nodes->size();
        emit message(matches == 1 ? tr("The filter matches 1 object")
                                  : tr("The filter matches %1 objects").arg(count_text(matches)));
    } else {
        objects_panel_->setObjects({}, {});
    }
}

void Workspace::showGroup(const QString& name, const std::vector<uint32_t>& nodes) {
    objects_panel_->setObjects(name, nodes);
}

QString Workspace::pathText() const { return path_panel_->plainText(); }

const analysis::LeakSuspects* Workspace::suspects() const {
    if (comparison_) return &comparison_->suspects();
    return analysis_ ? analysis_->suspects() : nullptr;
}

bool Workspace::selectSuspect(int row) {
    const analysis::LeakSuspects* all = suspects();
    if (!all || row < 0 || static_cast<size_t>(row) >= all->groups().size()) return false;
    const uint32_t node = all->groups()[static_cast<size_t>(row)].representative;
    if (node == kNoNode) return false;
    selectObject(node);
    return true;
}

bool Workspace::busy() const { return summary_panel_->busy(); }

void Workspace::selectObject(uint32_t node) {
    if (!analysis_ || node >= analysis_->snapshot().node_count()) node = kNoNode;
    selected_ = node;
    path_panel_->showObject(node);
    objects_panel_->showSelection(node);
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
    case Panel::Graph: return graph_panel_;
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
        }
    return {};
}

void Workspace::focusFilter() { filter_bar_->focusField(); }

QByteArray Workspace::saveState() const {
    QByteArray state;
    QDataStream out(&state, QIODevice::WriteOnly);
    out << kStateVersion << main_splitter_->saveState() << left_splitter_->saveState()
        << qint32(group_tabs_->currentIndex()) << qint32(detail_tabs_->currentIndex());
    return state;
}

void Workspace::restoreState(const QByteArray& state) {
    QDataStream in(state);
    quint32 version = 0;
    QByteArray main_state, left_state;
    qint32 group_tab = 0, detail_tab = 0;
    in >> version;
    if (version != kStateVersion) return;  // another layout: keep the defaults
    in >> main_state >> left_state >> group_tab >> detail_tab;
    if (in.status() != QDataStream::Ok) return;
    main_splitter_->restoreState(main_state);
    left_splitter_->restoreState(left_state);
    group_tabs_->setCurrentIndex(group_tab);
    detail_tabs_->setCurrentIndex(detail_tab);
}

}  // namespace refscope::app

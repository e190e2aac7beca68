#include "window/object_tree_panels.h"

#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

#include "models/cell_text.h"
#include "models/retained_tree_model.h"
#include "models/retainers_tree_model.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "window/row_table_view.h"

namespace refscope::app {

namespace {

QVBoxLayout* stack(QWidget* panel, QLabel* caption, QTreeView* view) {
    caption->setWordWrap(true);
    caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    panel->setFocusProxy(view);
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(caption);
    layout->addWidget(view, 1);
    return layout;
}

QString object_name(const AnalysisPtr& analysis, uint32_t node) {
    return to_qstring(analysis::describe_node_at(analysis->snapshot(), node));
}

}  // namespace

RetainersPanel::RetainersPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("retainersPanel"));
    model_ = new RetainersTreeModel(this);
    caption_ = new QLabel(this);
    view_ = make_object_tree(this, QStringLiteral("retainersView"), model_, RetainersTreeModel::ObjectColumn,
                             {RetainersTreeModel::ObjectColumn, RetainersTreeModel::ViaColumn,
                              RetainersTreeModel::NotesColumn});
    stack(this, caption_, view_);
    connect(view_, &QTreeView::activated, this, &RetainersPanel::onActivated);
    showObject(kNoNode);
}

void RetainersPanel::setAnalysis(AnalysisPtr analysis) {
    model_->setAnalysis(std::move(analysis));
    showObject(kNoNode);
}

void RetainersPanel::showObject(uint32_t node) {
    model_->setTarget(node);
    if (model_->target() == kNoNode) {
        caption_->setText(tr("Who holds the selected object, and who holds them, up to the roots."));
        return;
    }
    caption_->setText(tr("Who holds <b>%1</b>? Opened along its path from a root; double-click an object to "
                         "select it.")
                          .arg(object_name(model_->analysis(), model_->target()).toHtmlEscaped()));
    // At every level the chain comes first after the root-record and
    // unexplained items, so it reads downwards from the target, which stays
    // in view at the top. Its root end is
    // opened only to show its root records when it has few other referrers:
    // a module's __dict__ would add every function's `.__globals__`.
    constexpr uint32_t kFewReferrers = 20;
    const QModelIndexList chain = model_->revealChainToRoot();
    for (qsizetype i = 0; i < chain.size(); ++i) {
        const bool root_end = i > 0 && i + 1 == chain.size();
        if (root_end && model_->analysis()->index().in_degree(model_->nodeAt(chain[i])) > kFewReferrers) break;
        view_->expand(chain[i]);
    }
    if (!chain.isEmpty()) view_->scrollTo(chain.front(), QAbstractItemView::PositionAtTop);
}

void RetainersPanel::onActivated(const QModelIndex& index) {
    if (model_->isMoreItem(index)) {
        model_->showMore(index);
        return;
    }
    const uint32_t node = model_->nodeAt(index);
    if (node != kNoNode) emit objectActivated(node);
}

RetainedPanel::RetainedPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("retainedPanel"));
    model_ = new RetainedTreeModel(this);
    caption_ = new QLabel(this);
    view_ = make_object_tree(this, QStringLiteral("retainedView"), model_, RetainedTreeModel::ObjectColumn,
                             {RetainedTreeModel::ObjectColumn});
    stack(this, caption_, view_);
    connect(view_, &QTreeView::activated, this, &RetainedPanel::onActivated);
    showObject(kNoNode);
}

void RetainedPanel::setAnalysis(AnalysisPtr analysis) {
    model_->setAnalysis(std::move(analysis));
    showObject(kNoNode);
}

void RetainedPanel::showObject(uint32_t node) {
    model_->setTarget(node);
    if (node == kNoNode) {
        caption_->setText(tr("What the selected object keeps alive: freeing it would free all of this."));
        return;
    }
    // An object the tree does not show (unreachable, or no dominator
    // analysis): the model leaves its target unset and says why.
    if (!model_->emptyReason().isEmpty()) {
        caption_->setText(model_->emptyReason());
        return;
    }
    caption_->setText(tr("What <b>%1</b> keeps alive (its dominator subtree), largest first.")
                          .arg(object_name(model_->analysis(), model_->target()).toHtmlEscaped()));
    // Its first batch at once (a view fetches lazily, when it next lays out).
    const QModelIndex top = model_->index(0, 0);
    if (model_->canFetchMore(top)) model_->fetchMore(top);
    view_->expand(top);
}

void RetainedPanel::onActivated(const QModelIndex& index) {
    if (model_->isMoreItem(index)) {
        model_->showMore(index);
        return;
    }
    const uint32_t node = model_->nodeAt(index);
    if (node != kNoNode) emit objectActivated(node);
}

}  // namespace refscope::app

#include "window/summary_panel.h"

#include "window/column_fit.h"
#include "window/row_table_view.h"

#include <QSignalBlocker>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "models/cell_text.h"
#include "models/type_summary_model.h"
#include "window/model_build_job.h"

namespace refscope::app {

SummaryPanel::SummaryPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("summaryPanel"));
    model_ = new TypeSummaryModel(this);
    build_job_ = new ModelBuildJob(this);
    connect(build_job_, &ModelBuildJob::built, this, &SummaryPanel::install);
    group_by_ = new QComboBox(this);
    group_by_->setObjectName(QStringLiteral("summaryGroupBy"));
    group_by_->addItem(tr("type"), static_cast<int>(analysis::GroupBy::Type));
    group_by_->addItem(tr("type's module"), static_cast<int>(analysis::GroupBy::Module));
    group_by_->setItemData(1,
                           tr("The module that defines each object's type: builtins for every dict, list and "
                              "str. A module object counts towards itself. What a module keeps alive is its "
                              "retained size: the Retained view."),
                           Qt::ToolTipRole);
    totals_ = new QLabel(this);
    totals_->setObjectName(QStringLiteral("summaryTotals"));

    // Biggest first, as `refscope-cli summary` prints it.
    view_ = make_row_table(this, QStringLiteral("summaryView"), model_,
                           TypeSummaryModel::ShallowBytesColumn, Qt::DescendingOrder);
    column_fit_ = new ColumnFit(view_,
                  {TypeSummaryModel::NameColumn, TypeSummaryModel::ObjectsColumn, TypeSummaryModel::ShallowBytesColumn,
                   TypeSummaryModel::RetainedBytesColumn, TypeSummaryModel::DeltaObjectsColumn,
                   TypeSummaryModel::DeltaBytesColumn},
                  {TypeSummaryModel::NameColumn});

    auto* top = new QHBoxLayout;
    auto* label = new QLabel(tr("Group &by:"), this);
    label->setBuddy(group_by_);
    top->addWidget(label);
    top->addWidget(group_by_);
    top->addStretch(1);
    top->addWidget(totals_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(view_, 1);

    connect(group_by_, &QComboBox::currentIndexChanged, this, [this] { regroup(false); });
    setFocusProxy(view_);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &SummaryPanel::onCurrentRowChanged);
}

bool SummaryPanel::busy() const { return build_job_->busy(); }

void SummaryPanel::setAnalysis(AnalysisPtr analysis) {
    // The full analysis of the snapshot shown alone while it was analysed:
    // the census on screen stays right until the new model replaces it.
    const bool completes = same_snapshot(analysis_, analysis);
    analysis_ = std::move(analysis);
    selection_.reset();
    comparison_.reset();
    regroup(completes);
}

void SummaryPanel::setSelection(std::shared_ptr<const std::vector<uint32_t>> nodes) {
    selection_ = std::move(nodes);
    const QString current = view_->currentIndex().isValid() ? model_->groupName(view_->currentIndex().row()) : QString();
    model_->setSelection(selection_);
    // The row comes back as the current one without being chosen again: the
    // person may have chosen a suspect since (Objects lists that, and a
    // filter's end goes back to it).
    if (!current.isEmpty()) {
        const QSignalBlocker quiet(this);
        selectGroup(current);
    }
    updateTotals();
}

void SummaryPanel::setComparison(const ComparisonPtr& comparison) {
    comparison_ = comparison;
    model_->setBaseline(shared_diff(comparison));
}

bool SummaryPanel::selectGroup(const QString& name) {
    const int row = model_->rowOfGroup(name);
    if (row < 0) return false;
    view_->setCurrentIndex(model_->index(row, TypeSummaryModel::NameColumn));
    view_->scrollTo(view_->currentIndex());
    return true;
}

void SummaryPanel::regroup(bool keep_shown) {
    const auto by = static_cast<analysis::GroupBy>(group_by_->currentData().toInt());
    // Empty until the new model arrives: the old one shows another snapshot
    // (or another grouping).
    if (!keep_shown) model_->setAnalysis(nullptr);
    updateTotals();
    if (!analysis_) {
        build_job_->cancel();
        return;
    }
    const int column = view_->horizontalHeader()->sortIndicatorSection();
    const Qt::SortOrder order = view_->horizontalHeader()->sortIndicatorOrder();
    // The filter's selection is counted here too, off the GUI thread.
    build_job_->start([analysis = analysis_, by, selection = selection_, column, order]() -> QAbstractItemModel* {
        auto* model = new TypeSummaryModel;
        model->setAnalysis(analysis, by, selection);
        model->sort(column, order);
        return model;
    });
}

void SummaryPanel::install(QAbstractItemModel* built) {
    auto* model = qobject_cast<TypeSummaryModel*>(built);
    if (!model || model->analysis() != analysis_) {
        delete built;
        return;
    }
    model->setParent(this);
    TypeSummaryModel* old = model_;
    // The row chosen in the census shown while the snapshot was analysed
    // stays chosen (its objects are listed already).
    const bool keep_chosen = same_snapshot(old->analysis(), analysis_) && old->groupBy() == model->groupBy();
    const QString chosen = keep_chosen && view_->currentIndex().isValid()
                               ? old->groupName(view_->currentIndex().row()) : QString();
    QItemSelectionModel* old_selection = view_->selectionModel();
    model_ = model;
    view_->setModel(model_);  // a new selection model: connect it again
    column_fit_->followModel();
    old_selection->deleteLater();
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &SummaryPanel::onCurrentRowChanged);
    old->deleteLater();
    // The filter and the baseline may have changed while it was built.
    if (model_->selection() != selection_) model_->setSelection(selection_);
    if (comparison_) model_->setBaseline(shared_diff(comparison_));
    if (!chosen.isEmpty()) {
        const QSignalBlocker quiet(this);
        selectGroup(chosen);
    }
    updateTotals();
    emit modelReplaced();
}

void SummaryPanel::updateTotals() {
    if (!analysis_) {
        totals_->clear();
        return;
    }
    totals_->setText(tr("%1 groups · %2 objects · %3")
                         .arg(count_text(static_cast<uint64_t>(model_->rowCount())))
                         .arg(count_text(model_->totalObjects()))
                         .arg(bytes_text(model_->totalBytes())));
}

void SummaryPanel::onCurrentRowChanged() {
    const QModelIndex current = view_->currentIndex();
    if (!current.isValid()) return;
    emit groupActivated(model_->groupName(current.row()), model_->nodesOf(current.row()));
}

}  // namespace refscope::app

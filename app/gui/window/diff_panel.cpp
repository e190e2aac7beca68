#include "window/diff_panel.h"

#include "window/column_fit.h"
#include "window/row_table_view.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "models/cell_text.h"
#include "models/diff_model.h"
#include "window/object_sets.h"

namespace refscope::app {

DiffPanel::DiffPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("diffPanel"));
    model_ = new DiffModel(this);
    caption_ = new QLabel(this);
    caption_->setObjectName(QStringLiteral("diffCaption"));
    caption_->setWordWrap(true);
    view_ = make_row_table(this, QStringLiteral("diffView"), model_, -1, Qt::AscendingOrder);
    // The changes first: what grew is the question.
    new ColumnFit(view_,
                  {DiffModel::TypeColumn, DiffModel::DeltaObjectsColumn, DiffModel::DeltaBytesColumn,
                   DiffModel::NewColumn},
                  {DiffModel::TypeColumn});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(caption_);
    layout->addWidget(view_, 1);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &DiffPanel::onCurrentRowChanged);
    setFocusProxy(view_);
    setComparison(nullptr);
}

void DiffPanel::setComparison(const ComparisonPtr& comparison, const QString& error) {
    comparison_ = comparison;
    model_->setDiff(shared_diff(comparison_));
    model_->setSurvivors(comparison_ && comparison_->survivors()
                             ? std::shared_ptr<const analysis::SurvivorReport>(comparison_, comparison_->survivors())
                             : nullptr);
    if (!comparison_) {
        caption_->setText(error.isEmpty()
                              ? tr("Open two or three snapshots of one process and choose a baseline (and a middle "
                                   "snapshot) in the bar above to see what grew.")
                              : tr("No comparison: %1").arg(error.toHtmlEscaped()));
        return;
    }
    const analysis::DiffTotals& t = comparison_->diff().totals;
    QString text = tr("<b>%1</b><br>%2 → %3 objects (%4 new, %5 freed), %6 → %7")
                       .arg(comparisonDescription(*comparison_).toHtmlEscaped(), count_text(t.objects_a), count_text(t.objects_b),
                            count_text(t.new_objects), count_text(t.freed_objects), bytes_text(t.bytes_a),
                            bytes_text(t.bytes_b));
    if (const analysis::SurvivorReport* survivors = comparison_->survivors()) {
        text += tr("; of %1 objects allocated between the baseline and the middle snapshot, %2 are still alive")
                    .arg(count_text(survivors->allocated_between), count_text(survivors->survivors.size()));
    }
    caption_->setText(text);
}

bool DiffPanel::selectType(const QString& name) {
    const int row = model_->rowOfType(name);
    if (row < 0) return false;
    view_->setCurrentIndex(model_->index(row, DiffModel::TypeColumn));
    return true;
}

QString DiffPanel::caption() const { return caption_->text(); }

void DiffPanel::onCurrentRowChanged() {
    const QModelIndex current = view_->currentIndex();
    if (!current.isValid() || !comparison_) return;
    const QString type = model_->typeName(current.row());
    const bool survivors = comparison_->survivors() != nullptr;
    const std::vector<uint8_t>& is_new = comparison_->new_column();
    std::vector<uint32_t> objects = objects_of_type(comparison_->current()->snapshot(), type.toStdString(),
                                                    [&](uint32_t n) { return n < is_new.size() && is_new[n] != 0; });
    emit typeActivated(survivors ? tr("%1 surviving since the middle snapshot").arg(type)
                                 : tr("new %1 since the baseline").arg(type),
                       objects);
}

}  // namespace refscope::app

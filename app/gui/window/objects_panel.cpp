#include "window/objects_panel.h"

#include "window/column_fit.h"
#include "window/row_table_view.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "models/cell_text.h"
#include "models/object_table_model.h"

namespace refscope::app {

ObjectsPanel::ObjectsPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("objectsPanel"));
    model_ = new ObjectTableModel(this);
    caption_ = new QLabel(this);
    caption_->setObjectName(QStringLiteral("objectsCaption"));
    view_ = make_row_table(this, QStringLiteral("objectsView"), model_, ObjectTableModel::RetainedColumn,
                           Qt::DescendingOrder);
    new ColumnFit(view_,
                  {ObjectTableModel::AddressColumn, ObjectTableModel::TypeColumn, ObjectTableModel::PreviewColumn,
                   ObjectTableModel::SizeColumn, ObjectTableModel::RetainedColumn},
                  {ObjectTableModel::TypeColumn, ObjectTableModel::PreviewColumn});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(caption_);
    layout->addWidget(view_, 1);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ObjectsPanel::onCurrentRowChanged);
    setFocusProxy(view_);
    setObjects({}, {});
}

void ObjectsPanel::setAnalysis(AnalysisPtr analysis) {
    analysis_ = std::move(analysis);
    model_->setAnalysis(analysis_);
    setObjects({}, {});
}

void ObjectsPanel::setObjects(const QString& caption, std::vector<uint32_t> nodes) {
    const size_t count = nodes.size();
    model_->setNodes(std::move(nodes));
    if (caption.isEmpty()) {
        caption_->setText(analysis_ ? tr("Objects: choose a leak suspect, a type in the summary or apply a filter")
                                    : QString());
    } else {
        caption_->setText(tr("Objects of %1: %2").arg(caption, count_text(count)));
    }
}

void ObjectsPanel::setNewColumn(std::shared_ptr<const std::vector<uint8_t>> is_new) {
    model_->setNewColumn(std::move(is_new));
}

QString ObjectsPanel::caption() const { return caption_->text(); }

void ObjectsPanel::showSelection(uint32_t node) {
    const int row = node == kNoNode ? -1 : model_->rowOf(node);
    if (row < 0) return;
    showing_selection_ = true;
    view_->setCurrentIndex(model_->index(row, 0));
    view_->scrollTo(view_->currentIndex());
    showing_selection_ = false;
}

void ObjectsPanel::onCurrentRowChanged() {
    if (showing_selection_) return;
    const QModelIndex current = view_->currentIndex();
    if (!current.isValid()) return;
    const uint32_t node = model_->nodeAt(current.row());
    if (node != kNoNode) emit objectActivated(node);
}

}  // namespace refscope::app

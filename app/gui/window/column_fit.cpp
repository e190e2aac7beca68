#include "window/column_fit.h"

#include <algorithm>

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QHelpEvent>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QToolTip>

namespace refscope::app {

namespace {

// Shows a cell's whole text as its tooltip when the view elides it (and
// the model has no tooltip of its own).
class ElidedTextDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    bool helpEvent(QHelpEvent* event, QAbstractItemView* view, const QStyleOptionViewItem& option,
                   const QModelIndex& index) override {
        if (event->type() == QEvent::ToolTip && !index.data(Qt::ToolTipRole).isValid()) {
            const QString text = index.data(Qt::DisplayRole).toString();
            if (!text.isEmpty() && sizeHint(option, index).width() > option.rect.width()) {
                QToolTip::showText(event->globalPos(), text, view);
                return true;
            }
        }
        return QStyledItemDelegate::helpEvent(event, view, option, index);
    }
};

}  // namespace

ColumnFit::ColumnFit(QTableView* view, std::vector<int> key_columns, std::vector<int> text_columns)
    : QObject(view),
      view_(view),
      viewport_(view->viewport()),
      key_columns_(std::move(key_columns)),
      text_columns_(std::move(text_columns)) {
    view_->setTextElideMode(Qt::ElideMiddle);
    view_->setItemDelegate(new ElidedTextDelegate(view_));
    QHeaderView* header = view_->horizontalHeader();
    for (int visual = 0; visual < static_cast<int>(key_columns_.size()); ++visual) {
        header->moveSection(header->visualIndex(key_columns_[static_cast<size_t>(visual)]), visual);
    }
    viewport_->installEventFilter(this);
    followModel();
}

void ColumnFit::followModel() {
    for (const QMetaObject::Connection& c : model_connections_) disconnect(c);
    model_connections_.clear();
    if (QAbstractItemModel* model = view_->model()) {
        model_connections_ = {
            connect(model, &QAbstractItemModel::modelReset, this, &ColumnFit::scheduleFit),
            connect(model, &QAbstractItemModel::rowsInserted, this, &ColumnFit::scheduleFit),
            connect(model, &QAbstractItemModel::headerDataChanged, this, &ColumnFit::scheduleFit),
        };
    }
    scheduleFit();
}

bool ColumnFit::eventFilter(QObject* watched, QEvent* event) {
    if (watched == viewport_ && event->type() == QEvent::Resize) scheduleFit();
    return false;
}

// Once per turn of the event loop, however many resets and resizes came.
void ColumnFit::scheduleFit() {
    if (pending_) return;
    pending_ = true;
    QTimer::singleShot(0, this, [this] {
        pending_ = false;
        fit();
    });
}

void ColumnFit::fit() {
    const int available = view_->viewport()->width();
    if (available <= 0) return;
    QHeaderView* header = view_->horizontalHeader();
    const auto is_text = [&](int column) {
        return std::find(text_columns_.begin(), text_columns_.end(), column) != text_columns_.end();
    };
    std::vector<int> widths;
    int total = 0;
    int text_total = 0;
    for (const int column : key_columns_) {
        const bool text = is_text(column);
        // Public on QAbstractItemView (QTableView hides it): the rows on screen.
        const QAbstractItemView* cells = view_;
        int width = std::max(header->sectionSizeHint(column), cells->sizeHintForColumn(column));
        // A long name alone must not take the row: at most half of it.
        if (text) width = std::min(width, std::max(kMinTextWidth, available / 2));
        widths.push_back(width);
        total += width;
        if (text) text_total += width;
    }
    // Too wide: the text columns give up the difference, each in proportion
    // to its width, none below the minimum.
    const int excess = total - available;
    for (size_t i = 0; excess > 0 && i < key_columns_.size(); ++i) {
        if (!is_text(key_columns_[i])) continue;
        const int share = text_total == 0 ? 0 : static_cast<int>(int64_t{excess} * widths[i] / text_total) + 1;
        widths[i] = std::max(kMinTextWidth, widths[i] - share);
    }
    for (size_t i = 0; i < key_columns_.size(); ++i) view_->setColumnWidth(key_columns_[i], widths[i]);
}

}  // namespace refscope::app

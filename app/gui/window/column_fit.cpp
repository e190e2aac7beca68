#include "window/column_fit.h"

#include <algorithm>
#include <cstdint>

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QHelpEvent>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTreeView>
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

ColumnFit::ColumnFit(QAbstractItemView* view, std::vector<int> key_columns, std::vector<int> text_columns,
                     int main_column)
    : QObject(view),
      view_(view),
      header_(nullptr),
      viewport_(view->viewport()),
      key_columns_(std::move(key_columns)),
      text_columns_(std::move(text_columns)),
      main_column_(main_column) {
    view_->setTextElideMode(Qt::ElideMiddle);
    view_->setItemDelegate(new ElidedTextDelegate(view_));
    if (auto* tree = qobject_cast<QTreeView*>(view_)) {
        header_ = tree->header();
        // Opening a row shows rows the last fit did not measure.
        connect(tree, &QTreeView::expanded, this, &ColumnFit::scheduleFit);
        connect(tree, &QTreeView::collapsed, this, &ColumnFit::scheduleFit);
    } else {
        auto* table = qobject_cast<QTableView*>(view_);
        Q_ASSERT(table);  // a tree or a table: the only views with a header
        header_ = table->horizontalHeader();
    }
    // sizeHintForColumn measures the rows on screen, then more rows beyond
    // them up to the header's precision (1000 by default), and all the
    // model's rows up to it while the view is hidden: each a delegate size
    // hint and several data() calls. That made one fit take 97-104 ms of
    // GUI-thread CPU under ASan on a loaded machine
    // (gui_window_responsiveness). The rows on screen and a few screens'
    // worth more are what the fit is for.
    header_->setResizeContentsPrecision(kMeasuredRows);
    for (int visual = 0; visual < static_cast<int>(key_columns_.size()); ++visual) {
        header_->moveSection(header_->visualIndex(key_columns_[static_cast<size_t>(visual)]), visual);
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

void ColumnFit::shrinkTextColumns(std::vector<int>& widths, int excess) const {
    if (excess <= 0) return;
    // Each gives in proportion to what it has above the minimum, so one
    // pass frees the whole excess when the columns have that much.
    std::vector<int> slack(key_columns_.size(), 0);
    int64_t total_slack = 0;
    for (size_t i = 0; i < key_columns_.size(); ++i) {
        const int column = key_columns_[i];
        const bool text = std::find(text_columns_.begin(), text_columns_.end(), column) != text_columns_.end();
        if (text && column != main_column_) slack[i] = std::max(0, widths[i] - kMinTextWidth);
        total_slack += slack[i];
    }
    if (total_slack == 0) return;
    for (size_t i = 0; i < key_columns_.size(); ++i) {
        const int64_t share = (int64_t{excess} * slack[i] + total_slack - 1) / total_slack;
        widths[i] -= static_cast<int>(std::min<int64_t>(share, slack[i]));
    }
}

void ColumnFit::fit() {
    const int available = viewport_->width();
    if (available <= 0) return;
    std::vector<int> widths;
    int total = 0;
    size_t main_at = key_columns_.size();
    for (size_t i = 0; i < key_columns_.size(); ++i) {
        const int column = key_columns_[i];
        const bool text = std::find(text_columns_.begin(), text_columns_.end(), column) != text_columns_.end();
        // Public on QAbstractItemView (the table and the tree hide it): the rows on screen.
        int width = std::max(header_->sectionSizeHint(column), view_->sizeHintForColumn(column));
        // A long name alone must not take the row: at most half of it.
        if (text) width = std::min(width, std::max(kMinTextWidth, available / 2));
        if (column == main_column_) main_at = i;
        widths.push_back(width);
        total += width;
    }
    // Too wide: the text columns other than the main one give up the difference.
    shrinkTextColumns(widths, total - available);
    if (main_at < widths.size()) {
        // The main column gets what the others leave, more than it needs
        // (the row is filled) or less (its text elided), never below the minimum.
        int others = 0;
        for (size_t i = 0; i < widths.size(); ++i) others += i == main_at ? 0 : widths[i];
        widths[main_at] = std::max(kMinTextWidth, available - others);
    }
    for (size_t i = 0; i < key_columns_.size(); ++i) header_->resizeSection(key_columns_[i], widths[i]);
}

}  // namespace refscope::app

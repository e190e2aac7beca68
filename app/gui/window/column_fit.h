// Keeps a table's or a tree's key columns inside its viewport, as issue 16
// asks of every table at 1280×800: the leading columns (in visual order)
// that must be seen get the width their header and visible cells need, and
// the text columns among them (a type name, a preview) give up width, down
// to a minimum, when those do not fit; their text is elided in the middle,
// the whole of it in the tooltip. Columns after the key ones keep the rest
// of the row and may scroll. A tree names a main column (the object, the
// value) that takes the room the others leave, and that the other text
// columns give up width for before it is cut. Refitted when the view is
// resized, when the model resets or gains rows and when a tree opens or
// closes a row, never per row: it measures the rows on screen first and
// at most kMeasuredRows in all (a double-click on a column's divider, which
// Qt wires to resizeColumnToContents, measures as many).
#pragma once

#include <vector>

#include <QMetaObject>
#include <QObject>

class QAbstractItemView;
class QHeaderView;
class QWidget;

namespace refscope::app {

class ColumnFit : public QObject {
    Q_OBJECT
public:
    // `view`: a QTableView or a QTreeView. `key_columns`: model columns,
    // shown in this order before all others; `text_columns`: those among
    // them that may shrink; `main_column` (one of the text columns, or -1):
    // the one that gets the width left.
    ColumnFit(QAbstractItemView* view, std::vector<int> key_columns, std::vector<int> text_columns,
              int main_column = -1);

    // Narrowest a text column gets, in pixels.
    static constexpr int kMinTextWidth = 90;
    // How many rows a fit measures at most: those on screen first.
    static constexpr int kMeasuredRows = 100;

    void fit();
    // Watches the view's model again (and fits) after QTableView::setModel:
    // the summary panel replaces its model with one built on a worker thread.
    void followModel();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void scheduleFit();
    // Takes up to `excess` pixels from the text columns other than the main
    // one, each in proportion to its width above kMinTextWidth, none below it.
    void shrinkTextColumns(std::vector<int>& widths, int excess) const;

    QAbstractItemView* view_;
    QHeaderView* header_;
    // Kept, not asked of view_ in eventFilter: the viewport still gets
    // events while the view is being destroyed, when view_ is no longer one.
    QWidget* viewport_;
    std::vector<int> key_columns_;
    std::vector<int> text_columns_;
    int main_column_;
    std::vector<QMetaObject::Connection> model_connections_;
    bool pending_ = false;
};

}  // namespace refscope::app

#include "window/row_table_view.h"

#include <numeric>

#include <QEvent>
#include <QHeaderView>
#include <QTableView>
#include <QTreeView>

#include "window/column_fit.h"

namespace refscope::app {

namespace {

// Rows have a fixed height (never measured per row), so it is measured again
// from the font when the font changes (View ▸ Larger Text).
class RowHeightFollowsFont : public QObject {
public:
    using QObject::QObject;

    static void apply(QTableView* view) {
        view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::FontChange) apply(static_cast<QTableView*>(watched));
        return false;
    }
};

}  // namespace

QTableView* make_row_table(QWidget* parent, const QString& object_name, QAbstractItemModel* model,
                           int sort_column, Qt::SortOrder order) {
    auto* view = new QTableView(parent);
    view->setObjectName(object_name);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->setWordWrap(false);
    view->verticalHeader()->hide();
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    RowHeightFollowsFont::apply(view);
    view->installEventFilter(new RowHeightFollowsFont(view));
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSortIndicator(sort_column, order);
    view->setSortingEnabled(true);
    return view;
}

QTreeView* make_object_tree(QWidget* parent, const QString& object_name, QAbstractItemModel* model,
                            int main_column, std::vector<int> text_columns) {
    auto* view = new QTreeView(parent);
    view->setModel(model);  // before the header is set up: sections come from the model
    view->setObjectName(object_name);
    view->setUniformRowHeights(true);
    view->setAlternatingRowColors(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setExpandsOnDoubleClick(false);
    view->header()->setStretchLastSection(false);
    // Every column is a key one, in the model's order: the tree's branches
    // stay in its first column.
    std::vector<int> columns(static_cast<size_t>(model->columnCount()));
    std::iota(columns.begin(), columns.end(), 0);
    new ColumnFit(view, std::move(columns), std::move(text_columns), main_column);
    return view;
}

}  // namespace refscope::app

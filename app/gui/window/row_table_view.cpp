#include "window/row_table_view.h"

#include <QHeaderView>
#include <QTableView>

namespace refscope::app {

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
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setSortIndicator(sort_column, order);
    view->setSortingEnabled(true);
    return view;
}

}  // namespace refscope::app

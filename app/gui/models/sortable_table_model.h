// The base of the app's table models: rows are a permutation of ids (node
// ids, group indexes, suspect rows) kept in one vector, and sorting replaces
// that vector (id_sort.h sorts millions of them). This class does the part every model must get right the same
// way: the layout signals and moving the persistent indexes (the views'
// selection and current item) to the rows their ids moved to.
#pragma once

#include <cstdint>
#include <vector>

#include <QAbstractTableModel>

#include "models/id_sort.h"

namespace refscope::app {

class SortableTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;

    // The column and order of the last sort(); -1 when rows are in the
    // source's own order.
    int sortColumn() const { return sort_column_; }
    Qt::SortOrder sortOrder() const { return sort_order_; }

protected:
    // Replaces the row order with `rows` (a permutation of the current ids)
    // under layoutAboutToBeChanged/layoutChanged. `id_limit` bounds the ids
    // (for the position table that moves persistent indexes).
    void reorder(std::vector<uint32_t> rows, size_t id_limit);
    // Remembers the sort for rows set later (a new selection re-sorts the
    // same way).
    void setSortState(int column, Qt::SortOrder order) {
        sort_column_ = column;
        sort_order_ = order;
    }

    std::vector<uint32_t> rows_;

private:
    int sort_column_ = -1;
    Qt::SortOrder sort_order_ = Qt::AscendingOrder;
};

}  // namespace refscope::app

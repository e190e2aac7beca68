#include "models/sortable_table_model.h"

namespace refscope::app {

int SortableTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

void SortableTableModel::reorder(std::vector<uint32_t> rows, size_t id_limit) {
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList persistent = persistentIndexList();
    // Ids of the persistent rows before the move; then their new rows
    // through a position table (built only when a view holds indexes).
    std::vector<uint32_t> persistent_ids;
    persistent_ids.reserve(static_cast<size_t>(persistent.size()));
    for (const QModelIndex& index : persistent) {
        persistent_ids.push_back(static_cast<uint32_t>(rows_[static_cast<size_t>(index.row())]));
    }
    rows_ = std::move(rows);
    if (!persistent.isEmpty()) {
        std::vector<int> position(id_limit, -1);
        for (size_t row = 0; row < rows_.size(); ++row) {
            if (rows_[row] < id_limit) position[rows_[row]] = static_cast<int>(row);
        }
        QModelIndexList moved;
        moved.reserve(persistent.size());
        for (qsizetype i = 0; i < persistent.size(); ++i) {
            const uint32_t id = persistent_ids[static_cast<size_t>(i)];
            const int row = id < id_limit ? position[id] : -1;
            moved.append(row < 0 ? QModelIndex() : index(row, persistent[i].column()));
        }
        changePersistentIndexList(persistent, moved);
    }
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

}  // namespace refscope::app

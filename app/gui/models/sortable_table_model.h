// The base of the app's table models: rows are a permutation of ids (node
// ids, group indexes, suspect rows) kept in one vector, and sorting replaces
// that vector. This class does the part every model must get right the same
// way: the layout signals and moving the persistent indexes (the views'
// selection and current item) to the rows their ids moved to.
#pragma once

#include <cstdint>
#include <vector>

#include <QAbstractTableModel>

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

// One row of a sort: its key and its id.
struct KeyedId {
    uint64_t key;
    uint32_t id;
};

// Sorts by key ascending, ties by id ascending. Large inputs use a stable
// least-significant-digit radix sort over only the key bits that differ
// (11-bit digits), after putting the ids in increasing order: a million rows
// take a few passes over flat memory instead of 20 million comparisons.
void sort_keyed_ids(std::vector<KeyedId>& items);

// Sorts `ids` by `keys` (one per id, same order; overwritten), ascending,
// ties by id ascending: radix passes over 64-bit words that pack the key's
// varying bits with the id when they fit in 32 bits, else sort_keyed_ids.
void sort_ids_by_keys(std::vector<uint32_t>& ids, std::vector<uint64_t>& keys);

// Sorts `ids` by `key_of(id)` (a uint64_t; ascending or descending), ties by
// id ascending either way, so every sort is deterministic. Keys are computed
// once per id, not per comparison.
template <typename KeyOf>
void sort_ids_by_key(std::vector<uint32_t>& ids, Qt::SortOrder order, KeyOf&& key_of) {
    std::vector<uint64_t> keys(ids.size());
    const bool descending = order == Qt::DescendingOrder;
    for (size_t i = 0; i < ids.size(); ++i) {
        const uint64_t key = static_cast<uint64_t>(key_of(ids[i]));
        keys[i] = descending ? ~key : key;
    }
    sort_ids_by_keys(ids, keys);
}

}  // namespace refscope::app

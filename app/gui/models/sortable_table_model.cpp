#include "models/sortable_table_model.h"

#include <algorithm>
#include <bit>

namespace refscope::app {

namespace {

// One stable counting-sort pass on the 16-bit digit `digit_of(item)`.
template <typename DigitOf>
void radix_pass(std::vector<KeyedId>& from, std::vector<KeyedId>& to, DigitOf digit_of) {
    std::vector<uint32_t> start(65536 + 1, 0);
    for (const KeyedId& item : from) ++start[digit_of(item) + 1];
    for (size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
    for (const KeyedId& item : from) to[start[digit_of(item)]++] = item;
    from.swap(to);
}

}  // namespace

void sort_keyed_ids(std::vector<KeyedId>& items) {
    // Below this, comparisons beat the radix passes' fixed cost.
    constexpr size_t kRadixThreshold = 50'000;
    if (items.size() < kRadixThreshold) {
        std::sort(items.begin(), items.end(), [](const KeyedId& a, const KeyedId& b) {
            return a.key != b.key ? a.key < b.key : a.id < b.id;
        });
        return;
    }
    std::vector<KeyedId> scratch(items.size());
    // Ties keep their order in a stable sort: start from increasing ids.
    const bool ids_increasing = std::is_sorted(items.begin(), items.end(),
                                               [](const KeyedId& a, const KeyedId& b) { return a.id < b.id; });
    if (!ids_increasing) {
        radix_pass(items, scratch, [](const KeyedId& k) { return k.id & 0xFFFFu; });
        radix_pass(items, scratch, [](const KeyedId& k) { return k.id >> 16; });
    }
    uint64_t low = items.front().key, high = low;
    for (const KeyedId& item : items) low = std::min(low, item.key), high = std::max(high, item.key);
    const int bits = std::bit_width(high - low);
    for (int shift = 0; shift < bits; shift += 16) {
        radix_pass(items, scratch,
                   [low, shift](const KeyedId& k) { return static_cast<uint32_t>(((k.key - low) >> shift) & 0xFFFFu); });
    }
}

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

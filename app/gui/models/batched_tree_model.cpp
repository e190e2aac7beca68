#include "models/batched_tree_model.h"

#include <algorithm>

#include "models/cell_text.h"
#include "models/model_roles.h"

namespace refscope::app {

BatchedTreeModel::BatchedTreeModel(QObject* parent) : QAbstractItemModel(parent) { clearItems(); }

void BatchedTreeModel::startReset() {
    ++notifying_;
    beginResetModel();
}

void BatchedTreeModel::finishReset() {
    endResetModel();
    --notifying_;
}

void BatchedTreeModel::clearItems() {
    items_.clear();
    items_.emplace_back();  // the invisible root
    items_[0].populated = true;
}

int32_t BatchedTreeModel::addTopItem(Item item) {
    item.parent = 0;
    item.row = static_cast<int32_t>(items_[0].children.size());
    const auto id = static_cast<int32_t>(items_.size());
    items_.push_back(std::move(item));
    items_[0].children.push_back(id);
    return id;
}

void BatchedTreeModel::setBatchSize(int size) { batch_size_ = std::max(size, 1); }

QModelIndex BatchedTreeModel::indexOf(int32_t id, int column) const {
    if (id <= 0) return {};
    return createIndex(items_[static_cast<size_t>(id)].row, column, static_cast<quintptr>(id));
}

QModelIndex BatchedTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) return {};
    const Item& p = parent.isValid() ? itemAt(parent) : items_[0];
    return createIndex(row, column, static_cast<quintptr>(p.children[static_cast<size_t>(row)]));
}

QModelIndex BatchedTreeModel::parent(const QModelIndex& index) const {
    if (!index.isValid()) return {};
    return indexOf(itemAt(index).parent);
}

int BatchedTreeModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid()) return static_cast<int>(items_[0].children.size());
    if (parent.column() > 0) return 0;
    return static_cast<int>(itemAt(parent).children.size());
}

bool BatchedTreeModel::hasChildren(const QModelIndex& parent) const {
    if (!parent.isValid()) return !items_[0].children.empty();
    if (parent.column() > 0) return false;
    const Item& it = itemAt(parent);
    if (it.kind == kMoreKind || it.cycle) return false;
    return it.populated ? !it.children.empty() : mayHaveChildren(it);
}

bool BatchedTreeModel::canFetchMore(const QModelIndex& parent) const {
    if (!parent.isValid() || parent.column() > 0 || notifying_ > 0) return false;
    const Item& it = itemAt(parent);
    return it.kind != kMoreKind && !it.cycle && !it.populated && mayHaveChildren(it);
}

void BatchedTreeModel::fetchMore(const QModelIndex& parent) {
    if (!canFetchMore(parent)) return;
    populateItem(static_cast<int32_t>(parent.internalId()));
}

uint64_t BatchedTreeModel::takeBatch(int32_t id, std::vector<Item>& batch) {
    const size_t at = items_[static_cast<size_t>(id)].pending_at;
    const size_t total = items_[static_cast<size_t>(id)].pending.size();
    const size_t end = std::min(total, at + static_cast<size_t>(batch_size_));
    for (size_t i = at; i < end; ++i) batch.push_back(makeChild(id, items_[static_cast<size_t>(id)].pending[i]));
    Item& it = items_[static_cast<size_t>(id)];
    it.pending_at = end;
    if (end == total) {  // everything shown: the candidates are not needed any more
        it.pending.clear();
        it.pending.shrink_to_fit();
        it.pending_at = 0;
        return 0;
    }
    return total - end;
}

void BatchedTreeModel::insertItems(int32_t parent, size_t row, std::vector<Item>& batch) {
    std::vector<int32_t> ids;
    ids.reserve(batch.size());
    for (Item& child : batch) {
        child.parent = parent;
        ids.push_back(static_cast<int32_t>(items_.size()));
        items_.push_back(std::move(child));
    }
    std::vector<int32_t>& children = items_[static_cast<size_t>(parent)].children;
    children.insert(children.begin() + static_cast<std::ptrdiff_t>(row), ids.begin(), ids.end());
    for (size_t r = row; r < children.size(); ++r) items_[static_cast<size_t>(children[r])].row = static_cast<int32_t>(r);
}

void BatchedTreeModel::populateItem(int32_t id) {
    std::vector<Item> batch;
    std::vector<uint32_t> candidates;
    populate(id, batch, candidates);
    items_[static_cast<size_t>(id)].populated = true;
    items_[static_cast<size_t>(id)].pending = std::move(candidates);
    items_[static_cast<size_t>(id)].pending_at = 0;
    const uint64_t left = takeBatch(id, batch);
    if (left > 0) {
        Item more;
        more.kind = kMoreKind;
        more.more = left;
        batch.push_back(std::move(more));
    }
    if (batch.empty()) return;
    ++notifying_;
    beginInsertRows(indexOf(id), 0, static_cast<int>(batch.size()) - 1);
    insertItems(id, 0, batch);
    endInsertRows();
    --notifying_;
}

bool BatchedTreeModel::isMoreItem(const QModelIndex& index) const {
    return index.isValid() && index.model() == this && itemAt(index).kind == kMoreKind;
}

bool BatchedTreeModel::showMore(const QModelIndex& more_item) {
    if (!isMoreItem(more_item) || notifying_ > 0) return false;
    const auto more_id = static_cast<int32_t>(more_item.internalId());
    const int32_t parent = items_[static_cast<size_t>(more_id)].parent;
    const QModelIndex parent_index = indexOf(parent);
    std::vector<Item> batch;
    const uint64_t left = takeBatch(parent, batch);
    const auto row = static_cast<size_t>(items_[static_cast<size_t>(more_id)].row);
    if (!batch.empty()) {
        // The new items go before "… more"; its count changes after the
        // insertion, so a view (and the model tester) sees one change at a time.
        ++notifying_;
        beginInsertRows(parent_index, static_cast<int>(row), static_cast<int>(row + batch.size()) - 1);
        insertItems(parent, row, batch);
        endInsertRows();
        --notifying_;
    }
    const int more_row = items_[static_cast<size_t>(more_id)].row;
    if (left > 0) {
        items_[static_cast<size_t>(more_id)].more = left;
        ++notifying_;
        emit dataChanged(indexOf(more_id, 0), indexOf(more_id, columnCount(parent_index) - 1));
        --notifying_;
    } else {
        ++notifying_;
        beginRemoveRows(parent_index, more_row, more_row);
        items_[static_cast<size_t>(parent)].children.pop_back();
        items_[static_cast<size_t>(more_id)].parent = -1;  // unreachable from now on
        endRemoveRows();
        --notifying_;
    }
    return true;
}

QVariant BatchedTreeModel::moreItemData(const Item& item, int column, int role, const QString& noun) const {
    switch (role) {
        case Qt::DisplayRole:
            if (column != 0) return {};
            return QStringLiteral("\u2026 %1 more %2").arg(count_text(item.more), noun);
        case Qt::ToolTipRole:
            return QStringLiteral("Show the next %1 (Enter or double-click)").arg(count_text(
                std::min<uint64_t>(item.more, static_cast<uint64_t>(batch_size_))));
        case MoreRowsRole: return true;
        default: return {};
    }
}

}  // namespace refscope::app

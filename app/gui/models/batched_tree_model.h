// The base of the app's lazy trees (retainers, retained): items are created
// when a view expands their parent, and a parent with many children shows
// them in batches, the rest behind one "… N more" item that showMore()
// replaces with the next batch. Heaps hold objects with a million referrers
// (a type object, an interned string); a view must never ask for all of them.
//
// Items live in one vector and are addressed by their position, which is
// the QModelIndex's internal id. Item 0 is the invisible root. Items are
// never removed except the "… N more" item and by a reset, so ids stay valid
// for the model's lifetime between resets.
#pragma once

#include <cstdint>
#include <vector>

#include <QAbstractItemModel>

#include "refscope/snapshot.h"

namespace refscope::app {

class BatchedTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    explicit BatchedTreeModel(QObject* parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& index) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;

    // Children shown per batch (default 100; at least 1). Applies to batches
    // created from now on.
    void setBatchSize(int size);
    int batchSize() const { return batch_size_; }
    bool isMoreItem(const QModelIndex& index) const;
    // Replaces a "… N more" item with the next batch of its parent's
    // children (and a new "… M more" item if some are still left). Returns
    // false for any other index.
    bool showMore(const QModelIndex& more_item);

protected:
    struct Item {
        int32_t parent = -1;
        int32_t row = 0;
        uint8_t kind = 0;          // the subclass's; kMoreKind for "… N more"
        bool cycle = false;        // shown, never expanded
        bool populated = false;    // children (first batch) created
        uint32_t node = kNoNode;   // payload, the subclass's meaning
        uint32_t edge = 0xFFFFFFFFu;
        uint64_t more = 0;         // kMoreKind: children not shown yet
        std::vector<int32_t> children;
        std::vector<uint32_t> pending;  // candidates not turned into children yet
        size_t pending_at = 0;
    };
    static constexpr uint8_t kMoreKind = 0xFF;

    // Whether an unpopulated item will have children once populated (must
    // be exact: views draw the expand arrow from it).
    virtual bool mayHaveChildren(const Item& item) const = 0;
    // The fixed children of `item` (shown first, all at once) and the
    // candidates shown in batches, in order; makeChild turns a candidate into
    // an item.
    virtual void populate(int32_t item, std::vector<Item>& fixed, std::vector<uint32_t>& candidates) const = 0;
    virtual Item makeChild(int32_t parent, uint32_t candidate) const = 0;

    // Subclasses reset through these, not begin/endResetModel(): they keep
    // fetches out of the change notifications (below).
    void startReset();
    void finishReset();
    // Within startReset()/finishReset(): drop every item.
    void clearItems();
    // Within a reset: adds a top-level item; returns its id.
    int32_t addTopItem(Item item);
    const Item& item(int32_t id) const { return items_[static_cast<size_t>(id)]; }
    const Item& itemAt(const QModelIndex& index) const { return items_[static_cast<size_t>(index.internalId())]; }
    QModelIndex indexOf(int32_t id, int column = 0) const;
    // What a "… N more" item shows: `noun` names the children ("referrers").
    QVariant moreItemData(const Item& item, int column, int role, const QString& noun) const;

private:
    void populateItem(int32_t id);
    // Turns the next batch of `id`'s pending candidates into items, appended
    // to `batch`; returns how many candidates are left after it.
    uint64_t takeBatch(int32_t id, std::vector<Item>& batch);
    // Appends `batch` to `parent`'s children at `row` (inside the caller's
    // begin/endInsertRows).
    void insertItems(int32_t parent, size_t row, std::vector<Item>& batch);

    std::vector<Item> items_;
    int batch_size_ = 100;
    // Nonzero while the model emits a structural change (reset, rows
    // inserted or removed). A listener that fetches from its slot — a view,
    // the model tester — would otherwise change the tree again before every
    // listener has seen the first change; canFetchMore() says no meanwhile,
    // and the view fetches when it next expands the item.
    int notifying_ = 0;
};

}  // namespace refscope::app

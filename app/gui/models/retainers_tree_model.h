// Who holds this object? The target is the one top-level item; the children
// of an object are the objects that refer to it (the sources of its
// in-edges), each with the edge's label, and so on up towards the roots.
//
// Before an object's referrers come the facts that explain the rest of its
// refcount: one item per root record that holds it ("sys.modules['app']",
// "frame app.py:12 in main, local x", with the root class) and, when some of
// its references are held by nothing in the graph, an "unexplained surplus"
// item. Referrers are ordered: the edge its shortest retention path uses
// first, then edges that retain (owned, not weak) before the others, nearest
// to a root first. Edges that do not keep the object alive are shown and
// marked (weak, not owned); owned edges the garbage collector cannot see
// (not reported by tp_traverse) are marked GC-invisible. An object already on
// the item's chain of ancestors is shown with "(cycle)" and not expanded.
//
// Lazy: an item's referrers are listed when a view expands it, in batches
// (BatchedTreeModel) behind a "… N more referrers" item.
#pragma once

#include <cstdint>
#include <unordered_map>

#include <QModelIndexList>

#include "models/batched_tree_model.h"
#include "session/analysis_ptr.h"

namespace refscope::app {

class RetainersTreeModel : public BatchedTreeModel {
    Q_OBJECT
public:
    enum Column { ObjectColumn, ViaColumn, NotesColumn, SizeColumn, RetainedColumn, DistanceColumn, ColumnCount };
    enum ItemKind : uint8_t { ObjectItem, RootRecordItem, UnexplainedItem };

    explicit RetainersTreeModel(QObject* parent = nullptr);

    // Clears the target.
    void setAnalysis(AnalysisPtr analysis);
    // The object whose retainers to show; kNoNode (or an id out of range)
    // empties the tree.
    void setTarget(uint32_t node);
    const AnalysisPtr& analysis() const { return analysis_; }
    uint32_t target() const { return target_; }

    // The object an item stands for; kNoNode for root-record, unexplained
    // and "… more" items.
    uint32_t nodeAt(const QModelIndex& index) const;
    // Fetches the items along the target's chain to the roots (its shortest
    // retention path, or with no path the chain from the nearest holder with
    // unexplained surplus) and returns their indexes, target first, so a view
    // can expand them all. Just the target when there is no chain.
    QModelIndexList revealChainToRoot();

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    bool mayHaveChildren(const Item& item) const override;
    void populate(int32_t item, std::vector<Item>& fixed, std::vector<uint32_t>& candidates) const override;
    Item makeChild(int32_t parent, uint32_t candidate) const override;

private:
    bool onAncestorChain(int32_t id, uint32_t node) const;
    QString notes(const Item& item) const;

    AnalysisPtr analysis_;
    uint32_t target_ = kNoNode;
    // Per node, the in-edge to list first besides the shortest path's
    // (revealChainToRoot's chain for an object with no path).
    std::unordered_map<uint32_t, uint32_t> preferred_edge_;
};

}  // namespace refscope::app

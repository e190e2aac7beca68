// What does this object keep alive? Its dominator subtree: the children of
// an object are the objects it immediately dominates (freeing it frees them
// and everything under them), largest retained size first.
//
// The target is the one top-level item. setTarget(analysis::kSuperRoot)
// shows the whole heap's tree: the super-root's children are the top-level
// retainers, and "held from outside the graph" (the dominator tree's
// unexplained-holders root) gathers what C/C++ code or leaks keep alive.
// When there is nothing to show — no dominator analysis, or an object the
// tree does not reach — the tree is empty and emptyReason() says why in
// plain words.
//
// Lazy, in batches behind a "… N more objects" item (BatchedTreeModel).
#pragma once

#include <cstdint>

#include "models/batched_tree_model.h"
#include "session/analysis_ptr.h"

namespace refscope::app {

class RetainedTreeModel : public BatchedTreeModel {
    Q_OBJECT
public:
    enum Column { ObjectColumn, RetainedBytesColumn, RetainedObjectsColumn, ShallowBytesColumn, ColumnCount };
    enum ItemKind : uint8_t { ObjectItem, VirtualRootItem };

    explicit RetainedTreeModel(QObject* parent = nullptr);

    void setAnalysis(AnalysisPtr analysis);
    // A node id, analysis::kSuperRoot, or kNoNode to clear.
    void setTarget(uint32_t node);
    const AnalysisPtr& analysis() const { return analysis_; }
    uint32_t target() const { return target_; }
    // Why the tree is empty ("" when it is not).
    QString emptyReason() const { return empty_reason_; }

    // The object an item stands for; kNoNode for the virtual roots and
    // "… more" items.
    uint32_t nodeAt(const QModelIndex& index) const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    bool mayHaveChildren(const Item& item) const override;
    void populate(int32_t item, std::vector<Item>& fixed, std::vector<uint32_t>& candidates) const override;
    Item makeChild(int32_t parent, uint32_t candidate) const override;

private:
    QString whyEmpty(uint32_t node) const;

    AnalysisPtr analysis_;
    uint32_t target_ = kNoNode;
    QString empty_reason_;
};

}  // namespace refscope::app

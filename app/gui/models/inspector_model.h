// The object inspector's rows: what the selected object holds, one row per
// out-edge, grouped by what the edge is (its format::EdgeKind):
//
//   Attributes        .name          (Attribute: inline values, managed dicts)
//   Dict items        ['key']        (DictValue; the keys themselves are the
//                                     last, collapsed group "Dict keys")
//   Slots             .name          (Slot: __slots__, C members)
//   Elements          [3], {member}  (Index, SetMember)
//   Frame locals      local x        (Local: a frame's or generator's; a
//                                     running 3.11+ frame's from its
//                                     thread's root records, frame_roots.h)
//   Native children   <native: m>    (Native: held by C/C++, reported by an
//                                     extension or inferred from memory)
//   Fields            .__dict__      (Field: C-level fields of the object)
//   Other references  <ref #2>, (weak)
//
// A group is one top-level item; its rows are the edges in the snapshot's
// order (a list's index order, a dict's insertion order), never sorted: a
// dict with a million items must open at once, so the model only counts
// the edges per group when the target changes (one pass over the object's
// own edges, never over the heap) and lists a group's edges in batches
// (BatchedTreeModel, kBatchSize) behind a "… N more" item.
//
// Columns: the field's name (descriptions.h's describe_edge, as the path
// and the retainers tree name it), the value (describe_node: type and
// preview), notes (cell_text.h's edge_notes: weak, not owned, inferred,
// GC-invisible), the value's size and retained size. Every field row's
// NodeIdRole is its value, so activating it can select the value.
#pragma once

#include <array>
#include <cstdint>

#include "models/batched_tree_model.h"
#include "refscope/analysis/frame_roots.h"
#include "session/analysis_ptr.h"

namespace refscope::app {

class InspectorModel : public BatchedTreeModel {
    Q_OBJECT
public:
    enum Column { FieldColumn, ValueColumn, NotesColumn, SizeColumn, RetainedColumn, ColumnCount };
    // In the order the groups are shown.
    enum Group : uint8_t { Attributes, DictItems, Slots, Elements, Locals, NativeChildren, Fields, Other, DictKeys, GroupCount };
    // FieldItem: an out-edge (Item::edge). RootLocalItem: a running frame's
    // local, a root record of its thread (Item::edge is the record's index).
    // NoteItem: why a running frame's locals are not listed.
    enum ItemKind : uint8_t { GroupItem, FieldItem, RootLocalItem, NoteItem };
    // Rows a group shows at first, and per "… N more".
    static constexpr int kBatchSize = 200;

    explicit InspectorModel(QObject* parent = nullptr);

    // Clears the target.
    void setAnalysis(AnalysisPtr analysis);
    // The object to inspect; kNoNode (or an id out of range) empties it.
    void setTarget(uint32_t node);
    const AnalysisPtr& analysis() const { return analysis_; }
    uint32_t target() const { return target_; }

    static Group groupOf(uint8_t edge_kind);
    static QString groupTitle(Group group);
    // The target's edges in `group`.
    uint64_t fieldCount(Group group) const { return counts_[group]; }
    // The group's top-level item; invalid when the target has no such edges.
    QModelIndex groupIndex(Group group) const;
    // The value a field row shows (the edge's target or the root record's
    // object), and the edge; kNoNode / kNoEdge for group, note and "… more"
    // items, kNoEdge for a running frame's locals.
    uint32_t nodeAt(const QModelIndex& index) const;
    uint32_t edgeAt(const QModelIndex& index) const;
    // The thread's root record a running frame's local row stands for, else
    // analysis::kNoRootRecord.
    uint32_t rootRecordAt(const QModelIndex& index) const;
    // The target as a running frame (its root records), when it is one.
    const analysis::RunningFrame& runningFrame() const { return frame_; }

    // For a frame, generator or coroutine (or anything with locals): where
    // it runs, "app.py:12 in main" from the frame's own root record when it
    // is running, else "main (app.py)" from its code object; "" when
    // neither is in the snapshot.
    QString frameLocation() const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
    bool mayHaveChildren(const Item& item) const override;
    void populate(int32_t item, std::vector<Item>& fixed, std::vector<uint32_t>& candidates) const override;
    Item makeChild(int32_t parent, uint32_t candidate) const override;

private:
    QVariant groupData(const Item& item, int column, int role) const;
    QVariant fieldData(const Item& item, int column, int role) const;
    QVariant noteData(int column, int role) const;

    AnalysisPtr analysis_;
    uint32_t target_ = kNoNode;
    std::array<uint64_t, GroupCount> counts_{};
    analysis::RunningFrame frame_;
};

}  // namespace refscope::app

// The summary table: one row per type (or per module) of the snapshot, with
// objects, shallow bytes, retained bytes, unexplained surplus and the change
// since a baseline. Restricted to a filter selection when one is set.
//
// Retained bytes of a group: the sum of the retained sizes of its objects
// that no other object of the same group dominates (walking the dominator
// tree with a per-group "an ancestor of this group is open" counter). A
// linked list of 1,000 app.Node counts once, at its head, so a group never
// claims more than the bytes it really keeps alive; the column's total over
// all groups can still exceed the heap (a dict retained by a module counts
// for both `dict` and `module`). Objects the dominator tree does not reach
// (garbage, or held only by a reference the collector cannot see) retain at
// least themselves and count their shallow size, as leak suspects do. With
// a selection, "objects of the group" means the selected ones.
//
// The snapshot alone (an analysis without its graph: the app shows the
// census as soon as the file is read, while the rest is analysed) gives
// objects and shallow bytes; retained bytes and unexplained surplus need the
// graph, and say "analysing…" until an analysis with it replaces this one.
//
// Deltas need a diff whose newer snapshot is this one: its per-type-name
// deltas when grouping by type, its per-module ones by module. They are the
// change of the whole group, not limited by a selection (the baseline's
// objects were never filtered).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/sortable_table_model.h"
#include "refscope/analysis/grouping.h"
#include "refscope/analysis/snapshot_diff.h"
#include "session/analysis_ptr.h"

namespace refscope::app {

class TypeSummaryModel : public SortableTableModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        ObjectsColumn,
        ShallowBytesColumn,
        RetainedBytesColumn,
        UnexplainedColumn,  // unexplained surplus: references nobody in the graph accounts for
        DeltaObjectsColumn,
        DeltaBytesColumn,
        ColumnCount
    };

    explicit TypeSummaryModel(QObject* parent = nullptr);

    // Groups by Type or Module (Cycle and Dominator fall back to Type: they
    // are not name groupings). Clears the baseline; the selection becomes
    // `selection` (as setSelection's, counted in the same pass). Rows start
    // sorted by shallow bytes, largest first (the CLI's `summary` order),
    // unless a sort was chosen before.
    void setAnalysis(AnalysisPtr analysis, analysis::GroupBy by = analysis::GroupBy::Type,
                     std::shared_ptr<const std::vector<uint32_t>> selection = nullptr);
    // Node ids of this analysis (a filter result); null counts every object.
    // Groups without a selected object are left out. Ids out of range are
    // ignored.
    void setSelection(std::shared_ptr<const std::vector<uint32_t>> nodes);
    // baseline → this snapshot; null clears the deltas. Returns false (and
    // clears them) when the diff's newer snapshot cannot be this one (its
    // per-node column has another length).
    bool setBaseline(std::shared_ptr<const analysis::SnapshotDiff> diff);

    const AnalysisPtr& analysis() const { return analysis_; }
    analysis::GroupBy groupBy() const { return by_; }
    bool hasSelection() const { return selection_ != nullptr; }
    const std::shared_ptr<const std::vector<uint32_t>>& selection() const { return selection_; }
    bool hasBaseline() const { return diff_ != nullptr; }
    // The analysis is the snapshot alone: the graph's columns are pending.
    bool analysing() const;
    // What the pending columns show.
    static QString analysingText();

    QString groupName(int row) const;
    // The row of a group by name, -1 if not shown (to keep a view's current
    // row across a new selection).
    int rowOfGroup(const QString& name) const;
    // The objects of the row's group, within the selection, increasing ids.
    std::vector<uint32_t> nodesOf(int row) const;
    // Totals over the shown rows.
    uint64_t totalObjects() const { return total_objects_; }
    uint64_t totalBytes() const { return total_bytes_; }

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    struct Group {
        std::string name;
        uint64_t objects = 0;
        uint64_t bytes = 0;
        uint64_t retained = 0;
        int64_t unexplained = 0;
        bool has_delta = false;
        int64_t delta_objects = 0;
        int64_t delta_bytes = 0;
    };

    void buildGroups();
    uint32_t groupOf(uint32_t node) const;
    void countSelection();
    void computeRetained(const std::vector<uint8_t>* selected);
    void computeDeltas();
    std::vector<uint32_t> sortedRows(std::vector<uint32_t> rows) const;
    uint64_t sortKey(uint32_t group, int column) const;

    AnalysisPtr analysis_;
    analysis::GroupBy by_ = analysis::GroupBy::Type;
    std::shared_ptr<const std::vector<uint32_t>> selection_;
    std::shared_ptr<const analysis::SnapshotDiff> diff_;
    std::vector<Group> groups_;
    // Group of each type id (one extra slot for out-of-range ids), and by
    // module: module objects go by their own name (preview string id).
    std::vector<uint32_t> type_group_;
    std::vector<uint8_t> is_module_type_;
    std::unordered_map<uint32_t, uint32_t> module_object_group_;
    uint64_t total_objects_ = 0;
    uint64_t total_bytes_ = 0;
};

}  // namespace refscope::app

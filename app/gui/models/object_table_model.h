// The objects of a group or a filter result, one row per object: address,
// type, preview, size, retained size, distance from the roots, refcount,
// surplus, unexplained surplus, and "new since the baseline".
//
// Columnar for millions of rows: the rows are one vector of node ids, data()
// formats a cell when a view asks for it, and sort() permutes the id vector
// by a key column computed once per sort (a per-type-id rank of names for the
// type column, a per-string-id rank of preview text for the preview column).
// Memory per row: 8 bytes (the order shown, and the same ids increasing, which
// every sort starts from so ties need no work), plus 32 while a sort runs and 4 per snapshot node
// for the row-of-node table that rowOf() builds on first use.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/sortable_table_model.h"
#include "session/analysis_ptr.h"

namespace refscope::app {

class ObjectTableModel : public SortableTableModel {
    Q_OBJECT
public:
    enum Column {
        AddressColumn,
        TypeColumn,
        PreviewColumn,
        SizeColumn,
        RetainedColumn,
        DistanceColumn,  // hops from the nearest GC root; ∞ when there is no path
        RefcountColumn,
        SurplusColumn,      // refcount − owned references from other objects
        UnexplainedColumn,  // surplus no root record explains
        NewColumn,          // "new" since the baseline; empty without one
        ColumnCount
    };

    explicit ObjectTableModel(QObject* parent = nullptr);

    // Clears the rows and the "new" column (their ids belonged to the old
    // snapshot). The chosen sort stays and applies to rows set later.
    void setAnalysis(AnalysisPtr analysis);
    // The objects to show (node ids of this analysis; out-of-range ids are
    // dropped). Sorted at once by the current sort column, if any.
    void setNodes(std::vector<uint32_t> nodes);
    // One byte per snapshot node, nonzero = new since the baseline (the
    // diff's is_new, or a survivor report's is_survivor); null, or a column
    // of the wrong length, empties the New column. A diff's column needs no
    // copy: std::shared_ptr<const std::vector<uint8_t>>(diff, &diff->is_new).
    void setNewColumn(std::shared_ptr<const std::vector<uint8_t>> is_new);

    const AnalysisPtr& analysis() const { return analysis_; }
    const std::vector<uint32_t>& nodes() const { return rows_; }
    bool hasNewColumn() const { return is_new_ != nullptr; }
    // kNoNode when the row is out of range.
    uint32_t nodeAt(int row) const;
    // -1 when the node is not shown.
    int rowOf(uint32_t node) const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    // Ties by node id. Unknown column: the rows keep their order.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    // The rows in the current sort order, from increasing_.
    std::vector<uint32_t> sortedRows() const;
    const std::vector<uint32_t>& previewRank() const;
    const std::vector<uint32_t>& typeRank() const;

    AnalysisPtr analysis_;
    std::shared_ptr<const std::vector<uint8_t>> is_new_;
    std::vector<uint32_t> increasing_;  // the rows as a set, increasing ids
    // Built on demand, per analysis.
    mutable std::vector<uint32_t> preview_rank_;  // per string id
    mutable std::vector<uint32_t> type_rank_;     // per type id (+1 for bad ids)
    mutable std::vector<int32_t> row_of_node_;    // per node, -1 = not shown; empty = stale
};

}  // namespace refscope::app

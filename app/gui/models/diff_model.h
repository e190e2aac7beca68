// Per-type changes between a baseline and the current snapshot
// (analysis::SnapshotDiff), and with a third snapshot the survivors of the
// three-snapshot technique (analysis::SurvivorReport) per type.
//
// Rows: the diff's changed types, in its order (largest byte growth first)
// until sort() is called; sort(-1) restores it. A type with survivors that
// the diff does not list (unchanged between the two snapshots compared) gets
// a row of its own with empty count columns and zero deltas.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/sortable_table_model.h"
#include "refscope/analysis/snapshot_diff.h"

namespace refscope::app {

class DiffModel : public SortableTableModel {
    Q_OBJECT
public:
    enum Column {
        TypeColumn,
        ObjectsAColumn,
        ObjectsBColumn,
        DeltaObjectsColumn,
        BytesAColumn,
        BytesBColumn,
        DeltaBytesColumn,
        NewColumn,        // objects in B with no match in A
        FreedColumn,      // objects in A with no match in B
        SurvivorsColumn,  // allocated between snapshots 1 and 2, alive in 3; empty without a report
        ColumnCount
    };

    explicit DiffModel(QObject* parent = nullptr);

    void setDiff(std::shared_ptr<const analysis::SnapshotDiff> diff);
    void setSurvivors(std::shared_ptr<const analysis::SurvivorReport> survivors);
    const analysis::SnapshotDiff* diff() const { return diff_.get(); }
    const analysis::SurvivorReport* survivors() const { return survivors_.get(); }

    QString typeName(int row) const;
    int rowOfType(const QString& name) const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    struct Row {
        const analysis::TypeDelta* delta = nullptr;  // null: a survivors-only row
        std::string name;
        uint64_t survivors = 0;
        uint64_t survivor_bytes = 0;
    };
    void rebuild();
    std::vector<uint32_t> sortedRows() const;
    QVariant sortKey(const Row& row, int column) const;

    std::shared_ptr<const analysis::SnapshotDiff> diff_;
    std::shared_ptr<const analysis::SurvivorReport> survivors_;
    std::vector<Row> table_;
};

}  // namespace refscope::app

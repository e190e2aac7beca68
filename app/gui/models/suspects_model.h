// The ranked leak suspects (analysis::LeakSuspects, docs/leak-suspects.md):
// one row per type with its evidence and the reasons in plain words.
// High-confidence rows come first (the ranking's own order) and read
// normally; low-confidence rows — probably static state held from C,
// or merely large — are grey. NodeIdRole is the row's representative object
// (largest retained size), the one the window shows the path of.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "models/sortable_table_model.h"
#include "refscope/analysis/leak_suspects.h"
#include "session/analysis_ptr.h"

namespace refscope::app {

class SuspectsModel : public SortableTableModel {
    Q_OBJECT
public:
    enum Column {
        TypeColumn,
        ConfidenceColumn,
        ObjectsColumn,
        RetainedBytesColumn,
        ScoreColumn,
        EvidenceColumn,  // the kinds: "unexplained surplus, unreachable"
        ReasonColumn,    // the reasons' sentences, joined
        ColumnCount
    };

    explicit SuspectsModel(QObject* parent = nullptr);

    // `suspects` must be built over `analysis` (e.g. with a baseline diff);
    // null uses the analysis's own suspects() (no baseline). Rows keep the
    // ranking's order until sort() is called; sort(-1) restores it.
    void setSuspects(AnalysisPtr analysis, std::shared_ptr<const analysis::LeakSuspects> suspects = nullptr);
    const AnalysisPtr& analysis() const { return analysis_; }
    const analysis::LeakSuspects* suspects() const { return suspects_.get(); }

    // kNoNode for a row out of range.
    uint32_t representativeNode(int row) const;
    // The ranking's row behind a table row (nullptr out of range).
    const analysis::SuspectGroup* groupAt(int row) const;
    // The first table row of `type` (the highest-ranked such row), -1 if none.
    int rowOfType(std::string_view type) const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    std::vector<uint32_t> sortedRows() const;

    AnalysisPtr analysis_;
    // Keeps the suspects alive; for the analysis's own, an aliasing pointer
    // sharing ownership of the analysis.
    std::shared_ptr<const analysis::LeakSuspects> suspects_;
};

}  // namespace refscope::app

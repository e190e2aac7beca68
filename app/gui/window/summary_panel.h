// The summary panel: objects, shallow and retained bytes, unexplained
// surplus and the change since the baseline, per type or per module
// (TypeSummaryModel), limited to the filter's objects when one is applied.
// Choosing a row lists that group's objects in the objects panel.
//
// The model for a new snapshot (or a new grouping) is built on a worker
// thread (ModelBuildJob): grouping ten million objects and walking their
// dominator tree takes a good part of a second, which the GUI thread must
// never spend. Until it arrives the table is empty, except when the new
// analysis is the full one of the snapshot on screen (the census shown as
// soon as the file was read, its retained and unexplained columns
// "analysing…"): that table stays until the full one replaces it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <QWidget>

#include "session/analysis_ptr.h"
#include "session/comparison.h"

class QAbstractItemModel;
class QComboBox;
class QLabel;
class QTableView;

namespace refscope::app {

class ColumnFit;

class ModelBuildJob;
class TypeSummaryModel;

class SummaryPanel : public QWidget {
    Q_OBJECT

public:
    explicit SummaryPanel(QWidget* parent = nullptr);

    void setAnalysis(AnalysisPtr analysis);
    // The filter's objects (null: all).
    void setSelection(std::shared_ptr<const std::vector<uint32_t>> nodes);
    void setComparison(const ComparisonPtr& comparison);

    TypeSummaryModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    // Selects the group called `name`, if shown.
    bool selectGroup(const QString& name);
    // A model is being built.
    bool busy() const;

signals:
    // A group was chosen: its name and its objects (within the filter).
    void groupActivated(const QString& name, const std::vector<uint32_t>& nodes);
    // The model built for a new snapshot or grouping is in the view.
    void modelReplaced();

private:
    // `keep_shown`: the model on screen stays until the new one arrives.
    void regroup(bool keep_shown = false);
    void install(QAbstractItemModel* built);
    void updateTotals();
    void onCurrentRowChanged();

    AnalysisPtr analysis_;
    std::shared_ptr<const std::vector<uint32_t>> selection_;
    ComparisonPtr comparison_;
    TypeSummaryModel* model_;
    ModelBuildJob* build_job_;
    QComboBox* group_by_;
    QTableView* view_;
    ColumnFit* column_fit_ = nullptr;
    QLabel* totals_;
};

}  // namespace refscope::app

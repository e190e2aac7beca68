// The leak suspects panel: the ranked list (SuspectsModel), one row per type
// with its evidence, and under it the chosen row's reasons in full. One
// click on a row shows its representative object — the one retaining the
// most — in the path and graph panels, and lists the row's objects.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <QWidget>

#include "session/analysis_ptr.h"
#include "session/comparison.h"

class QLabel;
class QTableView;

namespace refscope::app {

class SuspectsModel;

class SuspectsPanel : public QWidget {
    Q_OBJECT

public:
    explicit SuspectsPanel(QWidget* parent = nullptr);

    // The snapshot's own ranking (no baseline).
    void setAnalysis(AnalysisPtr analysis);
    // The ranking with the comparison's evidence (growth, survivors); null
    // goes back to the snapshot's own.
    void setComparison(const ComparisonPtr& comparison);

    // What the panel shows now (null without a snapshot).
    const analysis::LeakSuspects* suspects() const;
    // Chooses table row `row` (0: the top suspect); false if there is none.
    bool selectRow(int row);

    SuspectsModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    QString reasonText() const;

signals:
    // A row was chosen: its type, its objects and its representative.
    void suspectActivated(const QString& type, const std::vector<uint32_t>& objects, uint32_t representative);

private:
    void onCurrentRowChanged();
    void updateHeadline();

    AnalysisPtr analysis_;
    ComparisonPtr comparison_;
    SuspectsModel* model_;
    QLabel* headline_;
    QTableView* view_;
    QLabel* reason_;
};

}  // namespace refscope::app

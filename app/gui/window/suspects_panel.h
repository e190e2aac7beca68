// The leak suspects panel: the ranked list (SuspectsModel), one row per type
// with its evidence, and under it the chosen row's reasons in full. One
// click on a row shows its representative object — the one retaining the
// most — in the path and graph panels, and lists the row's objects.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <QWidget>

#include "session/analysis_ptr.h"
#include "refscope/analysis/leak_suspects.h"
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
    // The ranking changed under the chosen row (a baseline or middle was
    // chosen, or its comparison arrived): the same type's row is current
    // again, with the objects it accuses now; an empty type when the new
    // ranking has no row of that type (none is current then; the type is
    // still followed by the next re-ranking). The selected object is left
    // alone: re-ranking is not a new choice.
    void suspectReranked(const QString& type, const std::vector<uint32_t>& objects);

private:
    void onCurrentRowChanged();
    void updateHeadline();
    // After re-ranking: makes the chosen type's row current again.
    void followChosen();

    AnalysisPtr analysis_;
    ComparisonPtr comparison_;
    SuspectsModel* model_;
    QLabel* headline_;
    QTableView* view_;
    QLabel* reason_;
    // The chosen row, by what survives a re-ranking: its type and confidence.
    std::string chosen_type_;  // as the snapshot spells it (not always valid UTF-8)
    analysis::SuspectConfidence chosen_confidence_ = analysis::SuspectConfidence::High;
    bool following_ = false;  // followChosen is making the row current
};

}  // namespace refscope::app

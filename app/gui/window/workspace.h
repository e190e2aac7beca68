// The workspace: every panel over the current snapshot, and the one
// selection they share.
//
//   ┌ filter ──────────────────────────────────────────────────────────────┐
//   │ [Leak suspects | Summary | Diff]     │ [Path | Retainers | Retained | │
//   │  groups: what leaks, what is big,     │  Graph]                        │
//   │  what grew                            │  the selected object: why it   │
//   ├───────────────────────────────────────┤  is alive, who holds it, what  │
//   │ Objects of the selected group         │  it keeps alive, the picture   │
//   └───────────────────────────────────────┴────────────────────────────────┘
//
// Selecting a group (a suspect row, a type in the summary, a type in the diff)
// lists its objects; selecting an object anywhere (a row, a suspect's
// representative, a node of the graph, a link in the path) makes it the
// selection every object panel follows.
#pragma once

#include <cstdint>

#include <QByteArray>
#include <QStringList>
#include <QWidget>

#include "refscope/snapshot.h"
#include "session/analysis_ptr.h"
#include "session/comparison.h"

class QLabel;
class QSplitter;
class QTabWidget;

namespace refscope::app {

class FilterBar;
class ObjectsPanel;
class PathPanel;
class SummaryPanel;
struct FilterResult;

class Workspace : public QWidget {
    Q_OBJECT

public:
    // The panels, in Alt+1..Alt+8 order.
    enum class Panel { Suspects, Summary, Diff, Objects, Path, Retainers, Retained, Graph };
    static constexpr int kPanelCount = 8;

    explicit Workspace(QWidget* parent = nullptr);
    ~Workspace() override;

    // The snapshot shown (null: none). Clears the selection.
    void setAnalysis(AnalysisPtr analysis);
    const AnalysisPtr& analysis() const { return analysis_; }
    // The comparison of the current snapshot with its baseline (null: none).
    // Leak suspects then include growth and survivors; the diff panel fills.
    void setComparison(ComparisonPtr comparison);
    const ComparisonPtr& comparison() const { return comparison_; }

    uint32_t selectedObject() const { return selected_; }
    // The selected object's path as plain text, "" without a selection.
    QString pathText() const;
    // Leak suspects shown (with the comparison's evidence when there is one).
    const analysis::LeakSuspects* suspects() const;
    // Selects suspect row `row` (0 = the top one) and its representative.
    bool selectSuspect(int row);

    // Background work of the panels (graph layout) in flight.
    bool busy() const;

    void showPanel(Panel panel);
    static QString panelName(Panel panel);
    void focusFilter();

    QByteArray saveState() const;
    void restoreState(const QByteArray& state);

    PathPanel* pathPanel() const { return path_panel_; }
    FilterBar* filterBar() const { return filter_bar_; }
    SummaryPanel* summaryPanel() const { return summary_panel_; }
    ObjectsPanel* objectsPanel() const { return objects_panel_; }

public slots:
    // Makes `node` the selection of every object panel (kNoNode clears).
    void selectObject(uint32_t node);
    void copyPathAsText() const;

signals:
    void objectSelected(uint32_t node);
    // One line for the status bar (filter results, export outcomes).
    void message(const QString& text);

private:
    QWidget* panelWidget(Panel panel) const;
    void onFilterChanged(const FilterResult& result);
    void showGroup(const QString& name, const std::vector<uint32_t>& nodes);

    AnalysisPtr analysis_;
    ComparisonPtr comparison_;
    uint32_t selected_ = kNoNode;

    QSplitter* main_splitter_;
    QSplitter* left_splitter_;
    QTabWidget* group_tabs_;
    QTabWidget* detail_tabs_;
    FilterBar* filter_bar_;
    ObjectsPanel* objects_panel_;
    PathPanel* path_panel_;
    QWidget* suspects_panel_;
    SummaryPanel* summary_panel_;
    QWidget* diff_panel_;
    QWidget* retainers_panel_;
    QWidget* retained_panel_;
    QWidget* graph_panel_;
};

}  // namespace refscope::app

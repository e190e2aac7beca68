// The workspace: every panel over the current snapshot, and the one
// selection they share.
//
//   ┌ filter ───────────────────────────────────────────────────────────────┐
//   │ [Leak suspects | Summary | Diff |     │ Path: why the selected object   │
//   │  Growth]  groups: what leaks, what is │ is alive                        │
//   │  big, what grew (and how, over time)  ├─────────────────────────────────┤
//   ├───────────────────────────────────────┤ [Graph | Retainers | Retained | │
//   │ Objects of the chosen group           │  Inspector]                     │
//   │                                       │  the picture, who holds it,     │
//   │                                       │  what it keeps alive, what it   │
//   │                                       │  holds (its fields)             │
//   └───────────────────────────────────────┴─────────────────────────────────┘
//
// Choosing a group (a suspect row, a type in the summary or the diff, a
// filter) lists its objects; choosing an object anywhere (a row, a suspect's
// representative, a node of the graph, a link in the path, an item of the
// trees, a value in the inspector) makes it the selection every object
// panel follows. The Inspector is the exception among the detail tabs: it
// is filled only while it is in front (and when it comes to the front), as
// each selection builds its whole field tree. Removing the filter lists the
// chosen group again; a re-ranking of the suspects (a baseline or middle
// chosen) lists what the chosen suspect's row accuses now.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <QByteArray>
#include <QStringList>
#include <QWidget>

#include "refscope/snapshot.h"
#include "session/analysis_ptr.h"
#include "session/comparison.h"
#include "window/selection_history.h"

class QSplitter;
class QTabWidget;
class QTableView;

namespace refscope::app {

class DiffPanel;
class FilterBar;
class GrowthPanel;
class GraphWidget;
class InspectorPanel;
class ObjectsPanel;
class PathPanel;
class RetainedPanel;
class RetainersPanel;
class SummaryPanel;
class SuspectsPanel;
struct FilterResult;

class Workspace : public QWidget {
    Q_OBJECT

public:
    // The panels, in Alt+1..Alt+9, Alt+0 order (Inspector and Growth came
    // last, after the keys people had learned).
    enum class Panel { Suspects, Summary, Diff, Objects, Path, Retainers, Retained, Graph, Inspector, Growth };
    static constexpr int kPanelCount = 10;

    explicit Workspace(QWidget* parent = nullptr);
    ~Workspace() override;

    // The snapshot shown (null: none). Clears the selection and its history,
    // except that the selected object stays selected in the next snapshot of
    // the same process when it is still there (same address and type).
    // A snapshot without its graph (has_graph() false: read, still being
    // analysed) fills only the summary's census; the suspects panel says it
    // is analysing and the panels that need the graph stay empty until the
    // full analysis of the same snapshot is set (then a group chosen in the
    // census meanwhile is listed).
    void setAnalysis(AnalysisPtr analysis);
    const AnalysisPtr& analysis() const { return analysis_; }
    // The snapshot shown is read and its graph is being analysed.
    bool analysing() const;
    // The comparison of the current snapshot with its baseline (null: none;
    // `error` says why, when it failed). Leak suspects then include growth
    // and survivors, the summary deltas, the diff panel fills.
    void setComparison(ComparisonPtr comparison, const QString& error = {});
    const ComparisonPtr& comparison() const { return comparison_; }

    uint32_t selectedObject() const { return selected_; }
    // Back and forward over the selections in this snapshot (Alt+Left/Right,
    // the mouse's side buttons: NavigationControls).
    bool canGoBack() const { return history_.canGoBack(); }
    bool canGoForward() const { return history_.canGoForward(); }
    // The selected object's path as plain text, "" without a selection.
    QString pathText() const;
    // Leak suspects shown (with the comparison's evidence when there is one).
    const analysis::LeakSuspects* suspects() const;
    // Chooses suspect row `row` (0 = the top one): its objects are listed
    // and its representative selected. False without such a row.
    bool selectSuspect(int row);

    // Background work of the panels in flight (summary model, filter, graph
    // layout).
    bool busy() const;

    void showPanel(Panel panel);
    static QString panelName(Panel panel);
    void focusFilter();

    QByteArray saveState() const;
    // Applied when the workspace is next shown if it is hidden now (the
    // window starts on its empty state): a hidden splitter has no real size
    // to restore its sections into.
    void restoreState(const QByteArray& state);

    FilterBar* filterBar() const { return filter_bar_; }
    SuspectsPanel* suspectsPanel() const { return suspects_panel_; }
    SummaryPanel* summaryPanel() const { return summary_panel_; }
    DiffPanel* diffPanel() const { return diff_panel_; }
    ObjectsPanel* objectsPanel() const { return objects_panel_; }
    PathPanel* pathPanel() const { return path_panel_; }
    RetainersPanel* retainersPanel() const { return retainers_panel_; }
    RetainedPanel* retainedPanel() const { return retained_panel_; }
    InspectorPanel* inspectorPanel() const { return inspector_panel_; }
    GraphWidget* graphWidget() const { return graph_; }
    GrowthPanel* growthPanel() const { return growth_panel_; }

public slots:
    // Makes `node` the selection of every object panel (kNoNode clears).
    void selectObject(uint32_t node);
    void goBack();
    void goForward();
    void copyPathAsText() const;

signals:
    void objectSelected(uint32_t node);
    void historyChanged();
    // One line for the status bar (filter results, export outcomes).
    void message(const QString& text);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void applyState(const QByteArray& state);
    // The four tables whose header state is saved, in the saved order.
    std::array<QTableView*, 4> tables() const;
    // Where a selection came from: that view already shows it.
    // History: back or forward, which must not become a new step.
    enum class Origin { Elsewhere, Graph, Objects, History };
    void select(uint32_t node, Origin origin);
    QWidget* panelWidget(Panel panel) const;
    // A group chosen in a panel (a suspect row, a type of the summary or
    // the diff): what the Objects panel lists, and lists again when a filter
    // is removed.
    struct Group {
        QString caption;  // "" : nothing chosen
        std::vector<uint32_t> nodes;
        bool of_suspect = false;  // follows the suspects' re-ranking
    };
    void chooseGroup(Group group);
    void onFilterChanged(const FilterResult& result);
    void onSuspectReranked(const QString& type, const std::vector<uint32_t>& objects);
    void showGroup(const QString& caption, const std::vector<uint32_t>& nodes);

    AnalysisPtr analysis_;
    ComparisonPtr comparison_;
    uint32_t selected_ = kNoNode;
    Group group_;
    bool filtered_ = false;  // the Objects panel lists the filter's matches
    SelectionHistory history_;
    QByteArray pending_state_;
    bool shown_before_ = false;  // the first show sets the default split

    QSplitter* main_splitter_;
    QSplitter* left_splitter_;
    QSplitter* right_splitter_;
    QTabWidget* group_tabs_;
    QTabWidget* detail_tabs_;
    FilterBar* filter_bar_;
    SuspectsPanel* suspects_panel_;
    SummaryPanel* summary_panel_;
    DiffPanel* diff_panel_;
    ObjectsPanel* objects_panel_;
    PathPanel* path_panel_;
    RetainersPanel* retainers_panel_;
    RetainedPanel* retained_panel_;
    InspectorPanel* inspector_panel_;
    GraphWidget* graph_;
    GrowthPanel* growth_panel_;
};

}  // namespace refscope::app

// The Growth panel: the growth chart (growth_chart.h) over every snapshot of
// the current snapshot's process, with an Objects/Bytes switch and Export.
// It follows the timeline: a snapshot opened or arriving from a live session
// ("Every N s") redraws it, as does choosing another snapshot (whose process
// may differ) or a leak suspect (its type is highlighted, and the axis
// fits it unless "Fit Chosen" is switched off).
//
// Each snapshot's per-type totals are counted once, on a worker thread (one
// pass over its objects), once its process has a second snapshot (a lone
// snapshot draws no chart); the chart is rebuilt from them without touching
// a heap. The totals outlive the snapshot when the app closes it: a live
// session's open limit (LiveControls) closes older snapshots to bound
// memory, and their points stay in the process's GrowthHistory (at most 500
// per process), so the chart covers every snapshot of the process taken in
// the session. A snapshot the limit closes while its count is in flight or
// queued is still counted (the count holds its analysis until it hands the
// totals over) and its point kept. What a person closes goes: File ▸ Close
// Snapshot drops that snapshot's point, and closing the process's last open
// snapshot drops its whole history (a person who closed everything of a
// process expects a new start, not old points coming back).
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <QWidget>

#include "session/analysis_ptr.h"
#include "session/growth_history.h"
#include "session/growth_series.h"
#include "session/latest_request_worker.h"
#include "session/snapshot_timeline.h"

class QAction;
class QToolButton;

namespace refscope::app {

class GrowthChart;

class GrowthPanel : public QWidget {
    Q_OBJECT

public:
    explicit GrowthPanel(QWidget* parent = nullptr);
    ~GrowthPanel() override;

    // The snapshots to chart (the window's timeline); set once.
    void setTimeline(SnapshotTimeline* timeline);
    // The type to highlight (the chosen suspect's); empty: none.
    void setChosenType(const QString& type);
    QString chosenType() const { return chosen_; }
    void setMeasure(GrowthMeasure measure);
    GrowthMeasure measure() const { return measure_; }

    const GrowthSeries& series() const;
    GrowthChart* chart() const { return chart_; }
    // Per-type totals still being counted.
    bool busy() const { return worker_.busy(); }
    // The points kept of closed snapshots, per process.
    const GrowthHistory& history() const { return history_; }

    // PNG or SVG by extension (GrowthChart::exportTo). Synchronous.
    bool exportTo(const QString& path, QString* error = nullptr) const;
    // File ▸ Export Growth Chart…: asks for a file name, then exportTo.
    QAction* exportAction() const { return export_action_; }

signals:
    // One line for the status bar (export outcomes).
    void message(const QString& text);

private:
    void refresh();
    // The data changed (a count finished, a snapshot came, went or was
    // chosen): gathers the current process's points once, then redraws.
    void rebuild();
    // The view changed (measure, chosen type): the series again from the
    // points gathered, without touching the timeline or the files.
    void redraw();
    void exportWithDialog();
    void onSnapshotClosed(const AnalysisPtr& analysis, SnapshotTimeline::CloseReason reason);
    // The open snapshots to count: every one of a process with two
    // snapshots or more (open or retained) not counted yet, the current
    // process's first; those closed while waiting first of all.
    std::vector<AnalysisPtr> toCount() const;

    struct Counted {
        std::weak_ptr<const analysis::SnapshotAnalysis> analysis;
        TypeTotalsPtr totals;
    };
    // Totals the worker finished, handed over under the lock: a request
    // superseded by a newer snapshot's arrival keeps what it counted.
    struct Finished {
        std::mutex mutex;
        std::vector<std::pair<std::weak_ptr<const analysis::SnapshotAnalysis>, TypeTotalsPtr>> totals;
    };
    void takeFinished();
    // The totals of `analysis` if counted (and it is the same analysis, not
    // a new one at a freed one's address), else null.
    TypeTotalsPtr totalsOf(const AnalysisPtr& analysis) const;

    SnapshotTimeline* timeline_ = nullptr;
    QString chosen_;
    GrowthMeasure measure_ = GrowthMeasure::Bytes;
    std::unordered_map<const analysis::SnapshotAnalysis*, Counted> counted_;
    // Closed by the app (live limit, reload) before their count finished:
    // their point joins the history when it does. Gone once nothing holds
    // the analysis (no count is coming then).
    struct Pending {
        std::weak_ptr<const analysis::SnapshotAnalysis> analysis;
        QString process;
        GrowthSample sample;  // without totals yet
    };
    std::vector<Pending> pending_;
    GrowthHistory history_;
    // What rebuild gathered for redraw: the current process's points, the
    // current snapshot's totals (its point is marked), the process's name
    // and the sentence shown without a chart.
    std::vector<GrowthSample> samples_;
    TypeTotalsPtr current_totals_;
    QString subject_;
    QString empty_;
    std::shared_ptr<Finished> finished_ = std::make_shared<Finished>();

    GrowthChart* chart_;
    QToolButton* objects_button_;
    QToolButton* bytes_button_;
    QToolButton* fit_button_;
    QAction* export_action_;
    LatestRequestWorker worker_{LatestRequestWorker::Priority::Background};  // last: joined first
};

}  // namespace refscope::app

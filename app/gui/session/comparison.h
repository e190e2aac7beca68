// Comparison: the current snapshot seen against a baseline (and, for the
// three-snapshot technique, a middle snapshot): the diff baseline → current,
// the survivors 1 → 2 → 3, and the leak suspects ranked with that evidence
// (growth, survivors, the object where the growth accumulates).
//
// A Comparison is computed once and immutable afterwards, like the analyses
// it holds on to; ComparisonJob computes it off the GUI thread. Snapshots of
// different processes, or given in the wrong order, cannot be compared:
// core's check says why (analysis::SnapshotMismatchError) and the job
// reports that message.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include <QObject>
#include <QString>

#include "refscope/analysis/leak_suspects.h"
#include "refscope/analysis/snapshot_diff.h"
#include "session/analysis_ptr.h"
#include "session/latest_request_worker.h"

namespace refscope::app {

class Comparison {
public:
    // Diffs baseline → current; with `middle`, also finds the survivors
    // baseline → middle → current; then ranks the leak suspects of `current`
    // with that evidence. Throws analysis::SnapshotMismatchError when the
    // snapshots are not one process in that order, std::invalid_argument
    // when `current` was analysed without dominators or cycles, and
    // analysis::AnalysisCancelled when `cancel` is set between steps.
    static std::shared_ptr<const Comparison> compute(AnalysisPtr baseline, AnalysisPtr middle,
                                                     AnalysisPtr current,
                                                     const std::atomic<bool>* cancel = nullptr);

    const AnalysisPtr& baseline() const { return baseline_; }
    const AnalysisPtr& middle() const { return middle_; }  // null without survivors
    const AnalysisPtr& current() const { return current_; }

    // Baseline → current.
    const analysis::SnapshotDiff& diff() const { return diff_; }
    // Baseline → middle → current; null without a middle snapshot.
    const analysis::SurvivorReport* survivors() const { return survivors_ ? &*survivors_ : nullptr; }
    const analysis::LeakSuspects& suspects() const { return *suspects_; }

    // One byte per node of the current snapshot, for the filter's `new`
    // flag and the objects table's "new" column: new since the baseline, or
    // (with a middle snapshot) a survivor.
    const std::vector<uint8_t>& newColumn() const;

    // "#2 after 250 logins (s2.rscope) against #1 after 50 logins (s1.rscope)".
    QString description() const;

private:
    Comparison() = default;

    AnalysisPtr baseline_;
    AnalysisPtr middle_;
    AnalysisPtr current_;
    analysis::SnapshotDiff diff_;
    std::optional<analysis::SurvivorReport> survivors_;
    std::unique_ptr<analysis::LeakSuspects> suspects_;
};

using ComparisonPtr = std::shared_ptr<const Comparison>;

// Parts of a comparison as shared pointers that keep the whole comparison
// (and its snapshots) alive, for models that hold on to them. Null for null.
std::shared_ptr<const analysis::SnapshotDiff> shared_diff(const ComparisonPtr& comparison);
std::shared_ptr<const std::vector<uint8_t>> shared_new_column(const ComparisonPtr& comparison);

// Computes Comparisons on one worker thread it owns (LatestRequestWorker).
// Only the newest request matters: starting another (or clear()) cancels the
// running one at its next step and drops its result, so a person clicking
// through baselines never sees an old answer arrive late. The worker posts
// results to the job's thread, where the signals are emitted; the destructor
// cancels and joins.
class ComparisonJob : public QObject {
    Q_OBJECT

public:
    explicit ComparisonJob(QObject* parent = nullptr);
    ~ComparisonJob() override;

    ComparisonJob(const ComparisonJob&) = delete;
    ComparisonJob& operator=(const ComparisonJob&) = delete;

    // Compares `current` with `baseline` (and `middle`); see Comparison::compute.
    // With no baseline or no current snapshot this is clear().
    void start(const AnalysisPtr& baseline, const AnalysisPtr& middle, const AnalysisPtr& current);
    // Forgets the request in flight and the last result.
    void clear();

    // Between start() and its finished/failed signal.
    bool isRunning() const { return worker_.busy(); }
    // The last result delivered by `finished` (null after clear() or failed).
    const ComparisonPtr& result() const { return result_; }

signals:
    void started();
    void finished(const refscope::app::ComparisonPtr& comparison);
    // The mismatch ("snapshots come from different processes: ...") or other error.
    void failed(const QString& message);
    // The comparison was cleared (no baseline any more).
    void cleared();

private:
    void deliver(const ComparisonPtr& result, const QString& error);

    ComparisonPtr result_;
    LatestRequestWorker worker_;
};

}  // namespace refscope::app

Q_DECLARE_METATYPE(refscope::app::ComparisonPtr)

// The app's side of analysis::Comparison (core's comparison.h: the diff,
// the survivors and the suspects ranked with them): its description for the
// panels, shared pointers into it for the models, and ComparisonJob, which
// computes it off the GUI thread. A mismatch (different processes, wrong
// order) is reported by the job as core's message.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include <QObject>
#include <QString>

#include "refscope/analysis/comparison.h"
#include "session/analysis_ptr.h"
#include "session/latest_request_worker.h"

namespace refscope::app {

using ComparisonPtr = std::shared_ptr<const analysis::Comparison>;

// "#2 after 250 logins (s2.rscope) against #1 after 50 logins (s1.rscope)".
QString comparisonDescription(const analysis::Comparison& comparison);

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

    // Compares `current` with `baseline` (and `middle`); see analysis::Comparison::compute.
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

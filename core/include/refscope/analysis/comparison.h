// Comparison: the current snapshot seen against a baseline (and, for the
// three-snapshot technique, a middle snapshot): the diff baseline → current,
// the survivors baseline → middle → current, and the leak suspects of the
// current snapshot ranked with that evidence (growth, survivors, the object
// where the growth accumulates).
//
// The app's baseline picker and `refscope-cli suspects --baseline A [--third
// C]` are its two consumers, so both rank with the same evidence. A
// Comparison is computed once and immutable afterwards; it holds on to the
// analyses it compares. Snapshots of different processes, or given in the
// wrong order, cannot be compared: compute() throws SnapshotMismatchError,
// which says why.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "refscope/analysis/leak_suspects.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "refscope/analysis/snapshot_diff.h"

namespace refscope::analysis {

using SharedAnalysis = std::shared_ptr<const SnapshotAnalysis>;

class Comparison {
public:
    // Diffs baseline → current; with `middle`, also finds the survivors
    // baseline → middle → current; then ranks the leak suspects of `current`
    // with that evidence. The baseline and middle need only their snapshots;
    // `current` needs its dominator tree and cycles. Throws
    // SnapshotMismatchError when the snapshots are not one process in that
    // order, std::invalid_argument when a snapshot is missing or `current`
    // lacks those stages, and AnalysisCancelled when `cancel` is set between
    // steps.
    static std::shared_ptr<const Comparison> compute(SharedAnalysis baseline, SharedAnalysis middle,
                                                     SharedAnalysis current,
                                                     const std::atomic<bool>* cancel = nullptr,
                                                     const SuspectOptions& options = {});

    const SharedAnalysis& baseline() const { return baseline_; }
    const SharedAnalysis& middle() const { return middle_; }  // null without survivors
    const SharedAnalysis& current() const { return current_; }

    // Baseline → current.
    const SnapshotDiff& diff() const { return diff_; }
    // Baseline → middle → current; null without a middle snapshot.
    const SurvivorReport* survivors() const { return survivors_ ? &*survivors_ : nullptr; }
    const LeakSuspects& suspects() const { return *suspects_; }

    // One byte per node of the current snapshot, for the filter's `new`
    // flag and the objects table's "new" column: new since the baseline, or
    // (with a middle snapshot) a survivor.
    const std::vector<uint8_t>& new_column() const;

private:
    Comparison() = default;

    SharedAnalysis baseline_;
    SharedAnalysis middle_;
    SharedAnalysis current_;
    SnapshotDiff diff_;
    std::optional<SurvivorReport> survivors_;
    std::unique_ptr<LeakSuspects> suspects_;
};

}  // namespace refscope::analysis

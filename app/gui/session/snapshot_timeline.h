// SnapshotTimeline: the snapshots open in the window, in the order a person
// reads them — grouped by process (pid + executable), then by the probe's
// sequence number, then by time — with the one being looked at (`current`)
// and what it is compared with.
//
// Comparisons follow the three-snapshot technique's numbering: the baseline
// is snapshot 1; with only a baseline, the current snapshot is compared with
// it (diff, growth). With a middle snapshot too, the current one is snapshot 3
// and the report adds the objects allocated between 1 and 2 that are still
// alive in 3 (survivors). The current snapshot is always the one explored,
// because growth and survivors are reported as its objects.
//
// The timeline only records the choice; whether the snapshots can be
// compared (same process, right order) is decided by Comparison, which says
// why not in plain words.
#pragma once

#include <vector>

#include <QObject>
#include <QString>

#include "session/analysis_ptr.h"

namespace refscope::app {

class SnapshotTimeline : public QObject {
    Q_OBJECT

public:
    explicit SnapshotTimeline(QObject* parent = nullptr);

    // "1234|/usr/bin/python3": snapshots with the same key are one process
    // (the rule analysis::check_snapshot_order applies).
    static QString processKey(const Snapshot& snapshot);
    // "pid 1234 (python3 app.py)".
    static QString processLabel(const Snapshot& snapshot);
    // "#2 after 250 logins, 12:17:05 (s2.rscope)": what the selector shows.
    static QString snapshotLabel(const analysis::SnapshotAnalysis& analysis);

    // Inserts in timeline order and makes it current. When a baseline is not
    // set yet and `autoBaseline()` is on, a second snapshot of a process
    // compares the newest with the oldest of that process: the oldest
    // becomes the baseline and the newest current (opening "before" and
    // "after" together shows the growth at once).
    void add(const AnalysisPtr& analysis);
    // Why a snapshot is closed. Views that keep something of a snapshot
    // past its closing (the growth chart's points, growth_history.h) keep it
    // when the app closed it and drop it when a person did.
    enum class CloseReason {
        Closed,    // a person closed it (File ▸ Close Snapshot)
        Bounded,   // a live session's open limit closed it to bound memory;
                   // its file stays in the session folder
        Reloaded,  // File ▸ Reload: it is read again from its file
    };
    Q_ENUM(CloseReason)

    // Closes one snapshot. If it was the baseline or the middle snapshot,
    // that role is cleared; if it was current, the nearest snapshot of the
    // same process (else the first one) becomes current.
    void remove(const AnalysisPtr& analysis, CloseReason reason = CloseReason::Closed);
    // Closes every snapshot, as a person closing them all.
    void clear();

    const std::vector<AnalysisPtr>& snapshots() const { return snapshots_; }
    int count() const { return static_cast<int>(snapshots_.size()); }
    bool isEmpty() const { return snapshots_.empty(); }
    AnalysisPtr at(int index) const;
    // Position in snapshots(), or -1.
    int indexOf(const AnalysisPtr& analysis) const;
    // `path` with links resolved (the absolute path when it does not exist):
    // how snapshot files are compared.
    static QString canonicalPath(const QString& path);
    // The open snapshot read from `path` (compared as canonical file paths), or null.
    AnalysisPtr findByPath(const QString& path) const;
    // The open snapshots of the same process as `analysis`, in order.
    std::vector<AnalysisPtr> sameProcess(const AnalysisPtr& analysis) const;

    AnalysisPtr current() const { return current_; }
    AnalysisPtr baseline() const { return baseline_; }
    AnalysisPtr middle() const { return middle_; }

    // Each must be null or an open snapshot (anything else is ignored). A
    // role given to the current snapshot, or a middle without a baseline, is
    // cleared: a snapshot is never compared with itself.
    void setCurrent(const AnalysisPtr& analysis);
    void setBaseline(const AnalysisPtr& analysis);
    void setMiddle(const AnalysisPtr& analysis);

    bool autoBaseline() const { return auto_baseline_; }
    void setAutoBaseline(bool on) { auto_baseline_ = on; }

signals:
    // `analysis` was closed (it is no longer in snapshots()); sent before
    // the snapshotsChanged that follows.
    void snapshotClosed(const refscope::app::AnalysisPtr& analysis, refscope::app::SnapshotTimeline::CloseReason reason);
    // Snapshots were added, removed or reordered.
    void snapshotsChanged();
    void currentChanged(const refscope::app::AnalysisPtr& current);
    // The current, baseline or middle snapshot changed: what the comparison
    // is made of.
    void comparisonChanged();

private:
    // Clears roles that no longer make sense; returns whether any changed.
    bool normaliseRoles();

    std::vector<AnalysisPtr> snapshots_;
    AnalysisPtr current_;
    AnalysisPtr baseline_;
    AnalysisPtr middle_;
    bool auto_baseline_ = true;
};

}  // namespace refscope::app

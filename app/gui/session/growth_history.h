// GrowthHistory: the growth chart's points of snapshots that are no longer
// open, per process (SnapshotTimeline::processKey). A live session keeps at
// most a few snapshots of a process open (LiveControls' open limit: each
// holds a whole analysis), yet "is it growing?" is answered by all of them:
// when the limit closes one, its per-type totals (a few hundred or thousand
// rows, not a heap) and its time, sequence number and label stay here, and
// the chart is drawn from these points plus the open snapshots' (one
// series builder, build_growth_series, over merge_samples' result).
//
// Bounded: at most `limit` points per process (500 by default, a few tens of
// MB at most for heaps of thousands of types); beyond it the oldest retained
// point is dropped. The open snapshots are not counted in the limit, so a
// live session's first snapshot, which LiveControls keeps open as the
// baseline, still starts the chart.
//
// What a person closes goes: GrowthPanel forgets one file's point when a
// person closes that snapshot, and the whole process's points when they
// close its last open snapshot. Widget-free, so it is tested alone.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include <QString>

#include "session/growth_series.h"

namespace refscope::app {

// Timeline order within a process, as SnapshotTimeline sorts snapshots:
// sequence number, then time, then file.
bool sample_before(const GrowthSample& a, const GrowthSample& b);

// One process's samples in timeline order: the retained points and the open
// snapshots' (each with totals). An open snapshot replaces a retained point
// of the same file (it was read again).
std::vector<GrowthSample> merge_samples(const std::vector<GrowthSample>& retained, std::vector<GrowthSample> open);

class GrowthHistory {
public:
    static constexpr size_t kDefaultLimit = 500;
    explicit GrowthHistory(size_t limit = kDefaultLimit) : limit_(limit < 1 ? 1 : limit) {}

    // Keeps `sample` (with totals) as a point of `process`, replacing one of
    // the same file; drops the process's oldest beyond the limit.
    void retain(const QString& process, GrowthSample sample);
    // A person closed the snapshot of `path`: its point goes.
    void forget(const QString& process, const QString& path);
    // A person closed the process's last open snapshot: all of it goes.
    void forget(const QString& process);
    void clear() { points_.clear(); }

    // The process's retained points, in timeline order.
    const std::vector<GrowthSample>& samples(const QString& process) const;
    size_t count(const QString& process) const { return samples(process).size(); }
    size_t limit() const { return limit_; }

private:
    size_t limit_;
    std::map<QString, std::vector<GrowthSample>> points_;
};

}  // namespace refscope::app

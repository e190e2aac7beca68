// GrowthSeries: how the objects and shallow bytes of the fastest growing
// types change across the snapshots of one process (issue 16, item 5: the
// first thing Chrome DevTools' allocation timeline shows). The data behind
// the window's growth chart, kept free of widgets so it is tested alone.
//
// A heap has hundreds or thousands of types and most of them hold still; a
// chart of all of them is noise. The lines shown are the top `top` types by
// growth (last snapshot minus first, in the measure shown: objects or bytes),
// because a leak is a type that keeps growing; plus the type a person chose
// (the selected leak suspect) when it is not among them, so the chart always
// answers "is this one growing?". Growth is measured from first to last,
// not as a peak: a type that rose and fell back is a cache doing its job.
//
// Per snapshot, the type totals are counted once (count_types: one pass over
// the objects, off the GUI thread) and kept; building the series from them
// only merges and looks up names, so switching the measure or the chosen
// type never walks a heap again. The totals are small (one row per type), so
// they outlive the snapshot: a live session closes its older snapshots to
// bound memory, and their totals stay in the process's GrowthHistory
// (growth_history.h), whose points join the open snapshots' in one series.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <QString>

#include "refscope/analysis/grouping.h"
#include "refscope/snapshot.h"

namespace refscope::app {

// One snapshot's objects and shallow bytes per type name (the summary's
// rows: core's group_objects by type), sorted by name for lookups.
using TypeTotals = std::vector<analysis::GroupTotal>;
using TypeTotalsPtr = std::shared_ptr<const TypeTotals>;

// One pass over the snapshot's objects: call it once per snapshot, on a
// worker thread for big heaps.
TypeTotalsPtr count_types(const Snapshot& snapshot);

// One snapshot of the process, in timeline order.
struct GrowthSample {
    uint64_t sequence = 0;     // the probe's sequence number, 0 if none
    int64_t time_unix_ns = 0;  // when it was taken, 0 if unknown
    QString label;             // SnapshotTimeline::snapshotLabel
    TypeTotalsPtr totals;      // never null in a series
    // The file's canonical path, "" for one made in memory: a snapshot read
    // again (reloaded, reopened from a session folder) replaces the point
    // its earlier reading left in the history (growth_history.h).
    QString path;
};

enum class GrowthMeasure { Objects, Bytes };

struct GrowthLine {
    std::string type;
    std::vector<uint64_t> objects;  // one per sample; 0 where the type had none
    std::vector<uint64_t> bytes;
    bool chosen = false;  // the type a person chose (the selected suspect's)

    const std::vector<uint64_t>& values(GrowthMeasure measure) const {
        return measure == GrowthMeasure::Objects ? objects : bytes;
    }
    // Last sample minus first.
    int64_t growth(GrowthMeasure measure) const;
};

struct GrowthSeries {
    GrowthMeasure measure = GrowthMeasure::Bytes;
    std::vector<GrowthSample> samples;
    // The top growing types, most growth first (only types that grew), then
    // the chosen type if it is not among them. Empty with fewer than two
    // samples.
    std::vector<GrowthLine> lines;
    // Every sample has a time and they increase: the x axis is time, so the
    // slope of a line is a rate. Otherwise samples are evenly spaced.
    bool timed = false;
    int current = -1;  // the sample shown in the window, -1 if none

    // The x position of a sample: seconds since the first when timed, else
    // its index.
    double x(size_t sample) const;
    // "#3", or the index from 1 when the probe gave no sequence numbers.
    QString shortLabel(size_t sample) const;
    const GrowthLine* chosenLine() const;
};

inline constexpr size_t kGrowthTopTypes = 8;

GrowthSeries build_growth_series(std::vector<GrowthSample> samples, GrowthMeasure measure,
                                 std::string_view chosen_type = {}, size_t top = kGrowthTopTypes);

}  // namespace refscope::app

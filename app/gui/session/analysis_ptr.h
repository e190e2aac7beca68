// The handle every part of the app keeps on a loaded snapshot. The analysis
// is immutable once loaded, so any thread may read it; shared ownership lets
// a snapshot closed in the window live on until the last model or background
// job reading it lets go.
#pragma once

#include <memory>

#include <QMetaType>

#include "refscope/analysis/snapshot_analysis.h"

namespace refscope::app {

using AnalysisPtr = std::shared_ptr<const analysis::SnapshotAnalysis>;

// Both are analyses of one snapshot in memory: the census shown while the
// file's graph was analysed, and that analysis when it is done
// (SnapshotAnalysis::analyse_read shares the snapshot read).
inline bool same_snapshot(const AnalysisPtr& a, const AnalysisPtr& b) {
    return a && b && &a->snapshot() == &b->snapshot();
}

}  // namespace refscope::app

Q_DECLARE_METATYPE(refscope::app::AnalysisPtr)

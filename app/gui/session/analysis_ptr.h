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

}  // namespace refscope::app

Q_DECLARE_METATYPE(refscope::app::AnalysisPtr)

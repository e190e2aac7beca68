// The columns a filter expression reads (FilterContext), taken from a
// SnapshotAnalysis. The app's filter bar and the CLI's query, summary
// --filter and diff --filter build them here, so one query means the same
// thing in both.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "refscope/analysis/filter_query.h"
#include "refscope/analysis/snapshot_analysis.h"

namespace refscope::analysis {

// The stages of SnapshotAnalysis that a query with these needs reads: none
// beyond the snapshot for `size>1MB`, the dominator tree for `retained>1MB`.
AnalysisOptions analysis_options_for(const FilterNeeds& needs);

// Members refer to each other: built in place, never moved.
class FilterColumns {
public:
    // Takes what `needs` asks for from `analysis`; a column whose stage the
    // analysis lacks stays empty, so a query reading it fails to compile with
    // FilterContextError. `is_new` is the comparison's column (empty: the
    // `new` flag is refused); `suspects` overrides the analysis' own ranking
    // (a comparison's, with growth evidence). Both must outlive the columns.
    FilterColumns(const SnapshotAnalysis& analysis, const FilterNeeds& needs,
                  std::span<const uint8_t> is_new = {}, const LeakSuspects* suspects = nullptr);
    FilterColumns(const FilterColumns&) = delete;
    FilterColumns& operator=(const FilterColumns&) = delete;

    const FilterContext& context() const { return context_; }

private:
    std::vector<uint64_t> retained_;
    std::vector<uint8_t> in_cycle_;
    FilterContext context_;
};

}  // namespace refscope::analysis

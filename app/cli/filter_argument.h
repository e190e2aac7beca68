// A --filter argument (query, summary --filter, diff --filter): parsed, and
// evaluated against a snapshot loaded with the stages it reads
// (analysis::analysis_options_for; the columns are core's FilterColumns,
// the same the app's filter bar uses).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "refscope/analysis/filter_query.h"
#include "refscope/analysis/snapshot_analysis.h"

namespace refscope::cli {

// A filter expression the verb cannot evaluate: bad syntax, or a field or
// flag this verb has no column for. Exit status 2: the user can fix it.
class FilterUsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws FilterUsageError ("bad filter: … at column N …").
analysis::FilterQuery parse_filter_argument(const std::string& text);

// The analysis stages the --filter reads (none beyond the snapshot without
// one), for the snapshot whose objects it selects. Throws FilterUsageError.
analysis::AnalysisOptions stages_for_filter(const std::optional<std::string>& filter);

// The nodes matching `query`, increasing. `is_new` is the diff's column
// (empty: the `new` flag is refused). Throws FilterUsageError when the query
// needs a column this verb lacks.
std::vector<uint32_t> select_filtered(const analysis::FilterQuery& query, const analysis::SnapshotAnalysis& analysis,
                                      std::span<const uint8_t> is_new = {});

}  // namespace refscope::cli

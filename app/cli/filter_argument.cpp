#include "filter_argument.h"

#include "refscope/analysis/filter_columns.h"

namespace refscope::cli {

using namespace refscope::analysis;

FilterQuery parse_filter_argument(const std::string& text) {
    try {
        return parse_filter(text);
    } catch (const FilterSyntaxError& e) {
        throw FilterUsageError(std::string("bad filter: ") + e.what());
    }
}

AnalysisOptions stages_for_filter(const std::optional<std::string>& filter) {
    if (!filter) return AnalysisOptions::snapshot_only();
    return analysis_options_for(filter_needs(parse_filter_argument(*filter)));
}

std::vector<uint32_t> select_filtered(const FilterQuery& query, const SnapshotAnalysis& analysis,
                                      std::span<const uint8_t> is_new) {
    const FilterColumns columns(analysis, filter_needs(query), is_new);
    try {
        return select_nodes(query, columns.context());
    } catch (const FilterContextError& e) {
        std::string message = std::string("bad filter: ") + e.what();
        if (e.term() == "new") message += " (only 'diff --filter' knows which objects are new)";
        throw FilterUsageError(message);
    }
}

}  // namespace refscope::cli

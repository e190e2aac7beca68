#include "refscope/analysis/filter_columns.h"

namespace refscope::analysis {

AnalysisOptions analysis_options_for(const FilterNeeds& needs) {
    AnalysisOptions options = AnalysisOptions::snapshot_only();
    options.graph = needs.index || needs.roots || needs.paths;
    options.dominators = needs.retained;
    options.cycles = needs.cycles;
    options.suspects = needs.suspects;
    return options;
}

FilterColumns::FilterColumns(const SnapshotAnalysis& analysis, const FilterNeeds& needs,
                             std::span<const uint8_t> is_new, const LeakSuspects* suspects) {
    const Snapshot& s = analysis.snapshot();
    const size_t node_count = s.node_count();
    context_.snapshot = &s;
    if (analysis.has_graph()) {
        context_.index = &analysis.index();
        context_.roots = &analysis.roots();
        context_.paths = &analysis.paths();
    }
    if (is_new.size() == node_count) context_.is_new = is_new;
    if (needs.retained && analysis.dominators()) {
        const DominatorTree& tree = *analysis.dominators();
        retained_.resize(node_count);
        for (uint32_t n = 0; n < node_count; ++n) retained_[n] = tree.retained_size(n);
        context_.retained = retained_;
    }
    if (needs.cycles && analysis.cycles()) {
        // cycle_of() is kNoCycle outside a non-trivial component (two or
        // more objects, or a self loop): exactly the filter's `cycle` flag.
        const std::span<const uint32_t> cycle_ids = analysis.cycles()->cycle_ids();
        in_cycle_.resize(node_count);
        for (size_t n = 0; n < node_count; ++n) in_cycle_[n] = cycle_ids[n] != kNoCycle;
        context_.in_cycle = in_cycle_;
    }
    if (!suspects) suspects = analysis.suspects();
    // The per-node column marks objects in high-confidence rows.
    if (suspects && suspects->node_column().size() == node_count) context_.suspect = suspects->node_column();
}

}  // namespace refscope::analysis

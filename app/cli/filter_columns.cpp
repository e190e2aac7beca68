#include "filter_columns.h"

#include "refscope/analysis/leak_suspects.h"

namespace refscope::cli {

using namespace refscope::analysis;

FilterQuery parse_filter_argument(const std::string& text) {
    try {
        return parse_filter(text);
    } catch (const FilterSyntaxError& e) {
        throw FilterUsageError(std::string("bad filter: ") + e.what());
    }
}

FilterColumns::FilterColumns(const Snapshot& snapshot, const FilterNeeds& needs,
                             std::span<const uint8_t> is_new)
    : snapshot_(&snapshot), is_new_(is_new) {
    const bool want_paths = needs.paths || needs.retained || needs.cycles || needs.suspects;
    const bool want_roots = needs.roots || want_paths;
    if (needs.index || want_roots) index_.emplace(snapshot);
    if (want_roots) roots_.emplace(*index_);
    if (want_paths) paths_.emplace(*index_, *roots_);
    const size_t n = snapshot.node_count();
    // The columns are all the filter keeps; the analyses behind them go at once.
    std::optional<DominatorTree> tree;
    std::optional<Cycles> cycles;
    if (needs.retained || needs.suspects) tree.emplace(*index_, *roots_);
    if (needs.cycles || needs.suspects) cycles.emplace(*index_, *roots_, *paths_);
    if (needs.retained) {
        retained_.resize(n);
        for (uint32_t node = 0; node < n; ++node) retained_[node] = tree->retained_size(node);
    }
    if (needs.cycles) {
        // cycle_of() is kNoCycle for every node outside a non-trivial
        // component (two or more objects, or a self loop).
        in_cycle_.resize(n);
        for (uint32_t node = 0; node < n; ++node) in_cycle_[node] = cycles->cycle_of(node) != kNoCycle;
    }
    if (needs.suspects) {
        // Evidence from this snapshot alone (no baseline): the per-node
        // column marks objects in high-confidence rows.
        SuspectInputs inputs;
        inputs.index = &*index_;
        inputs.roots = &*roots_;
        inputs.paths = &*paths_;
        inputs.dominators = &*tree;
        inputs.cycles = &*cycles;
        const LeakSuspects suspects(inputs);
        suspect_.assign(suspects.node_column().begin(), suspects.node_column().end());
    }
}

std::vector<uint32_t> FilterColumns::select(const FilterQuery& query) const {
    FilterContext context;
    context.snapshot = snapshot_;
    context.index = index_ ? &*index_ : nullptr;
    context.roots = roots_ ? &*roots_ : nullptr;
    context.paths = paths_ ? &*paths_ : nullptr;
    context.retained = retained_;
    context.in_cycle = in_cycle_;
    context.is_new = is_new_;
    context.suspect = suspect_;
    try {
        return select_nodes(query, context);
    } catch (const FilterContextError& e) {
        std::string message = std::string("bad filter: ") + e.what();
        if (e.term() == "new") message += " (only 'diff --filter' knows which objects are new)";
        throw FilterUsageError(message);
    }
}

}  // namespace refscope::cli

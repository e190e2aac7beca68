// The analyses a filter expression reads, built on demand: `query FILE
// 'size>1MB'` needs none, `retained>1MB` the whole dominator tree. Shared by
// query, summary --filter and diff --filter.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/filter_query.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"

namespace refscope::cli {

// A filter expression the verb cannot evaluate: bad syntax, or a field or
// flag this verb has no column for. Exit status 2: the user can fix it.
class FilterUsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws FilterUsageError ("bad filter: … at column N …").
analysis::FilterQuery parse_filter_argument(const std::string& text);

// Members refer to each other: built in place, never moved.
class FilterColumns {
public:
    // Builds what `needs` asks for (and what that depends on). `is_new` is
    // the diff's column (empty: the `new` flag is refused).
    FilterColumns(const Snapshot& snapshot, const analysis::FilterNeeds& needs,
                  std::span<const uint8_t> is_new = {});
    FilterColumns(const FilterColumns&) = delete;
    FilterColumns& operator=(const FilterColumns&) = delete;

    // Compiles `query` against the columns; throws FilterUsageError when it
    // needs one this verb lacks.
    std::vector<uint32_t> select(const analysis::FilterQuery& query) const;

    const Snapshot& snapshot() const { return *snapshot_; }
    const analysis::RootClasses* roots() const { return roots_ ? &*roots_ : nullptr; }

private:
    const Snapshot* snapshot_;
    std::optional<analysis::GraphIndex> index_;
    std::optional<analysis::RootClasses> roots_;
    std::optional<analysis::RetentionPaths> paths_;
    std::vector<uint64_t> retained_;
    std::vector<uint8_t> in_cycle_;
    std::vector<uint8_t> suspect_;
    std::span<const uint8_t> is_new_;
};

}  // namespace refscope::cli

// What the leak-suspects tests share: a type's two rows and a substring check
// for their sentences (snapshots are analysed with testing::analyse, the
// app's and the CLI's pipeline).
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "analyse.h"
#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/leak_suspects.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"

namespace refscope::testing {


// A type name's high- and low-confidence rows (nullptr where it has none).
inline std::pair<const analysis::SuspectGroup*, const analysis::SuspectGroup*> rows_of(
    const analysis::LeakSuspects& suspects, std::string_view type) {
    const analysis::SuspectGroup* high = nullptr;
    const analysis::SuspectGroup* low = nullptr;
    for (const analysis::SuspectGroup& g : suspects.groups()) {
        if (g.type != type) continue;
        (g.confidence == analysis::SuspectConfidence::High ? high : low) = &g;
    }
    return {high, low};
}

inline bool contains(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

}  // namespace refscope::testing

// Which objects a row of the suspects or the diff table stands for, so that
// choosing the row lists them in the objects panel. One pass over the node
// columns with a per-type-id match table (a few milliseconds per million
// objects).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "refscope/analysis/leak_suspects.h"
#include "refscope/snapshot.h"

namespace refscope::app {

// Objects whose type is called `type_name` and, when `keep` is set, for
// which it returns true. Increasing ids.
std::vector<uint32_t> objects_of_type(const Snapshot& snapshot, std::string_view type_name,
                                      const std::function<bool(uint32_t)>& keep = {});

// The objects a suspect row accuses: those of its type with evidence against
// them in a row of its confidence (LeakSuspects::node_column for a high row,
// in_low_confidence_row for a low one), not every object of the type.
std::vector<uint32_t> objects_of_suspect(const Snapshot& snapshot, const analysis::LeakSuspects& suspects,
                                         const analysis::SuspectGroup& row);

}  // namespace refscope::app

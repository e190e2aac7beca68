// Objects and shallow bytes per type or per module: the first answer to "what
// is using the memory?" (the CLI's `summary`, the app's summary view).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "refscope/snapshot.h"

namespace refscope::analysis {

enum class GroupBy { Type, Module };

struct GroupTotal {
    std::string name;
    uint64_t objects = 0;
    uint64_t bytes = 0;  // shallow sizes
};

// One entry per distinct type name (or module name), most bytes first, then
// most objects, then by name. Types that share a name (two classes `Node` in
// one module) are one group: a person cannot tell them apart by name anyway.
std::vector<GroupTotal> group_objects(const Snapshot& snapshot, GroupBy by);

}  // namespace refscope::analysis

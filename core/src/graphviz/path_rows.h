// A long retention path wrapped into rows, as text wraps into lines.
//
// dot draws a path of N objects left to right as N columns: 12 hops made an
// exported PNG of 2617×168 pixels, unreadable without zooming, and top to
// bottom is the same strip turned on its side. Graphviz has no wrapping of
// its own, so the renderer makes it: the path's objects are cut into rows of
// about √(1.5·N) (rows about 1.5 times as wide as the picture is tall, the
// shape of a screen), each row one rank (`rank=same`, its path edges then
// flat edges, which dot draws left to right), the graph laid out top to
// bottom, and the edge from the end of one row to the start of the next
// given `minlen=2` so each row's other neighbours get a rank of their own
// beneath it instead of crowding into the next row.
#pragma once

#include <cstdint>
#include <vector>

#include "refscope/analysis/subgraph.h"

namespace refscope::graphviz {

// Paths of at most this many objects stay one row.
inline constexpr size_t kLongestUnwrappedPath = 6;

// The rows (subgraph node indexes, in path order) of the subgraph's path, or
// nothing when it is not to be wrapped: no more than kLongestUnwrappedPath
// objects on it, clusters drawn (a rank=same row may not cross a cluster's
// frame), or the on-path edges not one simple chain (several paths or
// targets: wrapping one would tangle the others).
std::vector<std::vector<uint32_t>> path_rows(const analysis::Subgraph& subgraph);

inline constexpr uint32_t kNoRow = 0xFFFFFFFFu;


}  // namespace refscope::graphviz

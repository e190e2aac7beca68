// Where objects were allocated (Snapshot::allocations, read by the probe
// from tracemalloc: docs/probe.md, "Allocation sites"): the text of a frame
// and of a traceback, an object's site, and a set of objects counted by
// the line that allocated them ("298 of 300 from app/views.py:12 in
// create_order").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "refscope/snapshot.h"

namespace refscope::analysis {

inline constexpr uint32_t kNoFrame = 0xFFFFFFFFu;

// "app/views.py:12 in create_order" ("app/views.py:12" when the probe found
// no function for the line).
std::string frame_text(const Snapshot& s, uint32_t frame);

// The frame ids of the node's traceback, the most recent call first; empty
// when the node was not traced.
std::vector<uint32_t> allocation_frames(const Snapshot& s, uint32_t node);

// Whether a frame's file is the program's own rather than the standard
// library's or an installed package's (site-packages, dist-packages,
// lib/pythonX.Y, frozen modules): the line a user would change.
bool is_program_frame(const Snapshot& s, uint32_t frame);

// The node's allocation site: the most recent frame of its traceback that is
// the program's own, else the most recent frame; kNoFrame if not traced.
uint32_t allocation_site(const Snapshot& s, uint32_t node);

// allocation_site() of every traceback at once (index: traceback id), for
// passes that look at many nodes: each traceback's frames are read once.
std::vector<uint32_t> sites_by_traceback(const Snapshot& s);

struct SiteCount {
    uint32_t frame = kNoFrame;
    uint64_t objects = 0;
};

struct SiteBreakdown {
    uint64_t objects = 0;          // objects counted
    uint64_t traced = 0;           // of them, with a traceback
    std::vector<SiteCount> sites;  // the busiest sites, most objects first
};

// "298 of 300 from app/views.py:12 in create_order, 2 from app/admin.py:40
// in import_orders"; "" when none of the objects was traced.
std::string describe_sites(const Snapshot& s, const SiteBreakdown& b);

}  // namespace refscope::analysis

// What each verb reports, as plain data: the verbs fill these from the
// analysis, and text_output / json_output only render them. Keeping the two
// renderers on the same data keeps `--json` and the text saying the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arguments.h"
#include "refscope/analysis/grouping.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/snapshot.h"

namespace refscope::cli {

struct NodeReport {
    uint32_t id = 0;
    uint64_t address = 0;
    std::string type;
    std::optional<std::string> preview;  // raw preview text, if any
    std::string description;             // describe_node()
    uint64_t size = 0;
    int64_t refcount = 0;
    std::optional<int64_t> surplus;      // empty for immortal and native objects
    int64_t unexplained = 0;
    bool immortal = false;
    bool native = false;
    // Where it was allocated, when the snapshot has tracebacks
    // (analysis/allocation_sites.h): frame_text() of each frame, the most
    // recent first, and of the site (the program's own line).
    bool has_allocations = false;  // the snapshot has tracebacks at all
    std::vector<std::string> allocated;
    std::string allocation_site;
};

struct RootReport {
    std::string kind;    // "interpreter", "thread stack", "extension"
    std::string label;
    std::string thread;  // thread name for thread-stack roots, else ""
    uint32_t count = 1;  // 0 = all of the object's surplus
};

struct HopReport {
    std::string edge;       // describe_edge()
    std::string edge_kind;  // edge_kind_name()
    bool owned = false;
    bool gc_visible = false;    // the raw flag: tp_traverse reports it
    bool gc_invisible = false;  // GraphIndex::hidden_from_gc
    bool inferred = false;      // format::kEdgeInferred: read from the holder's memory
    NodeReport node;
};

struct InfoReport {
    std::string file;
    const Snapshot* snapshot = nullptr;  // without edges (format::SnapshotOutline)
    uint64_t references = 0;             // the Edges section's count
    uint64_t gc_tracked = 0, immortal = 0, native = 0, type_objects = 0, bytes = 0;
};

struct SummaryReport {
    std::string file;
    analysis::GroupBy by = analysis::GroupBy::Type;
    std::optional<std::string> filter;  // --filter: only the matching objects are counted
    uint64_t objects = 0, bytes = 0;
    uint64_t group_count = 0;                  // all groups
    std::vector<analysis::GroupTotal> groups;  // the shown ones
};

struct RootClassRow {
    std::string kind;
    uint64_t records = 0, objects = 0, references = 0;
};

struct RootsReport {
    std::string file;
    uint64_t objects = 0;
    uint64_t reachable = 0;  // from explained roots
    std::vector<RootClassRow> classes;  // interpreter, thread stack, extension, unexplained
    uint64_t unexplained_objects = 0;
    std::vector<NodeReport> unexplained;  // most unexplained first, up to --top
    uint64_t negative_objects = 0;
    std::vector<NodeReport> negative;
    uint64_t overexplained_references = 0;
    uint64_t invalid_root_records = 0;
};

// An object its own finalizer keeps alive (analysis/finalizer_traps.h).
struct FinalizerReport {
    std::string via;   // trap_holder_name()
    std::string text;  // describe_finalizer_trap()
    std::string note;  // finalizer_path_note()
    NodeReport referent;
    NodeReport weakref;
    NodeReport callback;
    NodeReport holder;
};

struct PathReport {
    std::string file;
    bool found = false;
    NodeReport target;
    // found:
    std::optional<RootReport> root;
    NodeReport root_node;
    std::vector<HopReport> hops;  // after root_node; empty when the target is a root
    // The path runs through the state of a finalizer waiting for an object
    // further along it.
    std::optional<FinalizerReport> finalizer;
    // not found:
    std::string reason;  // reason_name()
    std::string explanation;
    int64_t unexplained = 0;
    std::optional<NodeReport> holder;
    std::vector<HopReport> holder_hops;  // holder → … → target
    bool search_truncated = false;
    // An inference (analysis/inferred_holders.h): the object with surplus
    // probably is held by this wrapper's C++ member.
    std::optional<NodeReport> likely_holder;
    std::vector<HopReport> likely_holder_hops;  // the object with surplus → … → likely_holder
    // --type:
    std::string type_name;  // empty for --to
    uint64_t instances = 0;
    uint64_t reachable_instances = 0;
};

struct ReferrersReport {
    std::string file;
    NodeReport target;
    uint32_t owned_in = 0;
    analysis::SurplusBreakdown breakdown;
    std::optional<uint32_t> distance;  // hops from the nearest root
    uint64_t referrer_count = 0;
    std::vector<HopReport> referrers;  // edge + the referring object
    std::vector<RootReport> roots;
};

}  // namespace refscope::cli

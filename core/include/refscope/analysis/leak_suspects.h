// LeakSuspects: "what is leaking?" as a short ranked list, one row per type,
// each with its reasons in plain words (docs/leak-suspects.md).
//
// It reads the analyses of the current snapshot (roots, retention paths,
// dominator tree, cycles) and, when given, a diff against a baseline or a
// three-snapshot survivor report, and marks every object with the kinds of
// evidence against it:
//
//   unexplained surplus   references nobody in the graph accounts for
//   unreachable           no path from the explained roots, kept alive by an
//                         object with unexplained surplus or by an
//                         uncollectable cycle (the row names that holder)
//   uncollectable cycle   member of a cycle Cycles calls uncollectable
//   growth                new object of a type that grew since the baseline
//   survivor              allocated between snapshots 1 and 2, alive in 3
//   own finalizer         kept alive only by the state of a weak-reference
//                         callback waiting for it to be freed (a finalizer
//                         trap, finalizer_traps.h): it never goes
//   growing holder        (with a baseline) new object that leads a growth:
//                         the topmost new object of a program type below an
//                         old object, its holder; the new objects around and
//                         below it are parts of its growth, not evidence of
//                         their own (the row names the holder)
//   large retained        among the objects retaining the most bytes, or
//                         (with a diff or survivors) the object where the
//                         growth accumulates: the deepest one whose
//                         dominator subtree holds more than half of the new
//                         or surviving objects
//
// Rows are grouped by type NAME (as the diff and the summary group), so one
// leak of 10,000 objects is one row, and a type with several kinds of evidence
// is one row listing every reason: the kinds reinforce each other in the
// score instead of scattering the same leak over several rows.
//
// Real heaps hold hundreds of objects with unexplained surplus that are the
// interpreter's own C statics (interned identifier strs, static type
// internals, extension-module state). Such surplus — on objects of a static
// or standard-library type that retain little — and whatever those objects
// alone keep alive go to separate low-confidence rows of the same type, sorted
// after every high-confidence row. Rows whose only evidence is a large
// retained size are low confidence too — big is not leaking — except the
// accumulation point of the growth.
//
// Everything is a few passes over flat per-node arrays plus one forward
// search over the unreachable part of the graph; no per-node heap objects.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/analysis/allocation_sites.h"
#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/finalizer_traps.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/analysis/snapshot_diff.h"

namespace refscope::analysis {

// Bits of SuspectGroup::kinds and of the per-node column.
enum SuspectKind : uint8_t {
    kSuspectUnexplainedSurplus = 0x01,
    kSuspectUnreachable = 0x02,
    kSuspectUncollectableCycle = 0x04,
    kSuspectGrowth = 0x08,
    kSuspectSurvivor = 0x10,
    kSuspectLargeRetained = 0x20,
    kSuspectOwnFinalizer = 0x40,
    kSuspectGrowingHolder = 0x80,
};
inline constexpr int kSuspectKindCount = 8;

// "unexplained surplus", "unreachable", "uncollectable cycle", "growth",
// "survivor", "large retained", "own finalizer", "growing holder" (also the
// JSON names). `kind`
// is one bit.
std::string_view suspect_kind_name(uint8_t kind);
// The names of the set bits, in bit order, joined with ", ".
std::string suspect_kind_names(uint8_t kinds);

enum class SuspectConfidence : uint8_t {
    High = 0,  // evidence of a leak
    Low = 1,   // probably the interpreter's own C statics, or only "large"
};
std::string_view suspect_confidence_name(SuspectConfidence confidence);  // "high", "low"

// Modules whose types count as the interpreter's own (builtins, sys, _io,
// collections, ...): their objects with unexplained surplus are probably held
// by C statics. Exact names; the empty module name counts too.
bool is_interpreter_module(std::string_view module);

struct SuspectInputs {
    const GraphIndex* index = nullptr;        // required
    const RootClasses* roots = nullptr;       // required
    const RetentionPaths* paths = nullptr;    // required
    const DominatorTree* dominators = nullptr;  // required
    const Cycles* cycles = nullptr;           // required
    // Optional: baseline → current (the current snapshot is the diff's B).
    const SnapshotDiff* diff = nullptr;
    // Optional: snapshots 1, 2 → current (the current snapshot is the third).
    const SurvivorReport* survivors = nullptr;
};

struct SuspectOptions {
    size_t sample_size = 8;         // node ids kept per row
    size_t top_retained = 10;       // how many top retainers count as "large retained"
    // Surplus on an interpreter-type object that retains at least this much
    // is evidence, not noise.
    uint64_t noise_retained_limit = 1ull << 20;
    // Growth evidence needs at least this many more objects of the type than
    // the baseline had: two snapshots of a live process always differ by a
    // few dicts and tuples.
    uint64_t min_growth_objects = 10;
    // With a diff or survivors: the object where the growth accumulates
    // (see LeakSuspects) must hold at least this many new/surviving objects.
    uint64_t min_accumulated_objects = 10;
    // Leave the low-confidence rows out of groups() (the per-node column
    // never marks them either way).
    bool include_low_confidence = true;
};

// One row: a type name with its evidence.
struct SuspectGroup {
    std::string type;           // type name, "app.Leaky"
    std::string module;         // its module, "app"
    uint8_t kinds = 0;          // SuspectKind bits
    SuspectConfidence confidence = SuspectConfidence::High;
    double score = 0;           // see docs/leak-suspects.md
    uint64_t objects = 0;       // distinct objects of the row
    uint64_t shallow_bytes = 0;
    // Sum of the retained sizes of the row's objects that are not immediately
    // dominated by another object of the row (a chain of 1,000 app.Node is
    // counted once, at its head).
    uint64_t retained_bytes = 0;
    uint32_t representative = kNoNode;  // largest retained size, then lowest id
    std::vector<uint32_t> sample;       // up to sample_size node ids, increasing

    // Per kind details (0 / kNoNode when the kind is absent).
    uint64_t surplus_objects = 0;
    int64_t unexplained_references = 0;
    uint64_t unreachable_objects = 0;
    uint32_t holder = kNoNode;          // the holder keeping most of them (a node)
    uint64_t holder_objects = 0;        // how many of them it keeps
    uint32_t holder_count = 0;          // distinct holders (nodes or cycles)
    uint64_t cycle_objects = 0;
    uint32_t cycle_count = 0;           // uncollectable cycles with members of this type
    uint32_t cycle = kNoCycle;          // the one with the most bytes
    int64_t growth_objects = 0;         // count delta since the baseline
    int64_t growth_bytes = 0;           // shallow byte delta
    uint64_t objects_before = 0;        // in the baseline
    uint64_t new_objects = 0;           // new since the baseline (diff's is_new)
    uint64_t survivor_objects = 0;
    uint64_t survivor_bytes = 0;
    uint64_t large_objects = 0;         // among the top retainers (or the accumulation point)
    uint64_t largest_retained = 0;
    // The row holds the accumulation point: the deepest object whose
    // dominator subtree holds more than half of the new/surviving objects.
    uint32_t accumulation_node = kNoNode;
    uint64_t accumulated_objects = 0;   // new/surviving objects it dominates
    uint64_t lead_objects = 0;          // new objects leading a growth (growing holder)
    uint32_t lead_holder = kNoNode;     // the old object holding most of them
    uint64_t lead_holder_objects = 0;   // how many it holds
    std::string lead_holder_name;       // its name along its retention path ("shop.views.RECENT_ORDERS"), or ""
    uint64_t finalizer_objects = 0;     // kept alive by their own finalizer
    FinalizerTrap finalizer_trap;       // the first of them (referent kNoNode if none)

    // An inference (inferred_holders.h), not evidence: the wrapper whose C++
    // member probably holds `likely_held` (the row's holder, or one of its
    // objects with unexplained surplus); its sentence ends the reason it
    // explains. kNoNode when nothing was inferred.
    uint32_t likely_holder = kNoNode;
    uint32_t likely_held = kNoNode;

    // Where the row's objects were allocated, when the snapshot has
    // tracebacks (allocation_sites.h): how many were traced, the three
    // busiest sites, and their sentence ("298 of 300 from
    // app/views.py:12 in create_order"), which ends `reason` too.
    uint64_t traced_objects = 0;
    std::vector<SiteCount> allocation_sites;
    std::string allocation_text;

    std::vector<std::string> reasons;   // one sentence per kind, in bit order
    std::string reason;                 // the sentences joined with "; "
};

class LeakSuspects {
public:
    // Throws std::invalid_argument when a required input is missing or a
    // diff/survivor column does not have one entry per node of the snapshot.
    explicit LeakSuspects(const SuspectInputs& inputs, const SuspectOptions& options = {});

    // High confidence first, then by score (descending), objects
    // (descending), type name, and low-confidence rows last in the same order.
    const std::vector<SuspectGroup>& groups() const { return groups_; }
    size_t high_confidence_count() const { return high_count_; }

    // One byte per node: the SuspectKind bits of the evidence against it in a
    // high-confidence row, 0 otherwise. FilterContext::suspect reads it.
    std::span<const uint8_t> node_column() const { return node_kinds_; }

    // Whether the node is one of a low-confidence row's objects (which
    // node_column leaves 0): a low row of type `type` lists these, not every
    // type object. A bit per node.
    bool in_low_confidence_row(uint32_t node) const {
        return node < low_confidence_.size() && low_confidence_[node];
    }

    // Rows by type name (the first with that name: high before low), or null.
    const SuspectGroup* find(std::string_view type) const;

    // The objects with unexplained surplus (roots.unexplained_nodes()) in the
    // order this ranking weighs them: those in a high-confidence row for it
    // (a user's object with a leaked reference) before the interpreter's and
    // extensions' static state, each by references held, then node id. At
    // most `limit` (0: all). `roots` must be the RootClasses ranked here.
    std::vector<NodeCount> rank_unexplained(const RootClasses& roots, size_t limit = 0) const;

private:
    std::vector<SuspectGroup> groups_;
    std::vector<uint8_t> node_kinds_;
    std::vector<bool> low_confidence_;
    size_t high_count_ = 0;
};

}  // namespace refscope::analysis

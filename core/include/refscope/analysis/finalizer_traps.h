// Finalizer traps: objects kept alive by the very callback that waits for
// them to be freed.
//
// A weak reference with a callback (weakref.ref(obj, callback), the one
// weakref.finalize registers, a WeakKeyDictionary's key) calls it once its
// referent is freed. When the callback's own state holds the referent, the
// referent is never freed and the callback never runs: a leak by
// construction, and the shape of PyTorch's Dynamo leak where guard
// finalizers held the OutputGraph that held the user's model (reference 002).
//
// The callback's state, for a weak reference W to R with callback C, is:
//   - W itself and C (a closure or bound method capturing R),
//   - a dict value stored under C (weakref.finalize keeps its arguments in
//     a class-level registry, `finalize._registry[C] = info`, and info holds
//     W as `.weakref`),
//   - a dict value stored under W (a WeakKeyDictionary entry whose value
//     refers back to its key).
// R is trapped when one of those dominates it: every retention path from a
// root to R runs through it, so nothing but the callback's state keeps R.
// Along one retention path the test is weaker (the path runs through the
// state; another path may exist) and reads as such.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"

namespace refscope::analysis {

// Which part of the callback's state holds the referent.
enum class TrapHolder : uint8_t {
    Callback,        // the callback (or the weak reference) itself
    FinalizerEntry,  // a dict value stored under the callback: weakref.finalize's registry
    WeakKeyEntry,    // a dict value stored under the weak reference: a WeakKeyDictionary
};

// "callback", "finalizer entry", "weak key entry" (also the JSON names).
std::string_view trap_holder_name(TrapHolder via);

struct FinalizerTrap {
    uint32_t referent = kNoNode;  // the object the callback waits for
    uint32_t weakref = kNoNode;   // the weak reference carrying the callback
    uint32_t callback = kNoNode;  // the callback (weakref.finalize: the finalize object)
    uint32_t holder = kNoNode;    // the part of the callback's state that holds the referent
    TrapHolder via = TrapHolder::Callback;
};

// Every trapped object, by increasing referent id (one trap per referent:
// the first weak reference found; the holder is the state's node nearest
// the referent in the dominator tree). Dominance is tested with the tree's
// pre/post-order numbers (8 bytes per object, only when a weak reference
// with a callback exists).
std::vector<FinalizerTrap> find_finalizer_traps(const GraphIndex& index, const DominatorTree& dominators);

// Along one retention path (`nodes` from the root to the target): the first
// referent on the path whose callback's state appears before it on the path.
std::optional<FinalizerTrap> finalizer_trap_on_path(const GraphIndex& index, std::span<const uint32_t> nodes);
// The same along a RetentionPath (its root node, then each edge's target).
std::optional<FinalizerTrap> finalizer_trap_on_path(const GraphIndex& index, const RetentionPath& path);

// "weakref.finalize._Info @ 0x… (the state of a finalizer waiting for
// app.Model @ 0x… to be freed)": the holder and what it waits for, as the
// suspects and the path explain it.
std::string describe_finalizer_trap(const Snapshot& snapshot, const FinalizerTrap& trap);
// The note under a retention path that runs through a trap's holder ("finalizer
// trap: this path runs through …"), as the CLI and the app print it.
std::string finalizer_path_note(const Snapshot& snapshot, const FinalizerTrap& trap);

}  // namespace refscope::analysis

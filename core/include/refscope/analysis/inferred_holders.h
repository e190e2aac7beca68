// InferredHolders: who probably holds an object nobody in the graph accounts
// for — an inference, never a fact of the snapshot.
//
// An object X with unexplained surplus is held by references no object in
// the graph reports: a C/C++ holder, or a refcount leak. The nanobind page's
// cycles (a closure, a function's globals, a default argument or a bound
// method that reaches a wrapper whose C++ member holds the callable) look
// exactly like that when the extension does not describe its members: the
// member's reference is X's surplus, and X reaches the wrapper W through its
// own references. So when a short search over X's retaining out-edges finds
// an instance W of a type that
//
//   - the probe recorded facts for (format 1.1 type flags; none in 1.0 files),
//   - has no tp_traverse (no Py_TPFLAGS_HAVE_GC): the collector never sees
//     what W holds,
//   - nobody describes (no describe callback for the type, and no member
//     reported from W's C++ object when a recogniser put it in the graph: a
//     described W reports its members, so a reference of W's would not be
//     surplus),
//   - is not the interpreter's own (builtins, _io... hold no hidden members),
//
// X is probably held by a C++ member of W, and X → … → W → (C++ member) → X
// is a cycle the garbage collector cannot see. W == X (a wrapper holding
// itself) is not inferred: any C/C++ holder of a wrapper would look the same.
//
// The search is bounded (a few hops, a few thousand edges per object), so
// asking for every object with unexplained surplus stays cheap; it does not
// expand types or modules, which reach everything their program defines.
// Used by RetentionPaths::explain_unreachable, LeakSuspects' reasons, the
// CLI's `cycles` and the app (through those texts).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/root_classes.h"

namespace refscope::analysis {

struct InferenceLimits {
    uint32_t max_hops = 4;       // X → … → W: closure cell, defaults, globals, bound method
    uint32_t max_edges = 4096;   // edges looked at per object, whatever its fan-out
};

struct InferredHolder {
    uint32_t held = kNoNode;       // X: the object with unexplained surplus
    uint32_t holder = kNoNode;     // W: the wrapper whose C++ member probably holds X
    std::vector<uint32_t> edges;   // X → … → W, retaining edges
    int64_t unexplained = 0;       // X's unexplained references
    // "probably held by `_pybindfix.UndescribedWrapper` @ 0x… through a C++
    // member: the type has no tp_traverse, so the garbage collector cannot
    // see this cycle (inferred: …)".
    std::string text;
};

// W's test: an instance whose C/C++ members the snapshot cannot show and the
// collector cannot traverse (the list above).
bool untraversed_wrapper(const GraphIndex& index, uint32_t node);

// X's likely holder, or nullopt (no unexplained surplus, no type facts, no
// such wrapper within the limits).
std::optional<InferredHolder> infer_holder(const GraphIndex& index, const RootClasses& roots, uint32_t node,
                                           const InferenceLimits& limits = {});

// infer_holder for every object with unexplained surplus, by X's node id.
std::vector<InferredHolder> infer_holders(const GraphIndex& index, const RootClasses& roots,
                                          const InferenceLimits& limits = {});

}  // namespace refscope::analysis

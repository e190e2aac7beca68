#include "refscope/analysis/inferred_holders.h"

#include <unordered_map>

#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/display_text.h"
#include "refscope/analysis/leak_suspects.h"

namespace refscope::analysis {
namespace {

constexpr uint8_t kNotExpanded = format::kNodeNative | format::kNodeTypeObject;

bool is_module(const Snapshot& s, uint32_t node) {
    const uint32_t t = s.node_type[node];
    return t < s.types.size() && s.strings.view(s.types[t].name) == "module";
}

std::string inferred_text(const GraphIndex& index, const InferredHolder& h) {
    const Snapshot& s = index.snapshot();
    std::string chain;
    for (uint32_t e : h.edges) {
        if (!chain.empty()) chain += " \u2192 ";
        chain += describe_edge(s, e);
    }
    return "probably held by `" + std::string(type_name(s, h.holder)) + "` @ " +
           format_address(s.node_address[h.holder]) +
           " through a C++ member: the type has no tp_traverse, so the garbage collector cannot see this "
           "cycle (inferred: " + describe_node(s, h.held) + " reaches it through " + chain +
           ", and nothing describes the type's members)";
}

}  // namespace

bool untraversed_wrapper(const GraphIndex& index, uint32_t node) {
    const Snapshot& s = index.snapshot();
    if (s.node_flags[node] & (format::kNodeNative | format::kNodeTypeObject | format::kNodeImmortal)) return false;
    const uint32_t t = s.node_type[node];
    if (t >= s.types.size()) return false;
    const uint8_t flags = s.types[t].flags;
    // Unknown (a 1.0 file): no inference rather than a guess from node flags.
    if (!(flags & format::kTypeFactsRecorded)) return false;
    if (flags & (format::kTypeHasGc | format::kTypeDescribed)) return false;
    // Only a type a C++ binding library made (pybind11, nanobind: claimed
    // by a recogniser) wraps a C++ object with members nobody reported.
    // Other non-GC extension types — NumPy's dtypes and array methods — hold
    // their references in C the analysis cannot guess at: on a pandas
    // program, inferring through them named 60 false holders.
    if (!(flags & format::kTypeBound)) return false;
    if (is_interpreter_module(s.strings.view(s.types[t].module))) return false;
    // Its C++ object may be in the graph (the nanobind recogniser reports
    // every instance's); members reported from it (a recogniser that knows
    // them) describe the instance as well as a callback would.
    for (uint32_t e : index.out_edges(node)) {
        const uint32_t cpp = index.target(e);
        if ((s.node_flags[cpp] & format::kNodeNative) && index.out_degree(cpp) > 0) return false;
    }
    return true;
}

std::optional<InferredHolder> infer_holder(const GraphIndex& index, const RootClasses& roots, uint32_t node,
                                           const InferenceLimits& limits) {
    const Snapshot& s = index.snapshot();
    if (node >= index.node_count()) return std::nullopt;
    const int64_t unexplained = roots.unexplained(node);
    if (unexplained <= 0) return std::nullopt;

    // Breadth first over retaining out-edges, level by level so the hop bound
    // is exact; `toward` maps a reached node to the edge one step closer to X.
    std::unordered_map<uint32_t, uint32_t> toward{{node, kNoEdge}};
    std::vector<uint32_t> level{node};
    std::vector<uint32_t> next;
    uint32_t edges_seen = 0;
    uint32_t found = kNoNode;
    for (uint32_t hop = 0; hop < limits.max_hops && found == kNoNode && !level.empty(); ++hop) {
        next.clear();
        for (uint32_t at : level) {
            // Types and modules reach everything their program defines: a
            // wrapper found through them says nothing about X.
            if ((s.node_flags[at] & kNotExpanded) || is_module(s, at)) continue;
            for (uint32_t e : index.out_edges(at)) {
                if (++edges_seen > limits.max_edges) break;
                if (!index.retains(e)) continue;
                const uint32_t target = index.target(e);
                if (!toward.emplace(target, e).second) continue;
                if (untraversed_wrapper(index, target)) {
                    found = target;
                    break;
                }
                next.push_back(target);
            }
            if (found != kNoNode || edges_seen > limits.max_edges) break;
        }
        if (edges_seen > limits.max_edges) break;
        level.swap(next);
    }
    if (found == kNoNode) return std::nullopt;

    InferredHolder h;
    h.held = node;
    h.holder = found;
    h.unexplained = unexplained;
    for (uint32_t at = found; at != node;) {
        const uint32_t e = toward.at(at);
        h.edges.insert(h.edges.begin(), e);
        at = index.source(e);
    }
    h.text = inferred_text(index, h);
    return h;
}

std::vector<InferredHolder> infer_holders(const GraphIndex& index, const RootClasses& roots,
                                          const InferenceLimits& limits) {
    std::vector<InferredHolder> out;
    for (const NodeCount& n : roots.unexplained_nodes()) {
        if (auto h = infer_holder(index, roots, n.node, limits)) out.push_back(std::move(*h));
    }
    return out;
}

}  // namespace refscope::analysis

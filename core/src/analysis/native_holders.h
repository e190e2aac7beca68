// Native nodes (C/C++ objects reported through the probe's describe API)
// belong to the Python objects that hold them: when an analysis blames a
// reference whose source is a native node, it names the Python object above
// it and the C++ members in between ("Wrapper holds Wrapper::value").
// Shared by cycles.cpp and retention_paths.cpp (the cycle finder finds its
// chains walking forward, cycles.cpp; the rest here walks in-edges).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/graph_index.h"

namespace refscope::analysis::detail {

inline bool is_native(const Snapshot& s, uint32_t node) {
    return (s.node_flags[node] & format::kNodeNative) != 0;
}

// The edges from the nearest Python object down to `native`: breadth-first
// backwards over retaining in-edges, through native nodes only, visiting at
// most `limit` nodes. Empty if no Python object is found. (The cycle finder,
// which must not build the in-edges, walks forward instead: cycles.cpp.)
inline std::vector<uint32_t> python_holder_chain(const GraphIndex& index, uint32_t native,
                                                 size_t limit = 100'000) {
    const Snapshot& s = index.snapshot();
    std::unordered_map<uint32_t, uint32_t> toward{{native, kNoEdge}};  // node -> edge one step closer
    std::vector<uint32_t> queue{native};
    for (size_t head = 0; head < queue.size() && queue.size() < limit; ++head) {
        for (uint32_t e : index.in_edges(queue[head])) {
            const uint32_t source = index.source(e);
            if (!index.retains(e) || !toward.emplace(source, e).second) continue;
            if (is_native(s, source)) {
                queue.push_back(source);
                continue;
            }
            std::vector<uint32_t> chain;
            for (uint32_t at = source; at != native; at = index.target(chain.back()))
                chain.push_back(toward.at(at));
            return chain;
        }
    }
    return {};
}

// "Wrapper::value", "CallbackWrapper::value → PyCallback::function": the
// labels along a chain of edges, described edges by their bare label, and
// without the hop from a Python object to its own C++ object.
inline std::string native_chain_text(const Snapshot& s, const std::vector<uint32_t>& edges) {
    std::string text;
    for (uint32_t e : edges) {
        std::string hop;
        if (s.edge_kind[e] == static_cast<uint8_t>(format::EdgeKind::Native) &&
            !(s.edge_flags[e] & format::kEdgeInferred)) {
            const uint32_t label = s.edge_label[e];
            hop = label != 0 && label < s.strings.size() ? std::string(s.strings.view(label)) : "<native>";
            if (hop == "C++ object") continue;
        } else {
            hop = describe_edge(s, e);
        }
        if (!text.empty()) text += " \u2192 ";
        text += hop;
    }
    return text;
}

// For an edge the collector cannot see: the Python type that holds it and
// the reference as a person reads it. A native source is replaced by the
// Python object above it, `chain` being the edges from that object down to
// the source (empty: the source is a Python object, or none was found).
inline std::pair<std::string, std::string> hold_through(const GraphIndex& index, uint32_t edge,
                                                        std::vector<uint32_t> chain) {
    const Snapshot& s = index.snapshot();
    const uint32_t source = index.source(edge);
    if (!is_native(s, source)) return {std::string(type_name(s, source)), describe_edge(s, edge)};
    std::string holder(type_name(s, chain.empty() ? source : index.source(chain.front())));
    chain.push_back(edge);
    return {holder, native_chain_text(s, chain)};
}

// The same, finding the chain over in-edges.
inline std::pair<std::string, std::string> invisible_hold(const GraphIndex& index, uint32_t edge) {
    const uint32_t source = index.source(edge);
    return hold_through(index, edge,
                        is_native(index.snapshot(), source) ? python_holder_chain(index, source)
                                                            : std::vector<uint32_t>{});
}

}  // namespace refscope::analysis::detail

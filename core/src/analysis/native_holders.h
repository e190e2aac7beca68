// Native nodes (C/C++ objects reported through the probe's describe API)
// belong to the Python objects that hold them: when an analysis blames a
// reference whose source is a native node, it names the Python object above
// it and the C++ members in between ("Wrapper holds Wrapper::value").
// Shared by cycles.cpp and retention_paths.cpp.
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
// backwards over retaining in-edges whose source `accept(source)` allows,
// through native nodes only, visiting at most `limit` nodes. Empty if no
// Python object is found.
template <typename Accept>
std::vector<uint32_t> python_holder_chain(const GraphIndex& index, uint32_t native, Accept&& accept,
                                          size_t limit = 100'000) {
    const Snapshot& s = index.snapshot();
    std::unordered_map<uint32_t, uint32_t> toward{{native, kNoEdge}};  // node -> edge one step closer
    std::vector<uint32_t> queue{native};
    for (size_t head = 0; head < queue.size() && queue.size() < limit; ++head) {
        for (uint32_t e : index.in_edges(queue[head])) {
            const uint32_t source = index.source(e);
            if (!index.retains(e) || !accept(source) || !toward.emplace(source, e).second) continue;
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
// Python object above it (`accept` limits where to look, e.g. to a cycle).
template <typename Accept>
std::pair<std::string, std::string> invisible_hold(const GraphIndex& index, uint32_t edge, Accept&& accept) {
    const Snapshot& s = index.snapshot();
    const uint32_t source = index.source(edge);
    if (!is_native(s, source)) return {std::string(type_name(s, source)), describe_edge(s, edge)};
    std::vector<uint32_t> chain = python_holder_chain(index, source, accept);
    std::string holder(type_name(s, chain.empty() ? source : index.source(chain.front())));
    chain.push_back(edge);
    return {holder, native_chain_text(s, chain)};
}

}  // namespace refscope::analysis::detail

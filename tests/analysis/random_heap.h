// Small random heaps for checking the dominator tree and the cycle finder
// against brute-force definitions: weak and non-owned edges, references the
// GC cannot see, self-loops, multi-edges, unreachable parts, several roots and
// objects with unexplained surplus. Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "refscope/snapshot.h"

namespace refscope::testing {

inline Snapshot random_heap(uint64_t seed) {
    std::mt19937_64 random(seed);
    const auto below = [&](uint32_t n) { return static_cast<uint32_t>(random() % n); };
    Snapshot s;
    s.types.push_back({s.strings.add("dict"), s.strings.add("builtins"), 0});
    s.types.push_back({s.strings.add("app.Node"), s.strings.add("app"), 0});
    s.types.push_back({s.strings.add("fixture.Wrapper"), s.strings.add("fixture"), 0});

    // Up to 30 nodes for odd seeds: long enough DFS paths that the link-eval
    // path compression matters (up to 12 alone never exercised it).
    const uint32_t nodes = 1 + below(seed % 2 ? 12 : 30);
    for (uint32_t n = 0; n < nodes; ++n) {
        s.add_node(0x1000 + 0x40ull * n, below(3), 16 + 8 * below(10), 0, format::kNodeGcTracked, 0);
    }
    const uint32_t edge_count = below(3 * nodes + 1);
    std::vector<uint32_t> sources(edge_count);
    for (uint32_t& source : sources) source = below(nodes);
    std::sort(sources.begin(), sources.end());  // the snapshot contract: grouped by source
    for (uint32_t source : sources) {
        const uint32_t roll = below(20);
        format::EdgeKind kind = format::EdgeKind::Reference;
        uint8_t flags = format::kEdgeOwned | format::kEdgeGcVisible;
        if (roll < 3) {
            kind = format::EdgeKind::Weak;  // never retains
            flags = 0;
        } else if (roll < 5) {
            kind = format::EdgeKind::Slot;  // owned, invisible to the GC
            flags = format::kEdgeOwned;
        } else if (roll < 6) {
            flags = format::kEdgeGcVisible;  // borrowed: reported but not owned
        }
        // Biased towards nearby targets so that chains and cycles are common.
        const uint32_t target = below(4) == 0 ? below(nodes) : (source + below(3)) % nodes;
        s.add_edge(source, target, kind, flags, 0);
    }
    for (uint32_t e = 0; e < s.edge_count(); ++e) {
        if (s.edge_flags[e] & format::kEdgeOwned) ++s.node_refcount[s.edge_target[e]];
    }
    const uint32_t root_records = below(4);
    for (uint32_t r = 0; r < root_records; ++r) {
        const uint32_t n = below(nodes);
        s.roots.push_back({n, static_cast<format::RootKind>(below(3)), kNoNode, 0, 1});
        ++s.node_refcount[n];
    }
    // Unexplained surplus: C/C++ holders and leaks.
    for (uint32_t n = 0; n < nodes; ++n) {
        if (below(6) == 0) s.node_refcount[n] += 1 + below(2);
    }
    return s;
}

}  // namespace refscope::testing

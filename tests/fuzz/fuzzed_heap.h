// A small heap built from fuzzer bytes, for the targets that fuzz what runs
// on a snapshot after it was read (the filter language, the export path):
// those never see a snapshot the reader refuses, so neither should their
// fuzzers. Types and previews get arbitrary bytes (quotes, angle brackets,
// invalid UTF-8, control characters); nodes, edges and roots get arbitrary
// kinds, flags, labels and refcounts. What the writer's validation refuses
// is skipped, exactly as a reader would have refused it.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "refscope/format/snapshot_io.h"
#include "refscope/snapshot.h"

namespace refscope::fuzzing {

inline constexpr uint32_t kMaxFuzzedNodes = 48;

inline void add_fuzzed_types(FuzzedDataProvider& in, Snapshot& s) {
    const uint32_t types = in.ConsumeIntegralInRange<uint32_t>(1, 6);
    for (uint32_t t = 0; t < types; ++t) {
        TypeInfo info;
        info.name = s.strings.add(in.ConsumeRandomLengthString(40));
        info.module = s.strings.add(in.ConsumeRandomLengthString(16));
        info.type_address = 0x5555'0000'0000ull + 0x400ull * t;
        info.flags = in.ConsumeIntegral<uint8_t>();
        s.types.push_back(info);
    }
}

inline void add_fuzzed_nodes(FuzzedDataProvider& in, Snapshot& s) {
    const uint32_t nodes = in.ConsumeIntegralInRange<uint32_t>(1, kMaxFuzzedNodes);
    const uint32_t types = static_cast<uint32_t>(s.types.size());
    for (uint32_t i = 0; i < nodes; ++i) {
        const uint32_t type = in.ConsumeIntegralInRange<uint32_t>(0, types - 1);
        const uint64_t size = in.ConsumeIntegralInRange<uint64_t>(0, uint64_t{1} << 40);
        const int64_t refcount = in.ConsumeIntegralInRange<int64_t>(-2, 12);
        const uint8_t flags = in.ConsumeIntegral<uint8_t>() & 0x1f;
        const uint32_t preview = in.ConsumeBool() ? s.strings.add(in.ConsumeRandomLengthString(48)) : 0;
        s.add_node(0x7f00'0000'1000ull + 0x40ull * i, type, size, refcount, flags, preview);
    }
}

// Edges in any order, then sorted by source as the Snapshot contract asks.
inline void add_fuzzed_edges(FuzzedDataProvider& in, Snapshot& s) {
    struct E {
        uint32_t source, target, label;
        uint8_t kind, flags;
    };
    const uint32_t last = static_cast<uint32_t>(s.node_count() - 1);
    std::vector<E> edges(in.ConsumeIntegralInRange<uint32_t>(0, 4 * kMaxFuzzedNodes));
    for (E& e : edges) {
        e.source = in.ConsumeIntegralInRange<uint32_t>(0, last);
        e.target = in.ConsumeIntegralInRange<uint32_t>(0, last);
        e.kind = in.ConsumeIntegralInRange<uint8_t>(0, format::kEdgeKindCount - 1);
        e.flags = in.ConsumeIntegral<uint8_t>() & 0x03;
        // A node id (dict values), a string id (attributes), an index: the
        // validation decides which are fine for the kind.
        e.label = in.ConsumeIntegralInRange<uint32_t>(0, last + 4);
    }
    std::stable_sort(edges.begin(), edges.end(),
                     [](const E& a, const E& b) { return a.source < b.source; });
    for (const E& e : edges) {
        s.add_edge(e.source, e.target, static_cast<format::EdgeKind>(e.kind), e.flags, e.label);
    }
}

inline void add_fuzzed_roots(FuzzedDataProvider& in, Snapshot& s) {
    s.threads.push_back({1, s.strings.add("MainThread"), true});
    const uint32_t last = static_cast<uint32_t>(s.node_count() - 1);
    const uint32_t roots = in.ConsumeIntegralInRange<uint32_t>(0, 8);
    for (uint32_t i = 0; i < roots; ++i) {
        RootRef r;
        r.node = in.ConsumeIntegralInRange<uint32_t>(0, last);
        r.kind = static_cast<format::RootKind>(in.ConsumeIntegralInRange<uint8_t>(0, format::kRootKindCount - 1));
        if (r.kind == format::RootKind::ThreadStack) r.thread = 0;
        r.label = s.strings.add(in.ConsumeRandomLengthString(32));
        r.count = in.ConsumeIntegralInRange<uint32_t>(0, 3);
        s.roots.push_back(r);
    }
}

// The heap, or nullopt when the writer's validation (the reader's too) refuses it.
inline std::optional<Snapshot> fuzzed_heap(FuzzedDataProvider& in) {
    Snapshot s;
    s.header.pid = 1;
    add_fuzzed_types(in, s);
    add_fuzzed_nodes(in, s);
    add_fuzzed_edges(in, s);
    add_fuzzed_roots(in, s);
    try {
        (void)format::encode_snapshot(s, format::WriteOptions{false, 0});
    } catch (const format::WriteError&) {
        return std::nullopt;
    }
    return s;
}

}  // namespace refscope::fuzzing

#include "refscope/analysis/graph_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "snapshot_builder.h"

namespace refscope::analysis {
namespace {

using testing::SnapshotBuilder;

std::vector<uint32_t> collect(EdgeIds ids) { return {ids.begin(), ids.end()}; }
std::vector<uint32_t> collect(std::span<const uint32_t> ids) { return {ids.begin(), ids.end()}; }

TEST(GraphIndex, OutAndInEdgesOfASmallGraph) {
    SnapshotBuilder b;
    const uint32_t a = b.node("object");
    const uint32_t c = b.node("object");
    const uint32_t d = b.node("object");
    b.edge(a, c);  // edge 0
    b.edge(a, d);  // edge 1
    b.edge(c, d);  // edge 2
    b.edge(d, a);  // edge 3
    const Snapshot s = b.build();
    const GraphIndex index(s);

    EXPECT_EQ(index.node_count(), 3u);
    EXPECT_EQ(index.edge_count(), 4u);
    EXPECT_FALSE(index.had_to_sort_out_edges());
    EXPECT_EQ(collect(index.out_edges(a)), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(collect(index.out_edges(c)), (std::vector<uint32_t>{2}));
    EXPECT_EQ(collect(index.in_edges(d)), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(collect(index.in_edges(a)), (std::vector<uint32_t>{3}));
    EXPECT_EQ(index.in_degree(c), 1u);
    EXPECT_EQ(index.out_degree(d), 1u);
    EXPECT_EQ(index.source(2), c);
    EXPECT_EQ(index.target(2), d);
}

TEST(GraphIndex, EmptySnapshot) {
    const Snapshot s;
    const GraphIndex index(s);
    EXPECT_EQ(index.node_count(), 0u);
    EXPECT_EQ(index.edge_count(), 0u);
}

TEST(GraphIndex, UngroupedEdgesAreSortedNotRejected) {
    SnapshotBuilder b;
    const uint32_t a = b.node("object");
    const uint32_t c = b.node("object");
    Snapshot s = b.build();
    s.add_edge(c, a, format::EdgeKind::Reference, SnapshotBuilder::kOwned, 0);  // 0
    s.add_edge(a, c, format::EdgeKind::Reference, SnapshotBuilder::kOwned, 0);  // 1
    s.add_edge(c, c, format::EdgeKind::Reference, SnapshotBuilder::kOwned, 0);  // 2
    const GraphIndex index(s);
    EXPECT_TRUE(index.had_to_sort_out_edges());
    EXPECT_EQ(collect(index.out_edges(a)), (std::vector<uint32_t>{1}));
    EXPECT_EQ(collect(index.out_edges(c)), (std::vector<uint32_t>{0, 2}));
}

TEST(GraphIndex, EdgeToMissingNodeThrows) {
    SnapshotBuilder b;
    const uint32_t a = b.node("object");
    b.edge(a, 7);
    const Snapshot s = b.build();
    EXPECT_THROW(GraphIndex{s}, std::invalid_argument);
}

TEST(GraphIndex, MismatchedColumnsThrow) {
    SnapshotBuilder b;
    b.node("object");
    Snapshot s = b.build();
    s.node_refcount.push_back(3);
    EXPECT_THROW(GraphIndex{s}, std::invalid_argument);
}

TEST(GraphIndex, FindNodeByAddress) {
    SnapshotBuilder b;
    b.node("object");
    const uint32_t second = b.node("object");
    const Snapshot s = b.build();
    EXPECT_EQ(find_node_by_address(s, SnapshotBuilder::address_of(second)), second);
    EXPECT_EQ(find_node_by_address(s, 0x1234), kNoNode);
}

TEST(GraphIndex, RandomGraphMatchesAdjacencyLists) {
    std::mt19937 random(7);
    for (int round = 0; round < 20; ++round) {
        SnapshotBuilder b;
        const uint32_t nodes = 1 + random() % 60;
        for (uint32_t n = 0; n < nodes; ++n) b.node("object");
        const uint32_t edges = random() % 200;
        for (uint32_t e = 0; e < edges; ++e) b.edge(random() % nodes, random() % nodes);
        const Snapshot s = b.build();
        const GraphIndex index(s);

        std::vector<std::vector<uint32_t>> out(nodes), in(nodes);
        for (uint32_t e = 0; e < s.edge_count(); ++e) {
            out[s.edge_source[e]].push_back(e);
            in[s.edge_target[e]].push_back(e);
        }
        for (uint32_t n = 0; n < nodes; ++n) {
            EXPECT_EQ(collect(index.out_edges(n)), out[n]);
            EXPECT_EQ(collect(index.in_edges(n)), in[n]);
        }
    }
}


// From 2^20 edges on, the index distributes and sorts on two threads; the
// result must be exactly the single-threaded one: owned in-degrees counted
// once (when the index is built), in-edges in increasing edge id order per
// target (built on first use). Several threads asking for in-edges first at
// once must all get them whole. The node count is a multiple of the index's
// bucket of 2^15 targets, so its last bucket is empty.
TEST(GraphIndex, LargeGraphBuiltOnTwoThreadsMatchesACountingSort) {
    constexpr uint32_t kNodes = 9 * 32'768;
    constexpr uint32_t kEdges = (1u << 20) + 12'345;
    std::mt19937 random(11);
    Snapshot s;
    s.types.push_back({s.strings.add("object"), s.strings.add("builtins"), 0});
    for (uint32_t n = 0; n < kNodes; ++n) s.add_node(0x1000 + 16ull * n, 0, 16, 1, 0, 0);
    std::vector<uint32_t> sources(kEdges);
    for (uint32_t& source : sources) source = random() % kNodes;
    std::sort(sources.begin(), sources.end());
    for (uint32_t e = 0; e < kEdges; ++e) {
        // Skewed targets: a few hubs with many referrers, as in real heaps,
        // and the last node's id, the highest bucket's last target.
        const uint32_t target = e % 5 == 0 ? random() % 16 : e % 7 == 0 ? kNodes - 1 : random() % kNodes;
        const uint8_t flags = e % 3 == 0 ? 0 : format::kEdgeOwned;
        s.add_edge(sources[e], target, format::EdgeKind::Reference, flags, 0);
    }
    const GraphIndex index(s);
    ASSERT_FALSE(index.had_to_sort_out_edges());

    std::vector<uint32_t> offset(kNodes + 1, 0), owned(kNodes, 0);
    for (uint32_t e = 0; e < kEdges; ++e) {
        ++offset[s.edge_target[e] + 1];
        if (s.edge_flags[e] & format::kEdgeOwned) ++owned[s.edge_target[e]];
    }
    for (uint32_t n = 0; n < kNodes; ++n) {
        ASSERT_EQ(index.owned_in_degree(n), owned[n]) << "node " << n;
        offset[n + 1] += offset[n];
    }
    std::vector<uint32_t> order(kEdges), cursor(offset.begin(), offset.end() - 1);
    for (uint32_t e = 0; e < kEdges; ++e) order[cursor[s.edge_target[e]]++] = e;

    std::vector<uint32_t> wrong(4, 0);  // per thread: nodes whose in-edges differ
    std::vector<std::thread> threads;
    for (size_t t = 0; t < wrong.size(); ++t) {
        threads.emplace_back([&, t] {
            for (uint32_t n = 0; n < kNodes; ++n) {
                const std::span<const uint32_t> in = index.in_edges(n);
                const bool same = in.size() == offset[n + 1] - offset[n] && index.in_degree(n) == in.size() &&
                                  std::equal(in.begin(), in.end(), order.begin() + offset[n]);
                wrong[t] += same ? 0 : 1;
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(wrong, std::vector<uint32_t>(4, 0));
}

}  // namespace
}  // namespace refscope::analysis

#include "refscope/analysis/retention_paths.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "snapshot_builder.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using format::RootKind;
using testing::SnapshotBuilder;

struct Analysed {
    explicit Analysed(Snapshot snapshot)
        : s(std::move(snapshot)), index(s), roots(index), paths(index, roots) {}
    Snapshot s;
    GraphIndex index;
    RootClasses roots;
    RetentionPaths paths;
};

std::vector<uint32_t> path_nodes(const Analysed& a, const RetentionPath& path) {
    std::vector<uint32_t> nodes{path.root_node};
    for (uint32_t e : path.edges) nodes.push_back(a.s.edge_target[e]);
    return nodes;
}

TEST(RetentionPaths, ChainFromARoot) {
    SnapshotBuilder b;
    const uint32_t r = b.node("dict", 1);
    const uint32_t x = b.node("list", 1);
    const uint32_t y = b.node("object", 1);
    b.edge(r, x);
    b.edge(x, y, EdgeKind::Index, 0);
    b.root(r, RootKind::Interpreter, "sys.modules");
    const Analysed a(b.build());

    EXPECT_EQ(a.paths.distance(r), 0u);
    EXPECT_EQ(a.paths.distance(y), 2u);
    EXPECT_EQ(a.paths.reachable_count(), 3u);
    const auto path = a.paths.path_to(y);
    ASSERT_TRUE(path);
    EXPECT_EQ(path_nodes(a, *path), (std::vector<uint32_t>{r, x, y}));
    EXPECT_EQ(a.s.roots[path->root_record].node, r);

    const auto at_root = a.paths.path_to(r);
    ASSERT_TRUE(at_root);
    EXPECT_TRUE(at_root->edges.empty());
    EXPECT_EQ(at_root->root_node, r);
}

TEST(RetentionPaths, PicksTheShortestOfTwoRoutes) {
    SnapshotBuilder b;
    const uint32_t r = b.node("dict");
    const uint32_t a1 = b.node("object");
    const uint32_t a2 = b.node("object");
    const uint32_t t = b.node("object", 2);
    b.edge(r, a1);
    b.edge(a1, a2);
    b.edge(a2, t);
    b.edge(r, t);
    b.root(r, RootKind::Interpreter);
    const Analysed a(b.build());
    const auto path = a.paths.path_to(t);
    ASSERT_TRUE(path);
    EXPECT_EQ(path_nodes(a, *path), (std::vector<uint32_t>{r, t}));
}

TEST(RetentionPaths, InterpreterRootsWinAtEqualDistance) {
    SnapshotBuilder b;
    const uint32_t frame_local = b.node("object");
    const uint32_t module = b.node("module", 1, "app");
    const uint32_t t = b.node("object", 2);
    b.edge(frame_local, t);
    b.edge(module, t);
    b.root(frame_local, RootKind::ThreadStack, "local x");
    b.root(module, RootKind::Interpreter, "sys.modules['app']");
    const Analysed a(b.build());
    const auto path = a.paths.path_to(t);
    ASSERT_TRUE(path);
    EXPECT_EQ(path->root_node, module);
}

TEST(RetentionPaths, WeakAndBorrowedEdgesDoNotRetain) {
    SnapshotBuilder b;
    const uint32_t r = b.node("dict");
    const uint32_t weakly = b.node("object", 0);
    const uint32_t borrowed = b.node("object", 0);
    b.edge(r, weakly, EdgeKind::Weak, 0, format::kEdgeGcVisible);
    // Owned flag on a weak edge is a probe bug; it still must not retain.
    b.edge(r, weakly, EdgeKind::Weak, 0, format::kEdgeOwned);
    b.edge(r, borrowed, EdgeKind::Reference, 0, format::kEdgeGcVisible);
    b.root(r, RootKind::Interpreter);
    const Analysed a(b.build());
    EXPECT_FALSE(a.paths.reachable(weakly));
    EXPECT_FALSE(a.paths.reachable(borrowed));
    EXPECT_FALSE(a.paths.path_to(weakly));
    const NoPathExplanation why = a.paths.explain_unreachable(borrowed);
    EXPECT_EQ(why.reason, NoPathExplanation::Reason::NoHolderFound);
    EXPECT_NE(why.text.find("no path from GC roots"), std::string::npos);
}

// nanobind's Wrapper closure cycle: the Wrapper (not a GC type) holds the
// function in `value`, an owned reference its type never reports to the
// collector. Nothing has unexplained surplus, yet the cycle can never be
// freed: the explanation must name that reference, not call it garbage.
TEST(RetentionPaths, CycleClosedByAGcInvisibleReferenceNamesIt) {
    SnapshotBuilder b;
    const uint32_t wrapper = b.node("fixture.Wrapper", 1, {}, 32, 0, "fixture");
    const uint32_t function = b.node("function", 1, "callback");
    const uint32_t closure = b.node("tuple", 1, "len 1");
    const uint32_t cell = b.node("cell", 1);
    b.edge(wrapper, function, EdgeKind::Slot, b.string_id("value"), format::kEdgeOwned);
    b.edge(function, closure, EdgeKind::Field, b.string_id("__closure__"));
    b.edge(closure, cell, EdgeKind::Index, 0);
    b.edge(cell, wrapper, EdgeKind::Field, b.string_id("cell_contents"));
    // A str key held by an unreported (but owned) edge is no such case
    // (refcount 0: the dict itself has no surplus to explain).
    const uint32_t dict = b.node("dict", 0);
    const uint32_t key = b.str("k", 1);
    b.edge(dict, key, EdgeKind::DictKey, 0, format::kEdgeOwned);
    const Analysed a(b.build());

    const NoPathExplanation why = a.paths.explain_unreachable(cell);
    EXPECT_EQ(why.reason, NoPathExplanation::Reason::HeldByInvisibleReference);
    EXPECT_EQ(a.index.source(why.invisible_edge), wrapper);
    EXPECT_NE(why.text.find("fixture.Wrapper holds .value"), std::string::npos) << why.text;
    EXPECT_EQ(reason_name(why.reason), "held by invisible reference");

    const NoPathExplanation key_why = a.paths.explain_unreachable(key);
    EXPECT_EQ(key_why.reason, NoPathExplanation::Reason::NoHolderFound);
}

TEST(RetentionPaths, UnexplainedSurplusIsNotASource) {
    SnapshotBuilder b;
    const uint32_t leak = b.node("app.Leaky", 1, {}, 48, format::kNodeGcTracked, "app");
    const Analysed a(b.build());
    EXPECT_FALSE(a.paths.reachable(leak));
    const NoPathExplanation why = a.paths.explain_unreachable(leak);
    EXPECT_EQ(why.reason, NoPathExplanation::Reason::UnexplainedSurplus);
    EXPECT_EQ(why.unexplained, 1);
    EXPECT_EQ(why.text,
              "no path from GC roots: 1 reference that the GC cannot see (unexplained refcount "
              "surplus) \u2014 a C/C++ holder or a leak");
}

TEST(RetentionPaths, ARootWithUnexplainedSurplusIsStillASource) {
    SnapshotBuilder b;
    const uint32_t r = b.node("dict", 3);
    const uint32_t x = b.node("object");
    b.edge(r, x);
    b.root(r, RootKind::Interpreter, "sys", 1);
    const Analysed a(b.build());
    EXPECT_EQ(a.roots.unexplained(r), 2);
    EXPECT_TRUE(a.paths.reachable(x));
}

TEST(RetentionPaths, NamesTheNearestHolderWithUnexplainedSurplus) {
    SnapshotBuilder b;
    const uint32_t far_holder = b.node("object", 2);
    const uint32_t between = b.node("object", 1);
    const uint32_t holder = b.node("app.Holder", 1, {}, 48, format::kNodeGcTracked, "app");
    const uint32_t mid = b.node("list", 2);
    const uint32_t t = b.node("app.Leaky", 1, {}, 48, format::kNodeGcTracked, "app");
    b.edge(far_holder, between);
    b.edge(between, mid);
    b.edge(holder, mid, EdgeKind::Index, 0);
    b.edge(mid, t, EdgeKind::Index, 4);
    const Analysed a(b.build());
    const NoPathExplanation why = a.paths.explain_unreachable(t);
    EXPECT_EQ(why.reason, NoPathExplanation::Reason::HeldByUnexplained);
    EXPECT_EQ(why.unexplained, 1);
    EXPECT_EQ(why.holder, holder);
    ASSERT_EQ(why.holder_edges.size(), 2u);
    EXPECT_EQ(a.s.edge_target[why.holder_edges[0]], mid);
    EXPECT_EQ(a.s.edge_target[why.holder_edges[1]], t);
    EXPECT_NE(why.text.find("retained by "), std::string::npos);
    EXPECT_NE(why.text.find("(2 hops away)"), std::string::npos);
    EXPECT_NE(why.text.find("reference that the GC cannot see"), std::string::npos);
}

TEST(RetentionPaths, BackwardSearchStopsAtItsLimit) {
    SnapshotBuilder b;
    const uint32_t holder = b.node("object", 1);
    uint32_t previous = holder;
    for (int i = 0; i < 100; ++i) {
        const uint32_t next = b.node("object", 1);
        b.edge(previous, next);
        previous = next;
    }
    const Analysed a(b.build());
    const NoPathExplanation truncated = a.paths.explain_unreachable(previous, 10);
    EXPECT_TRUE(truncated.search_truncated);
    EXPECT_EQ(truncated.reason, NoPathExplanation::Reason::NoHolderFound);
    const NoPathExplanation found = a.paths.explain_unreachable(previous);
    EXPECT_EQ(found.holder, holder);
    EXPECT_EQ(found.holder_edges.size(), 100u);
}

TEST(RetentionPaths, MillionLongChainNeedsNoRecursion) {
    constexpr uint32_t kLength = 1'000'000;
    Snapshot s;
    s.types.push_back({s.strings.add("object"), s.strings.add("builtins"), 0});
    for (uint32_t n = 0; n < kLength; ++n) s.add_node(0x1000 + 16ull * n, 0, 16, 1, 1, 0);
    for (uint32_t n = 0; n + 1 < kLength; ++n) {
        s.add_edge(n, n + 1, EdgeKind::Reference, SnapshotBuilder::kOwned, 0);
    }
    s.roots.push_back({0, RootKind::ThreadStack, kNoNode, 0, 1});
    const Analysed a(std::move(s));
    EXPECT_EQ(a.paths.distance(kLength - 1), kLength - 1);
    const auto path = a.paths.path_to(kLength - 1);
    ASSERT_TRUE(path);
    EXPECT_EQ(path->edges.size(), kLength - 1);
    EXPECT_EQ(path->root_node, 0u);
}

TEST(RetentionPaths, MillionLongUnreachableChainFindsItsHolder) {
    constexpr uint32_t kLength = 1'000'000;
    Snapshot s;
    s.types.push_back({s.strings.add("object"), s.strings.add("builtins"), 0});
    for (uint32_t n = 0; n < kLength; ++n) s.add_node(0x1000 + 16ull * n, 0, 16, 1, 1, 0);
    for (uint32_t n = 0; n + 1 < kLength; ++n) {
        s.add_edge(n, n + 1, EdgeKind::Reference, SnapshotBuilder::kOwned, 0);
    }
    const Analysed a(std::move(s));
    const NoPathExplanation why = a.paths.explain_unreachable(kLength - 1);
    EXPECT_EQ(why.holder, 0u);
    EXPECT_EQ(why.holder_edges.size(), kLength - 1);
}

TEST(RetentionPaths, UngroupedEdgesGiveTheSamePaths) {
    SnapshotBuilder b;
    const uint32_t r = b.node("dict");
    const uint32_t x = b.node("object");
    const uint32_t y = b.node("object");
    Snapshot s = b.build();
    // Edges out of source order: the index sorts them through a permutation.
    s.add_edge(x, y, EdgeKind::Index, SnapshotBuilder::kOwned, 0);
    s.add_edge(r, x, EdgeKind::Index, SnapshotBuilder::kOwned, 1);
    s.roots.push_back({r, RootKind::Interpreter, kNoNode, 0, 1});
    const Analysed a(std::move(s));
    ASSERT_TRUE(a.index.had_to_sort_out_edges());
    const auto path = a.paths.path_to(y);
    ASSERT_TRUE(path);
    EXPECT_EQ(path->edges, (std::vector<uint32_t>{1, 0}));
}

// Reference implementation: plain BFS over adjacency lists built here.
std::vector<uint32_t> brute_force_distances(const Snapshot& s, const std::vector<uint32_t>& sources) {
    std::vector<std::vector<uint32_t>> next(s.node_count());
    for (size_t e = 0; e < s.edge_count(); ++e) {
        if ((s.edge_flags[e] & format::kEdgeOwned) &&
            s.edge_kind[e] != static_cast<uint8_t>(EdgeKind::Weak)) {
            next[s.edge_source[e]].push_back(s.edge_target[e]);
        }
    }
    std::vector<uint32_t> distance(s.node_count(), kUnreached);
    std::deque<uint32_t> queue;
    for (uint32_t n : sources) {
        if (distance[n] == 0) continue;
        distance[n] = 0;
        queue.push_back(n);
    }
    while (!queue.empty()) {
        const uint32_t n = queue.front();
        queue.pop_front();
        for (uint32_t m : next[n]) {
            if (distance[m] == kUnreached) {
                distance[m] = distance[n] + 1;
                queue.push_back(m);
            }
        }
    }
    return distance;
}

TEST(RetentionPaths, RandomGraphsAgreeWithBruteForce) {
    std::mt19937 random(12345);
    for (int round = 0; round < 200; ++round) {
        SnapshotBuilder b;
        const uint32_t nodes = 1 + random() % 80;
        for (uint32_t n = 0; n < nodes; ++n) b.node("object", random() % 4);
        const uint32_t edges = random() % (3 * nodes + 1);
        for (uint32_t e = 0; e < edges; ++e) {
            const bool weak = random() % 10 == 0;
            const uint8_t flags = random() % 5 == 0 ? format::kEdgeGcVisible : SnapshotBuilder::kOwned;
            b.edge(random() % nodes, random() % nodes, weak ? EdgeKind::Weak : EdgeKind::Reference, 0,
                   flags);
        }
        std::vector<uint32_t> sources;
        const uint32_t root_count = random() % 4;
        for (uint32_t r = 0; r < root_count; ++r) {
            const uint32_t n = random() % nodes;
            sources.push_back(n);
            b.root(n, static_cast<RootKind>(random() % 3));
        }
        const Analysed a(b.build());
        const std::vector<uint32_t> expected = brute_force_distances(a.s, sources);
        for (uint32_t n = 0; n < nodes; ++n) {
            ASSERT_EQ(a.paths.distance(n), expected[n]) << "round " << round << " node " << n;
            const auto path = a.paths.path_to(n);
            ASSERT_EQ(path.has_value(), expected[n] != kUnreached);
            if (!path) continue;
            // A valid chain: starts at a root, each edge retains and follows on.
            EXPECT_EQ(path->edges.size(), expected[n]);
            EXPECT_TRUE(a.roots.is_root(path->root_node));
            uint32_t at = path->root_node;
            for (uint32_t e : path->edges) {
                EXPECT_EQ(a.s.edge_source[e], at);
                EXPECT_TRUE(a.index.retains(e));
                at = a.s.edge_target[e];
            }
            EXPECT_EQ(at, n);
        }
    }
}

}  // namespace
}  // namespace refscope::analysis

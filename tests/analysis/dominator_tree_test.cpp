#include "refscope/analysis/dominator_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "random_heap.h"
#include "snapshot_builder.h"

namespace refscope::analysis {
namespace {

using testing::SnapshotBuilder;

// The graph the tree is defined on, spelled out: node ids, then the
// super-root (n) and the unexplained-holders root (n + 1), with adjacency
// lists. Reachability with one vertex removed decides everything.
struct BruteGraph {
    uint32_t n = 0;
    std::vector<std::vector<uint32_t>> out;

    BruteGraph(const GraphIndex& index, const RootClasses& roots, DominatorRoots mode)
        : n(index.node_count()), out(n + 2) {
        for (uint32_t e = 0; e < index.edge_count(); ++e) {
            if (index.retains(e)) out[index.source(e)].push_back(index.target(e));
        }
        for (uint32_t r : roots.root_nodes()) out[n].push_back(r);
        if (mode == DominatorRoots::ExplainedAndUnexplained) {
            out[n].push_back(n + 1);
            for (const NodeCount& held : roots.unexplained_nodes()) out[n + 1].push_back(held.node);
        }
    }
    std::vector<bool> reach(uint32_t removed) const {
        std::vector<bool> seen(n + 2, false);
        if (removed == n) return seen;
        std::vector<uint32_t> stack{n};
        seen[n] = true;
        while (!stack.empty()) {
            const uint32_t v = stack.back();
            stack.pop_back();
            for (uint32_t w : out[v]) {
                if (w == removed || seen[w]) continue;
                seen[w] = true;
                stack.push_back(w);
            }
        }
        return seen;
    }
    uint32_t id(uint32_t vertex) const {
        return vertex < n ? vertex : vertex == n ? kSuperRoot : kUnexplainedRoot;
    }
};

// What the random heaps exercised: idoms that are real nodes, the
// unexplained-holders root, and unreachable nodes.
struct Coverage {
    int node_idoms = 0;
    int unexplained_idoms = 0;
    int unreachable = 0;
};

void check_against_brute_force(const Snapshot& s, DominatorRoots mode, uint64_t seed,
                               Coverage& coverage) {
    SCOPED_TRACE("seed " + std::to_string(seed) +
                 (mode == DominatorRoots::Explained ? " explained" : " with unexplained"));
    const GraphIndex index(s);
    const RootClasses roots(index);
    const DominatorTree tree(index, roots, mode);
    const BruteGraph g(index, roots, mode);
    const uint32_t n = g.n;
    const bool with_u = mode == DominatorRoots::ExplainedAndUnexplained;
    const uint32_t vertices = with_u ? n + 2 : n + 1;

    const std::vector<bool> all = g.reach(kNoNode);
    // without[d][v]: v reachable from the super-root when d is removed.
    std::vector<std::vector<bool>> without(vertices);
    for (uint32_t d = 0; d < vertices; ++d) without[d] = g.reach(d);
    const auto dominates = [&](uint32_t d, uint32_t v) { return d == v || !without[d][v]; };

    uint32_t reachable = 0;
    for (uint32_t v = 0; v < vertices; ++v) {
        if (v < n) {
            ASSERT_EQ(tree.reachable(v), bool(all[v])) << "node " << v;
            reachable += all[v] ? 1 : 0;
        }
        if (v == n) {
            EXPECT_EQ(tree.idom(kSuperRoot), kNoNode);
            continue;
        }
        if (!all[v]) {
            EXPECT_EQ(tree.idom(g.id(v)), kNoNode) << "node " << v;
            EXPECT_EQ(tree.retained_size(g.id(v)), 0u);
            EXPECT_EQ(tree.retained_count(g.id(v)), 0u);
            continue;
        }
        // The immediate dominator: the strict dominator that every other
        // strict dominator dominates.
        uint32_t expected = kNoNode;
        for (uint32_t d = 0; d < vertices; ++d) {
            if (d == v || !dominates(d, v)) continue;
            bool deepest = true;
            for (uint32_t other = 0; other < vertices; ++other) {
                if (other != v && other != d && dominates(other, v) && !dominates(other, d)) {
                    deepest = false;
                }
            }
            if (deepest) expected = g.id(d);
        }
        ASSERT_EQ(tree.idom(g.id(v)), expected) << "node " << v;
        coverage.node_idoms += expected < n ? 1 : 0;
        coverage.unexplained_idoms += expected == kUnexplainedRoot ? 1 : 0;
    }
    for (uint32_t v = 0; v < n; ++v) coverage.unreachable += all[v] ? 0 : 1;
    EXPECT_EQ(tree.reachable_count(), reachable);

    // Retained: what becomes unreachable when the vertex is removed.
    for (uint32_t d = 0; d < vertices; ++d) {
        if (!all[d]) continue;
        uint64_t bytes = 0;
        uint32_t objects = 0;
        for (uint32_t v = 0; v < n; ++v) {
            if (all[v] && !without[d][v]) {
                bytes += s.node_size[v];
                ++objects;
            }
        }
        EXPECT_EQ(tree.retained_size(g.id(d)), bytes) << "vertex " << d;
        EXPECT_EQ(tree.retained_count(g.id(d)), objects) << "vertex " << d;
    }

    // children() is the inverse of idom(), in increasing id order.
    size_t listed = 0;
    for (uint32_t d = 0; d < vertices; ++d) {
        const auto kids = tree.children(g.id(d));
        EXPECT_TRUE(std::is_sorted(kids.begin(), kids.end()));
        for (uint32_t child : kids) EXPECT_EQ(tree.idom(child), g.id(d));
        listed += kids.size();
    }
    EXPECT_EQ(listed, size_t{reachable} + (with_u ? 1 : 0));
}

TEST(DominatorTreeBruteForce, RandomHeapsMatchTheDefinition) {
    Coverage coverage;
    for (uint64_t seed = 1; seed <= 3000; ++seed) {
        const Snapshot s = testing::random_heap(seed);
        check_against_brute_force(s, DominatorRoots::Explained, seed, coverage);
        check_against_brute_force(s, DominatorRoots::ExplainedAndUnexplained, seed, coverage);
        if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(coverage.node_idoms, 1000);
    EXPECT_GT(coverage.unexplained_idoms, 500);
    EXPECT_GT(coverage.unreachable, 1000);
}

// root (module) → a → b → c, and a → c: a dominates c, b does not.
TEST(DominatorTree, DiamondAndSizes) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app", 100);
    const uint32_t a = b.node("dict", 1, {}, 10);
    const uint32_t x = b.node("list", 1, {}, 20);
    const uint32_t c = b.node("app.Node", 2, {}, 40);
    b.edge(module, a);
    b.edge(a, x);
    b.edge(x, c);
    b.edge(a, c);
    b.root(module, format::RootKind::Interpreter, "sys.modules['app']");
    const Snapshot s = b.build();
    const GraphIndex index(s);
    const RootClasses roots(index);
    const DominatorTree tree(index, roots);
    EXPECT_EQ(tree.idom(module), kSuperRoot);
    EXPECT_EQ(tree.idom(a), module);
    EXPECT_EQ(tree.idom(x), a);
    EXPECT_EQ(tree.idom(c), a);
    EXPECT_EQ(tree.retained_size(module), 170u);
    EXPECT_EQ(tree.retained_size(a), 70u);
    EXPECT_EQ(tree.retained_size(x), 20u);
    EXPECT_EQ(tree.retained_count(a), 3u);
    EXPECT_EQ(tree.retained_size(kSuperRoot), 170u);
    EXPECT_EQ(tree.retained_size(kUnexplainedRoot), 0u);
    EXPECT_EQ(tree.idom(kUnexplainedRoot), kSuperRoot);
    EXPECT_EQ(tree.dominators_of(c), (std::vector<uint32_t>{a, module, kSuperRoot}));
    EXPECT_EQ(tree.top_retained(2), (std::vector<uint32_t>{module, a}));
    EXPECT_EQ(tree.top_retained(0), (std::vector<uint32_t>{module, a, c, x}));
    EXPECT_EQ(tree.children_by_retained_size(a), (std::vector<uint32_t>{c, x}));
    const auto top = tree.children(kSuperRoot);
    EXPECT_EQ(std::vector<uint32_t>(top.begin(), top.end()),
              (std::vector<uint32_t>{module, kUnexplainedRoot}));
}

// A leaked holder (unexplained surplus) and what it keeps; an object held
// both by a root and by unexplained surplus; a weak reference.
TEST(DominatorTree, UnexplainedHoldersGetRetainedSizes) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app", 100);
    const uint32_t leaked = b.node("app.Holder", 1, {}, 50);   // refcount 1, nobody owns it
    const uint32_t kept = b.node("list", 1, {}, 30);
    const uint32_t shared = b.node("dict", 2, {}, 8);           // module + 1 unexplained
    const uint32_t weakly = b.node("app.Node", 1, {}, 7);       // module owns; leaked only weakly
    b.edge(leaked, kept);
    b.edge(module, shared);
    b.edge(module, weakly);
    b.edge(leaked, weakly, format::EdgeKind::Weak, 0, 0);
    b.root(module, format::RootKind::Interpreter);
    const Snapshot s = b.build();
    const GraphIndex index(s);
    const RootClasses roots(index);

    const DominatorTree explained(index, roots, DominatorRoots::Explained);
    EXPECT_FALSE(explained.reachable(leaked));
    EXPECT_EQ(explained.idom(kept), kNoNode);
    EXPECT_EQ(explained.retained_size(leaked), 0u);
    EXPECT_EQ(explained.idom(shared), module);
    EXPECT_EQ(explained.retained_size(module), 115u);
    EXPECT_EQ(explained.reachable_count(), 3u);

    const DominatorTree full(index, roots);
    EXPECT_EQ(full.idom(leaked), kUnexplainedRoot);
    EXPECT_EQ(full.idom(kept), leaked);
    EXPECT_EQ(full.retained_size(leaked), 80u);
    EXPECT_EQ(full.retained_size(kUnexplainedRoot), 80u);
    // Held by the module and by something unexplained: neither alone keeps it.
    EXPECT_EQ(full.idom(shared), kSuperRoot);
    EXPECT_EQ(full.idom(weakly), module);  // weak references never retain
    EXPECT_EQ(full.retained_size(module), 107u);
    EXPECT_EQ(full.retained_size(kSuperRoot), 195u);
    EXPECT_EQ(full.reachable_count(), 5u);
}

TEST(DominatorTree, EmptySnapshot) {
    const Snapshot s;
    const GraphIndex index(s);
    const RootClasses roots(index);
    const DominatorTree tree(index, roots);
    EXPECT_EQ(tree.reachable_count(), 0u);
    EXPECT_EQ(tree.retained_size(kSuperRoot), 0u);
    EXPECT_EQ(tree.children(kSuperRoot).size(), 1u);  // the unexplained-holders root
    EXPECT_TRUE(tree.top_retained(5).empty());
    const DominatorTree explained(index, roots, DominatorRoots::Explained);
    EXPECT_TRUE(explained.children(kSuperRoot).empty());
    EXPECT_EQ(explained.idom(kUnexplainedRoot), kNoNode);
}

// A snapshot whose edges are not grouped by source: the index sorts them and
// the tree must still follow the right edges.
TEST(DominatorTree, UngroupedEdges) {
    Snapshot s;
    s.types.push_back({s.strings.add("dict"), s.strings.add("builtins"), 0});
    for (int i = 0; i < 4; ++i) s.add_node(0x1000 + 16 * i, 0, 10, 1, 0, 0);
    const uint8_t owned = format::kEdgeOwned | format::kEdgeGcVisible;
    s.add_edge(2, 3, format::EdgeKind::Reference, owned, 0);
    s.add_edge(0, 1, format::EdgeKind::Reference, owned, 0);
    s.add_edge(1, 2, format::EdgeKind::Reference, owned, 0);
    s.roots.push_back({0, format::RootKind::Interpreter, kNoNode, 0, 0});
    const GraphIndex index(s);
    ASSERT_TRUE(index.had_to_sort_out_edges());
    const RootClasses roots(index);
    const DominatorTree tree(index, roots);
    EXPECT_EQ(tree.idom(3), 2u);
    EXPECT_EQ(tree.idom(2), 1u);
    EXPECT_EQ(tree.retained_size(0), 40u);
}

// A million-long chain, in both id orders, and a million-node cycle: the
// searches are iterative, so none of this may overflow the stack.
Snapshot chain(uint32_t length, bool descending, bool close_cycle) {
    Snapshot s;
    s.types.push_back({s.strings.add("app.Node"), s.strings.add("app"), 0});
    for (uint32_t n = 0; n < length; ++n) s.add_node(0x1000 + 16ull * n, 0, 8, 1, 0, 0);
    const uint8_t owned = format::kEdgeOwned | format::kEdgeGcVisible;
    // Link k: from node at(k) to at(k + 1).
    const auto at = [&](uint32_t k) { return descending ? length - 1 - k : k; };
    std::vector<std::pair<uint32_t, uint32_t>> links;
    for (uint32_t k = 0; k + 1 < length; ++k) links.emplace_back(at(k), at(k + 1));
    if (close_cycle) links.emplace_back(at(length - 1), at(0));
    std::sort(links.begin(), links.end());
    for (const auto& [from, to] : links) s.add_edge(from, to, format::EdgeKind::Attribute, owned, 0);
    s.roots.push_back({at(0), format::RootKind::Interpreter, kNoNode, 0, 0});
    return s;
}

TEST(DominatorTree, MillionLongChainsAndCycle) {
    constexpr uint32_t kLength = 1'000'000;
    for (const bool descending : {false, true}) {
        for (const bool cycle : {false, true}) {
            const Snapshot s = chain(kLength, descending, cycle);
            const GraphIndex index(s);
            const RootClasses roots(index);
            const DominatorTree tree(index, roots);
            const auto at = [&](uint32_t k) { return descending ? kLength - 1 - k : k; };
            EXPECT_EQ(tree.reachable_count(), kLength);
            EXPECT_EQ(tree.idom(at(0)), kSuperRoot);
            EXPECT_EQ(tree.idom(at(1)), at(0));
            EXPECT_EQ(tree.idom(at(kLength - 1)), at(kLength - 2));
            EXPECT_EQ(tree.retained_size(at(0)), 8ull * kLength);
            EXPECT_EQ(tree.retained_count(at(kLength / 2)), kLength / 2);
            EXPECT_EQ(tree.dominators_of(at(kLength - 1)).size(), size_t{kLength});
        }
    }
}

}  // namespace
}  // namespace refscope::analysis

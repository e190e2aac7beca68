#include "analyse.h"
#include "refscope/analysis/subgraph.h"
#include "refscope/analysis/display_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "snapshot_builder.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using format::RootKind;
using testing::SnapshotBuilder;

Subgraph extract(const analysis::SnapshotAnalysis& a, std::vector<uint32_t> targets,
                 const SubgraphOptions& options = {}) {
    return extract_subgraph(a.index(), a.roots(), a.paths(), targets, options);
}

const SubgraphEdge* find_edge(const Subgraph& g, uint32_t from_node, uint32_t to_node) {
    const uint32_t from = g.find(from_node);
    const uint32_t to = g.find(to_node);
    for (const SubgraphEdge& e : g.edges) {
        if (e.from == from && e.to == to) return &e;
    }
    return nullptr;
}

std::vector<const SubgraphNode*> groups(const Subgraph& g) {
    std::vector<const SubgraphNode*> out;
    for (const SubgraphNode& n : g.nodes) {
        if (n.is_group()) out.push_back(&n);
    }
    return out;
}

// A chain root → c1 → … → c9 → target, the target holding 30 objects of 30
// different types (nothing to collapse).
struct Chain {
    Snapshot snapshot;
    std::vector<uint32_t> chain;  // root first, target last
    std::vector<uint32_t> leaves;
};

Chain make_chain() {
    SnapshotBuilder b;
    Chain c;
    c.chain.push_back(b.node("module", 1, "app", 80, format::kNodeGcTracked, "app"));
    for (int i = 1; i < 11; ++i) {
        c.chain.push_back(b.node("app.Link" + std::to_string(i), 1, {}, 48, format::kNodeGcTracked,
                                 "app"));
        b.edge(c.chain[i - 1], c.chain[i], EdgeKind::Slot, b.string_id("next"));
    }
    for (int i = 0; i < 30; ++i) {
        c.leaves.push_back(b.node("app.Leaf" + std::to_string(i)));
        b.edge(c.chain.back(), c.leaves.back(), EdgeKind::Index, static_cast<uint32_t>(i));
    }
    b.root(c.chain[0], RootKind::Interpreter, "sys.modules['app']");
    c.snapshot = b.build();
    return c;
}

// A path of more than half the cap keeps its ends: the first two nodes and
// the last three here, the six between drawn as one elided node whose
// arrows carry the first and last hidden references.
TEST(Subgraph, LongPathsKeepTheirEndsAndElideTheMiddle) {
    Chain c = make_chain();
    const std::vector<uint32_t> chain = c.chain;
    const auto a = testing::analyse(std::move(c.snapshot));
    SubgraphOptions options;
    options.max_nodes = 5;
    const Subgraph g = extract(*a, {chain.back()}, options);

    ASSERT_EQ(g.nodes.size(), 6u);  // 2 + the elision + 3, no neighbours
    EXPECT_TRUE(g.truncated);
    EXPECT_EQ(g.omitted_nodes, 30u);
    EXPECT_EQ(g.path_count, 1u);
    EXPECT_EQ(g.elided_objects, 6u);
    for (const size_t i : {size_t{0}, size_t{1}, size_t{8}, size_t{9}, size_t{10}}) {
        const uint32_t at = g.find(chain[i]);
        ASSERT_NE(at, kNoNode) << "path node " << i << " dropped";
        EXPECT_TRUE(g.nodes[at].on_path);
    }
    for (size_t i = 2; i < 8; ++i) EXPECT_EQ(g.find(chain[i]), kNoNode) << i;
    EXPECT_TRUE(g.nodes[g.find(chain.back())].is_target);
    EXPECT_TRUE(g.nodes[g.find(chain.front())].is_root);
    const auto elided = std::find_if(g.nodes.begin(), g.nodes.end(), [](const SubgraphNode& n) { return n.is_elision(); });
    ASSERT_NE(elided, g.nodes.end());
    EXPECT_EQ(elided->elided_objects, 6u);
    EXPECT_EQ(elided->lines.front(), "\u2026 6 objects \u2026");
    EXPECT_TRUE(elided->on_path);
    const uint32_t e = static_cast<uint32_t>(elided - g.nodes.begin());
    int into = 0, out_of = 0;
    for (const SubgraphEdge& edge : g.edges) {
        if (edge.to == e && edge.from == g.find(chain[1])) {
            ++into;
            EXPECT_EQ(edge.label, ".next");
        }
        if (edge.from == e && edge.to == g.find(chain[8])) {
            ++out_of;
            EXPECT_TRUE(edge.on_path);
        }
    }
    EXPECT_EQ(into, 1);
    EXPECT_EQ(out_of, 1);
    for (const size_t i : {size_t{1}, size_t{9}, size_t{10}}) {
        const SubgraphEdge* edge = find_edge(g, chain[i - 1], chain[i]);
        ASSERT_NE(edge, nullptr) << i;
        EXPECT_TRUE(edge->on_path);
        EXPECT_EQ(edge->label, ".next");
    }
    // A path within half the cap is drawn whole.
    options.max_nodes = 22;
    const Subgraph whole = extract(*a, {chain.back()}, options);
    EXPECT_EQ(whole.elided_objects, 0u);
    for (uint32_t n : chain) EXPECT_NE(whole.find(n), kNoNode);
}

// The case: a linked list of 300,000 objects is drawn within the cap.
TEST(Subgraph, AVeryLongChainStaysWithinTheCap) {
    SnapshotBuilder b;
    constexpr uint32_t kLength = 300'000;
    uint32_t previous = b.node("module", 1, "app", 80, format::kNodeGcTracked, "app");
    b.root(previous, RootKind::Interpreter, "sys.modules['app']");
    const uint32_t next = b.string_id("next");
    for (uint32_t i = 0; i < kLength; ++i) {
        const uint32_t node = b.node("app.Node", 1, {}, 48, format::kNodeGcTracked, "app");
        b.edge(previous, node, EdgeKind::Slot, next);
        previous = node;
    }
    const auto a = testing::analyse(b.build());
    SubgraphOptions options;
    options.max_nodes = 300;
    const Subgraph g = extract(*a, {previous}, options);
    EXPECT_LE(g.nodes.size(), 300u);
    EXPECT_EQ(g.elided_objects, kLength + 1 - 150);
    EXPECT_NE(g.find(previous), kNoNode);
}

TEST(Subgraph, CapKeepsTheNearestNeighboursFirst) {
    SnapshotBuilder b;
    const uint32_t t = b.node("app.Target");
    std::vector<uint32_t> near, far;
    for (int i = 0; i < 12; ++i) {
        near.push_back(b.node("app.Near" + std::to_string(i)));
        b.edge(t, near.back());
        for (int j = 0; j < 3; ++j) {
            far.push_back(b.node("app.Far" + std::to_string(i * 3 + j)));
            b.edge(near.back(), far.back());
        }
    }
    const auto a = testing::analyse(b.build());
    SubgraphOptions options;
    options.hops = 2;
    options.max_nodes = 10;
    const Subgraph g = extract(*a, {t}, options);
    EXPECT_EQ(g.nodes.size(), 10u);
    EXPECT_TRUE(g.truncated);
    // 3 nearby objects, then the far ones of the 9 drawn: 3 + 9 × 3.
    EXPECT_EQ(g.omitted_nodes, 3u + 9u * 3u);
    for (const SubgraphNode& n : g.nodes) {
        EXPECT_LE(n.distance, 1u) << "a distance-2 node was kept before distance-1 ones";
    }

    options.max_nodes = 300;
    const Subgraph all = extract(*a, {t}, options);
    EXPECT_EQ(all.nodes.size(), 1u + 12u + 36u);
    EXPECT_FALSE(all.truncated);
    EXPECT_EQ(all.nodes[all.find(far[5])].distance, 2u);

    options.hops = 1;
    EXPECT_EQ(extract(*a, {t}, options).nodes.size(), 13u);
    options.referents = false;  // t has no referrers
    EXPECT_EQ(extract(*a, {t}, options).nodes.size(), 1u);
}

TEST(Subgraph, RepeatedSiblingsCollapseIntoOneGroupNode) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app");
    const uint32_t list = b.node("list", 1, "len 1003");
    b.edge(module, list, EdgeKind::Attribute, b.str("names"));
    uint64_t str_bytes = 0;
    for (int i = 0; i < 1000; ++i) {
        const uint32_t s = b.str("name-" + std::to_string(i));
        str_bytes += b.snapshot().node_size[s];
        b.edge(list, s, EdgeKind::Index, static_cast<uint32_t>(i));
    }
    std::vector<uint32_t> ints;
    for (int i = 0; i < 3; ++i) {
        ints.push_back(b.node("int", 1, std::to_string(i)));
        b.edge(list, ints.back(), EdgeKind::Index, static_cast<uint32_t>(1000 + i));
    }
    b.root(module, RootKind::Interpreter, "sys.modules['app']");
    const auto a = testing::analyse(b.build());

    const Subgraph g = extract(*a, {list});
    const auto found = groups(g);
    ASSERT_EQ(found.size(), 1u);
    const SubgraphNode& group = *found[0];
    EXPECT_EQ(group.lines[0], "1,000 \u00d7 str");
    EXPECT_EQ(group.group_count, 1000u);
    EXPECT_EQ(group.group_bytes, str_bytes);
    EXPECT_EQ(group.group_anchor, g.find(list));
    EXPECT_FALSE(group.group_are_referrers);
    // The three ints stay individual: fewer than the threshold.
    for (uint32_t i : ints) EXPECT_NE(g.find(i), kNoNode);
    EXPECT_EQ(g.nodes.size(), 2u /*module, list*/ + 1u /*group*/ + 3u);
    const auto to_group = std::find_if(g.edges.begin(), g.edges.end(), [&](const SubgraphEdge& e) {
        return e.to == static_cast<uint32_t>(&group - g.nodes.data());
    });
    ASSERT_NE(to_group, g.edges.end());
    EXPECT_EQ(to_group->count, 1000u);
    EXPECT_EQ(to_group->from, g.find(list));
    EXPECT_EQ(to_group->label, "1,000 \u00d7 index");

    // A threshold above the crowd draws them one by one, up to the cap.
    SubgraphOptions options;
    options.collapse_threshold = 2000;
    options.max_fanout = 0;
    const Subgraph raw = extract(*a, {list}, options);
    EXPECT_TRUE(groups(raw).empty());
    EXPECT_EQ(raw.nodes.size(), 300u);
}

TEST(Subgraph, SiblingOnThePathStaysOutOfTheGroup) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app");
    const uint32_t list = b.node("list");
    b.edge(module, list);
    std::vector<uint32_t> strs;
    for (int i = 0; i < 50; ++i) {
        strs.push_back(b.str("s" + std::to_string(i)));
        b.edge(list, strs.back(), EdgeKind::Index, static_cast<uint32_t>(i));
    }
    b.root(module, RootKind::Interpreter);
    const auto a = testing::analyse(b.build());
    SubgraphOptions options;
    options.hops = 2;
    const Subgraph g = extract(*a, {strs[7]}, options);
    ASSERT_NE(g.find(strs[7]), kNoNode);
    EXPECT_TRUE(g.nodes[g.find(strs[7])].is_target);
    const auto found = groups(g);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0]->lines[0], "49 \u00d7 str");
    EXPECT_EQ(found[0]->group_anchor, g.find(list));
}

TEST(Subgraph, BusyNodeKeepsMaxFanoutAndGroupsTheRest) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app");
    uint64_t rest_bytes = 0;
    std::vector<uint32_t> members;
    for (int i = 0; i < 40; ++i) {
        members.push_back(b.node("app.T" + std::to_string(i), 1, {}, 100 + i));
        if (i >= 9) rest_bytes += 100 + i;
        b.edge(module, members.back(), EdgeKind::Attribute, b.str("a" + std::to_string(i)));
    }
    const auto a = testing::analyse(b.build());
    SubgraphOptions options;
    options.max_fanout = 10;
    const Subgraph g = extract(*a, {module}, options);
    EXPECT_EQ(g.nodes.size(), 1u + 9u + 1u);
    for (int i = 0; i < 9; ++i) EXPECT_NE(g.find(members[i]), kNoNode);
    EXPECT_EQ(g.find(members[9]), kNoNode);
    const auto found = groups(g);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0]->group_type, kNoType);
    EXPECT_EQ(found[0]->group_count, 31u);
    EXPECT_EQ(found[0]->group_bytes, rest_bytes);
    EXPECT_EQ(found[0]->lines[0], "31 more");
    EXPECT_EQ(g.edges.back().label, "31 \u00d7 attribute");
    EXPECT_FALSE(g.truncated);

    options.max_fanout = 0;
    EXPECT_EQ(extract(*a, {module}, options).nodes.size(), 41u);
}

TEST(Subgraph, ReferrersCollapseToo) {
    SnapshotBuilder b;
    const uint32_t target = b.node("type", 25, "app.Node", 900, format::kNodeTypeObject);
    for (int i = 0; i < 20; ++i) {
        const uint32_t n = b.node("app.Node", 1, {}, 56, format::kNodeGcTracked, "app");
        b.edge(n, target, EdgeKind::Field, b.string_id("ob_type"));
    }
    const auto a = testing::analyse(b.build());
    const Subgraph g = extract(*a, {target});
    const auto found = groups(g);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0]->lines[0], "20 \u00d7 app.Node");
    EXPECT_TRUE(found[0]->group_are_referrers);
    EXPECT_EQ(found[0]->group_bytes, 20u * 56u);
    ASSERT_EQ(g.edges.size(), 1u);
    EXPECT_EQ(g.edges[0].to, g.find(target));
    EXPECT_EQ(g.edges[0].count, 20u);
}

TEST(Subgraph, ClustersByModuleTypeAndCycle) {
    SnapshotBuilder b;
    const uint32_t t = b.node("app.A", 1, {}, 32, format::kNodeGcTracked, "app");
    const uint32_t a2 = b.node("app.B", 1, {}, 32, format::kNodeGcTracked, "app");
    const uint32_t a3 = b.node("app.B", 1, {}, 32, format::kNodeGcTracked, "app");
    const uint32_t l1 = b.node("lib.X", 1, {}, 32, format::kNodeGcTracked, "lib");
    const uint32_t l2 = b.node("lib.Y", 1, {}, 32, format::kNodeGcTracked, "lib");
    const uint32_t lone = b.node("dict");
    for (uint32_t n : {a2, a3, l1, l2, lone}) b.edge(t, n);
    const auto a = testing::analyse(b.build());

    SubgraphOptions options;
    options.cluster_by = ClusterBy::Module;
    Subgraph g = extract(*a, {t}, options);
    ASSERT_EQ(g.clusters.size(), 2u);
    const uint32_t app_cluster = g.nodes[g.find(t)].cluster;
    ASSERT_NE(app_cluster, kNoCluster);
    EXPECT_EQ(g.clusters[app_cluster].label, "module app");
    EXPECT_EQ(g.clusters[app_cluster].node_count, 3u);
    EXPECT_EQ(g.nodes[g.find(a3)].cluster, app_cluster);
    EXPECT_EQ(g.clusters[g.nodes[g.find(l2)].cluster].label, "module lib");
    EXPECT_EQ(g.nodes[g.find(lone)].cluster, kNoCluster);  // alone in builtins

    options.cluster_by = ClusterBy::Type;
    g = extract(*a, {t}, options);
    ASSERT_EQ(g.clusters.size(), 1u);
    EXPECT_EQ(g.clusters[0].label, "type app.B");
    EXPECT_EQ(g.nodes[g.find(a2)].cluster, 0u);
    EXPECT_EQ(g.nodes[g.find(t)].cluster, kNoCluster);

    // Component ids as the cycles analysis would give them: t, a2, l1 in one.
    const std::vector<uint32_t> component = {7, 7, 1, 7, 2, 3};
    options.cluster_by = ClusterBy::Cycle;
    options.component = component;
    g = extract(*a, {t}, options);
    ASSERT_EQ(g.clusters.size(), 1u);
    EXPECT_EQ(g.clusters[0].label, "cycle #7");
    EXPECT_EQ(g.clusters[0].node_count, 3u);
    EXPECT_EQ(g.nodes[g.find(l1)].cluster, 0u);
    EXPECT_EQ(g.nodes[g.find(a3)].cluster, kNoCluster);
}

TEST(Subgraph, EdgeFlagsGcInvisibleWeakBorrowed) {
    SnapshotBuilder b;
    const uint32_t t = b.node("app.Wrapper");
    const uint32_t hidden = b.node("app.Callback");
    const uint32_t weak = b.node("app.Observer");
    const uint32_t borrowed = b.node("app.Parent");
    const uint32_t plain = b.node("dict");
    b.edge(t, hidden, EdgeKind::Native, b.string_id("m_callback"), format::kEdgeOwned);
    b.edge(t, weak, EdgeKind::Weak, 0, 0);
    b.edge(t, borrowed, EdgeKind::Field, b.string_id("parent"), format::kEdgeGcVisible);
    b.edge(t, plain, EdgeKind::Field, b.string_id("__dict__"));
    const auto a = testing::analyse(b.build());
    const Subgraph g = extract(*a, {t});

    const SubgraphEdge* e = find_edge(g, t, hidden);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(e->gc_invisible);
    EXPECT_TRUE(e->owned);
    EXPECT_EQ(e->label, "<native: m_callback>");
    e = find_edge(g, t, weak);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(e->weak);
    EXPECT_FALSE(e->gc_invisible);
    e = find_edge(g, t, borrowed);
    ASSERT_NE(e, nullptr);
    EXPECT_FALSE(e->owned);
    EXPECT_FALSE(e->gc_invisible);
    e = find_edge(g, t, plain);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(e->owned);
    EXPECT_FALSE(e->gc_invisible || e->weak || e->on_path);
}

TEST(Subgraph, ParallelEdgesMergeWithTheirLabels) {
    SnapshotBuilder b;
    const uint32_t list = b.node("list");
    const uint32_t none = b.node("NoneType", 100, {}, 16, 0);
    for (uint32_t i = 0; i < 5; ++i) b.edge(list, none, EdgeKind::Index, i);
    const auto a = testing::analyse(b.build());
    const Subgraph g = extract(*a, {list});
    ASSERT_EQ(g.edges.size(), 1u);
    EXPECT_EQ(g.edges[0].count, 5u);
    EXPECT_EQ(g.edges[0].label, "[0], [1], [2], \u2026 (5 references)");
}

TEST(Subgraph, TargetWithoutPathShowsItsUnexplainedHolder) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app");
    const uint32_t holder = b.node("app.Cache", 1);  // one reference nobody explains
    const uint32_t middle = b.node("dict");
    const uint32_t t = b.node("app.Leaky", 1);
    b.edge(module, b.node("int", 1, "1"));
    b.edge(holder, middle, EdgeKind::Field, b.string_id("__dict__"));
    b.edge(middle, t, EdgeKind::DictValue, b.str("item"));
    b.edge(module, holder, EdgeKind::Weak, 0, 0);
    b.root(module, RootKind::Interpreter, "sys.modules['app']");
    const auto a = testing::analyse(b.build());
    ASSERT_FALSE(a->paths().reachable(t));

    SubgraphOptions options;
    options.hops = 0;
    const Subgraph g = extract(*a, {t}, options);
    ASSERT_EQ(g.nodes.size(), 3u);
    const SubgraphNode& h = g.nodes[g.find(holder)];
    EXPECT_TRUE(h.is_holder);
    EXPECT_TRUE(h.is_suspect);
    EXPECT_TRUE(h.on_path);
    EXPECT_EQ(h.lines.back(), "1 reference the GC cannot see");
    EXPECT_TRUE(find_edge(g, holder, middle)->on_path);
    EXPECT_TRUE(find_edge(g, middle, t)->on_path);
    EXPECT_EQ(g.path_count, 0u);
    ASSERT_EQ(g.notes.size(), 1u);
    EXPECT_NE(g.notes[0].find("no path from GC roots"), std::string::npos);

    // Held directly by an unexplained reference: the target is its own holder.
    const Subgraph own = extract(*a, {holder}, options);
    EXPECT_TRUE(own.nodes[own.find(holder)].is_holder);
    EXPECT_TRUE(own.nodes[own.find(holder)].is_target);
    EXPECT_EQ(own.nodes.size(), 1u);
}

TEST(Subgraph, AlternativePathsThroughOtherParentsAndRoots) {
    SnapshotBuilder b;
    const uint32_t r1 = b.node("module", 1, "app");
    const uint32_t r2 = b.node("module", 1, "other");
    const uint32_t x = b.node("app.X");
    const uint32_t y1 = b.node("app.Y");
    const uint32_t y2 = b.node("app.Y");
    const uint32_t t = b.node("app.T", 2);
    b.edge(r1, x);
    b.edge(x, t);
    b.edge(r2, y1);
    b.edge(y1, y2);
    b.edge(y2, t);
    b.root(r1, RootKind::Interpreter);
    b.root(r2, RootKind::Interpreter);
    const auto a = testing::analyse(b.build());

    SubgraphOptions options;
    options.hops = 0;
    Subgraph g = extract(*a, {t}, options);
    EXPECT_EQ(g.path_count, 1u);
    EXPECT_EQ(g.nodes.size(), 3u);
    EXPECT_EQ(g.find(y1), kNoNode);

    options.max_paths = 3;
    g = extract(*a, {t}, options);
    EXPECT_EQ(g.path_count, 2u);  // only two exist
    EXPECT_EQ(g.nodes.size(), 6u);
    EXPECT_TRUE(g.nodes[g.find(r2)].is_root);
    EXPECT_TRUE(g.nodes[g.find(y1)].on_path);
    EXPECT_TRUE(find_edge(g, y2, t)->on_path);
}

TEST(Subgraph, SuspectsAndLabels) {
    SnapshotBuilder b;
    const uint32_t t = b.node("app.Thing", 2, {}, 2048);
    const uint32_t s = b.str("it's <here>");
    b.edge(t, s, EdgeKind::Attribute, b.str("name"));
    b.root(t, RootKind::ThreadStack, "frame app.py:12 in main, local x");
    const auto a = testing::analyse(b.build());
    const std::vector<uint32_t> suspects = {s};
    SubgraphOptions options;
    options.suspects = suspects;
    const Subgraph g = extract(*a, {t}, options);
    const SubgraphNode& tn = g.nodes[g.find(t)];
    EXPECT_TRUE(tn.is_suspect);  // refcount 2, 1 explained by the frame
    EXPECT_EQ(tn.lines[0], "app.Thing");
    EXPECT_EQ(tn.lines[1], "0x7f0000001000");
    EXPECT_EQ(tn.lines[2], "2.0 KiB \u00b7 refcount 2");
    EXPECT_EQ(tn.lines[3], "root: frame app.py:12 in main, local x");
    EXPECT_EQ(tn.lines[4], "1 reference the GC cannot see");
    const SubgraphNode& sn = g.nodes[g.find(s)];
    EXPECT_TRUE(sn.is_suspect);
    EXPECT_EQ(sn.lines[1], "'it\\'s <here>'");
    EXPECT_EQ(find_edge(g, t, s)->label, ".name");
}

// A frame root names its whole file path: the label line drops the path's
// directories first, then its middle; the tooltip has all of it.
TEST(Subgraph, LongRootLineLosesItsDirectoriesFirst) {
    SnapshotBuilder b;
    const uint32_t t = b.node("app.Thing", 1, {}, 64);
    const std::string where = "frame /home/user/projects/service/src/service/handlers/requests.py:412 in "
                              "handle_request, local pending";
    b.root(t, RootKind::ThreadStack, where);
    const uint32_t longer = b.node("app.Longer", 1, {}, 64);
    b.root(longer, RootKind::ThreadStack,
           "frame /srv/a/handlers_with_a_very_long_module_name_for_requests.py:412 in handle_request, local x");
    // Not a frame: slashes in a module name are not a path to shorten.
    const uint32_t module_root = b.node("app.Mod", 1, {}, 64);
    b.root(module_root, RootKind::Interpreter,
           "sys.modules['plugins/contrib/a/very/long/name/of/a/module/loaded/by/path'].__dict__");
    const uint32_t short_root = b.node("app.Other", 1, {}, 64);
    b.root(short_root, RootKind::ThreadStack, "frame app.py:12 in main, local x");
    const auto a = testing::analyse(b.build());
    const Subgraph g = extract(*a, {t, longer, module_root, short_root}, SubgraphOptions{});
    const SubgraphNode& tn = g.nodes[g.find(t)];
    // File, line, function and local stay.
    EXPECT_EQ(tn.lines.back(), "root: frame \u2026/requests.py:412 in handle_request, local pending");
    EXPECT_NE(tn.tooltip.find("root: " + where), std::string::npos) << tn.tooltip;
    // Still too long without its directories: cut in the middle, both ends kept.
    const std::string& cut = g.nodes[g.find(longer)].lines.back();
    EXPECT_TRUE(cut.starts_with("root: frame \u2026/handlers_")) << cut;
    EXPECT_TRUE(cut.ends_with("handle_request, local x")) << cut;
    EXPECT_EQ(analysis::elide_middle(cut, 64), cut);  // at most 64 characters
    EXPECT_NE(analysis::elide_middle(cut, 63), cut);
    const std::string& module_line = g.nodes[g.find(module_root)].lines.back();
    EXPECT_TRUE(module_line.starts_with("root: sys.modules['plugins/")) << module_line;
    EXPECT_TRUE(module_line.ends_with("by/path'].__dict__")) << module_line;
    // A short root line is shown whole, and the tooltip does not repeat it.
    const SubgraphNode& sn = g.nodes[g.find(short_root)];
    EXPECT_EQ(sn.lines.back(), "root: frame app.py:12 in main, local x");
    EXPECT_EQ(sn.tooltip.find("root:"), std::string::npos) << sn.tooltip;
}

TEST(Subgraph, PickTargetsOfTypeRanksLeaksFirst) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app");
    const uint32_t near = b.node("app.Leaky");
    const uint32_t mid = b.node("list");
    const uint32_t far = b.node("app.Leaky");
    const uint32_t orphan = b.node("app.Leaky", 1);  // held by nothing we know
    b.edge(module, near);
    b.edge(module, mid);
    b.edge(mid, far);
    b.root(module, RootKind::Interpreter);
    const auto a = testing::analyse(b.build());
    EXPECT_EQ(pick_targets_of_type(a->index(), a->roots(), a->paths(), "app.Leaky", 10),
              (std::vector<uint32_t>{orphan, far, near}));
    EXPECT_EQ(pick_targets_of_type(a->index(), a->roots(), a->paths(), "app.Leaky", 1),
              (std::vector<uint32_t>{orphan}));
    EXPECT_TRUE(pick_targets_of_type(a->index(), a->roots(), a->paths(), "nope", 10).empty());
}

}  // namespace
}  // namespace refscope::analysis

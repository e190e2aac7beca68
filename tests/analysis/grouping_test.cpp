#include "refscope/analysis/grouping.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "snapshot_builder.h"

namespace refscope::analysis {
namespace {

using testing::SnapshotBuilder;

TEST(Grouping, ByTypeSortsByBytes) {
    SnapshotBuilder b;
    b.node("dict", 1, {}, 100);
    b.node("dict", 1, {}, 100);
    b.node("app.Leaky", 1, {}, 300, format::kNodeGcTracked, "app");
    b.node("list", 1, {}, 56);
    const Snapshot s = b.build();
    const auto groups = group_objects(s, GroupBy::Type);
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(groups[0].name, "app.Leaky");
    EXPECT_EQ(groups[0].bytes, 300u);
    EXPECT_EQ(groups[1].name, "dict");
    EXPECT_EQ(groups[1].objects, 2u);
    EXPECT_EQ(groups[1].bytes, 200u);
    EXPECT_EQ(groups[2].name, "list");
}

TEST(Grouping, ByModuleCountsModuleObjectsAsThemselves) {
    SnapshotBuilder b;
    b.node("app.Leaky", 1, {}, 300, format::kNodeGcTracked, "app");
    b.node("module", 1, "app", 72);
    b.node("module", 1, "json", 72);
    b.node("dict", 1, {}, 100);
    Snapshot s = b.build();
    s.add_node(0x10, 99, 8, 1, 0, 0);  // bad type id: grouped, not dropped
    const auto groups = group_objects(s, GroupBy::Module);
    ASSERT_EQ(groups.size(), 4u);
    EXPECT_EQ(groups[0].name, "app");
    EXPECT_EQ(groups[0].objects, 2u);
    EXPECT_EQ(groups[0].bytes, 372u);
    EXPECT_EQ(groups[1].name, "builtins");
    EXPECT_EQ(groups[2].name, "json");
    EXPECT_EQ(groups[3].name, "(no module)");
}

// module app → dict → A ⇄ B (an alive cycle); app.Leaky held by unexplained
// surplus → list; an unreachable Wrapper ⇄ Value pair whose Wrapper → Value
// reference the collector cannot see; an unreachable int.
struct CycleHeap {
    Snapshot snapshot;
    uint32_t module = 0, dict = 0, a = 0, b = 0, leaky = 0, list = 0, wrapper = 0, value = 0, orphan = 0;

    CycleHeap() {
        SnapshotBuilder h;
        module = h.node("module", 1, "app", 100);
        dict = h.node("dict", 1, {}, 200);
        a = h.node("app.A", 2, {}, 50, format::kNodeGcTracked, "app");
        b = h.node("app.B", 1, {}, 40, format::kNodeGcTracked, "app");
        leaky = h.node("app.Leaky", 2, {}, 300, format::kNodeGcTracked, "app");
        list = h.node("list", 1, {}, 60);
        wrapper = h.node("fixture.Wrapper", 1, {}, 70, format::kNodeGcTracked, "fixture");
        value = h.node("fixture.Value", 1, {}, 30, format::kNodeGcTracked, "fixture");
        orphan = h.node("int", 0, "7", 28, 0);
        h.edge(module, dict, format::EdgeKind::Attribute, h.string_id("__dict__"));
        h.edge(dict, a);
        h.edge(a, b);
        h.edge(b, a);
        h.edge(leaky, list);
        h.edge(wrapper, value, format::EdgeKind::Attribute, h.string_id("value"), format::kEdgeOwned);
        h.edge(value, wrapper);
        h.root(module, format::RootKind::Interpreter, "sys.modules['app']");
        snapshot = h.build();
    }
};

struct Analyses {
    GraphIndex index;
    RootClasses roots;
    RetentionPaths paths;
    explicit Analyses(const Snapshot& s) : index(s), roots(index), paths(index, roots) {}
};

void expect_group(const GroupTotal& g, const std::string& name, uint64_t objects, uint64_t bytes) {
    EXPECT_EQ(g.name, name);
    EXPECT_EQ(g.objects, objects) << name;
    EXPECT_EQ(g.bytes, bytes) << name;
}

TEST(Grouping, ByCycleNamesFateAndTypes) {
    const CycleHeap heap;
    const Analyses an(heap.snapshot);
    const Cycles cycles(an.index, an.roots, an.paths);
    ASSERT_EQ(cycles.count(), 2u);
    const std::string alive = "cycle #" + std::to_string(cycles.cycle_of(heap.a)) +
                              " (alive): 1 × app.A, 1 × app.B";
    const std::string invisible = "cycle #" + std::to_string(cycles.cycle_of(heap.wrapper)) +
                                  " (uncollectable: invisible edge): 1 × fixture.Wrapper, 1 × fixture.Value";

    const auto groups = group_by_cycle(cycles, heap.snapshot);
    ASSERT_EQ(groups.size(), 3u);
    expect_group(groups[0], "(not in a cycle)", 5, 100 + 200 + 300 + 60 + 28);
    expect_group(groups[1], invisible, 2, 100);
    expect_group(groups[2], alive, 2, 90);

    // Only the selected objects count; a group with none left is dropped.
    const std::vector<uint32_t> selected{heap.b, heap.list, heap.orphan, heap.value};
    const auto some = group_by_cycle(cycles, heap.snapshot, &selected);
    ASSERT_EQ(some.size(), 3u);
    expect_group(some[0], "(not in a cycle)", 2, 88);
    expect_group(some[1], alive, 1, 40);
    expect_group(some[2], invisible, 1, 30);
    const std::vector<uint32_t> outside{heap.dict};
    const auto none_in_cycles = group_by_cycle(cycles, heap.snapshot, &outside);
    ASSERT_EQ(none_in_cycles.size(), 1u);
    expect_group(none_in_cycles[0], "(not in a cycle)", 1, 200);
}

TEST(Grouping, ByCycleShowsThreeTypesThenEllipsis) {
    SnapshotBuilder h;
    std::vector<uint32_t> ring;
    for (int i = 0; i < 4; ++i) ring.push_back(h.node("T" + std::to_string(i), 1, {}, 40 - 10 * i));
    for (int i = 0; i < 4; ++i) h.edge(ring[i], ring[(i + 1) % 4]);
    const Snapshot s = h.build();
    const Analyses an(s);
    const Cycles cycles(an.index, an.roots, an.paths);
    const auto groups = group_by_cycle(cycles, s);
    ASSERT_EQ(groups.size(), 1u);
    expect_group(groups[0], "cycle #0 (collectable garbage): 1 × T0, 1 × T1, 1 × T2, …", 4, 100);
}

TEST(Grouping, ByDominatorGroupsTopLevelRetainers) {
    const CycleHeap heap;
    const Analyses an(heap.snapshot);
    const DominatorTree tree(an.index, an.roots);
    const auto groups = group_by_dominator(tree, heap.snapshot);
    ASSERT_EQ(groups.size(), 3u);
    expect_group(groups[0], "module app @ 0x7f0000001000 (held by roots)", 4, 100 + 200 + 50 + 40);
    expect_group(groups[1], "app.Leaky @ 0x7f0000001100 (unexplained holder)", 2, 360);
    expect_group(groups[2], "(unreachable)", 3, 128);

    const std::vector<uint32_t> selected{heap.b, heap.list, heap.orphan, heap.value};
    const auto some = group_by_dominator(tree, heap.snapshot, &selected);
    ASSERT_EQ(some.size(), 3u);
    expect_group(some[0], "app.Leaky @ 0x7f0000001100 (unexplained holder)", 1, 60);
    expect_group(some[1], "(unreachable)", 2, 58);
    expect_group(some[2], "module app @ 0x7f0000001000 (held by roots)", 1, 40);

    // Selecting everything walks the tree and must agree with the retained
    // sizes the tree computed.
    std::vector<uint32_t> all(heap.snapshot.node_count());
    for (uint32_t n = 0; n < all.size(); ++n) all[n] = n;
    const auto walked = group_by_dominator(tree, heap.snapshot, &all);
    ASSERT_EQ(walked.size(), groups.size());
    for (size_t g = 0; g < groups.size(); ++g) {
        expect_group(walked[g], groups[g].name, groups[g].objects, groups[g].bytes);
    }

    // Without the unexplained holders, the leak is unreachable too.
    const DominatorTree explained(an.index, an.roots, DominatorRoots::Explained);
    const auto strict = group_by_dominator(explained, heap.snapshot);
    ASSERT_EQ(strict.size(), 2u);
    expect_group(strict[0], "(unreachable)", 5, 488);
    expect_group(strict[1], "module app @ 0x7f0000001000 (held by roots)", 4, 390);
}

TEST(Grouping, ByDominatorWalksLongChainsOnce) {
    // A million-long chain would overflow a recursive walk; 200k keeps the
    // test fast and still far deeper than any stack frame budget.
    SnapshotBuilder h;
    constexpr uint32_t kLength = 200000;
    uint32_t previous = h.node("module", 1, "deep", 64);
    h.root(previous, format::RootKind::Interpreter);
    for (uint32_t i = 1; i < kLength; ++i) {
        const uint32_t next = h.node("list", 1, {}, 8);
        h.edge(previous, next);
        previous = next;
    }
    const Snapshot s = h.build();
    const Analyses an(s);
    const DominatorTree tree(an.index, an.roots);
    std::vector<uint32_t> selected;
    for (uint32_t n = kLength; n-- > 0;) selected.push_back(n);  // deepest first
    const auto groups = group_by_dominator(tree, s, &selected);
    ASSERT_EQ(groups.size(), 1u);
    expect_group(groups[0], "module deep @ 0x7f0000001000 (held by roots)", kLength, 64 + 8ull * (kLength - 1));
}

TEST(Grouping, GroupObjectsRejectsAnalysisGroupings) {
    const Snapshot s = SnapshotBuilder().build();
    EXPECT_THROW(group_objects(s, GroupBy::Cycle), std::invalid_argument);
    EXPECT_THROW(group_objects(s, GroupBy::Dominator), std::invalid_argument);
    EXPECT_EQ(group_by_name(GroupBy::Dominator), "dominator");
}

}  // namespace
}  // namespace refscope::analysis

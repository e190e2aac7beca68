#include "refscope/analysis/root_classes.h"

#include <gtest/gtest.h>

#include "snapshot_builder.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using format::RootKind;
using testing::SnapshotBuilder;

struct Analysed {
    explicit Analysed(Snapshot snapshot)
        : s(std::move(snapshot)), index(s), roots(index) {}
    Snapshot s;
    GraphIndex index;
    RootClasses roots;
};

TEST(RootClasses, SurplusIsRefcountMinusOwnedInEdges) {
    SnapshotBuilder b;
    const uint32_t holder = b.node("list", 1);
    const uint32_t x = b.node("app.Leaky", 4, {}, 32, format::kNodeGcTracked, "app");
    b.edge(holder, x, EdgeKind::Index, 0);
    b.edge(holder, x, EdgeKind::Index, 1);
    b.edge(holder, x, EdgeKind::Weak, 0, 0);  // not owned: does not count
    b.edge(holder, x, EdgeKind::Reference, 2, format::kEdgeGcVisible);  // borrowed
    b.root(holder, RootKind::Interpreter, "sys.modules");
    const Analysed a(b.build());

    EXPECT_EQ(a.roots.owned_in(x), 2u);
    const SurplusBreakdown bd = a.roots.breakdown(x);
    EXPECT_TRUE(bd.counted);
    EXPECT_EQ(bd.surplus, 2);
    EXPECT_EQ(bd.unexplained, 2);
    EXPECT_EQ(a.roots.unexplained(x), 2);
    EXPECT_EQ(a.roots.unexplained(holder), 0);
    ASSERT_EQ(a.roots.unexplained_nodes().size(), 1u);
    EXPECT_EQ(a.roots.unexplained_nodes()[0].node, x);
    EXPECT_EQ(a.roots.totals(RootClass::Unexplained).objects, 1u);
    EXPECT_EQ(a.roots.totals(RootClass::Unexplained).references, 2u);
}

TEST(RootClasses, ExplainedInOrderInterpreterThreadExtension) {
    SnapshotBuilder b;
    const uint32_t x = b.node("object", 7);
    // Added out of order: the explanation order must not depend on file order.
    b.root(x, RootKind::Extension, "ext", 5);
    b.root(x, RootKind::ThreadStack, "frame main.py:3, local x", 2);
    b.root(x, RootKind::Interpreter, "sys.modules", 3);
    const Analysed a(b.build());

    const SurplusBreakdown bd = a.roots.breakdown(x);
    EXPECT_EQ(bd.surplus, 7);
    EXPECT_EQ(bd.explained[0], 3);
    EXPECT_EQ(bd.explained[1], 2);
    EXPECT_EQ(bd.explained[2], 2);  // claims 5, only 2 left
    EXPECT_EQ(bd.unexplained, 0);
    EXPECT_EQ(bd.overexplained, 3);
    EXPECT_EQ(a.roots.overexplained_references(), 3u);
    const auto records = a.roots.roots_of(x);
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(a.s.roots[records[0]].kind, RootKind::Interpreter);
    EXPECT_EQ(a.s.roots[records[2]].kind, RootKind::Extension);
}

TEST(RootClasses, CountZeroExplainsAllRemainingSurplus) {
    SnapshotBuilder b;
    const uint32_t none = b.node("NoneType", 1000);
    const uint32_t y = b.node("object", 5);
    b.root(none, RootKind::Interpreter, "static", 0);
    b.root(y, RootKind::Interpreter, "sys", 1);
    b.root(y, RootKind::Extension, "nanobind", 0);
    b.root(y, RootKind::ThreadStack, "local", 1);  // after a count-0 record: not a contradiction
    const Analysed a(b.build());

    EXPECT_EQ(a.roots.breakdown(none).explained[0], 1000);
    EXPECT_EQ(a.roots.unexplained(none), 0);
    const SurplusBreakdown bd = a.roots.breakdown(y);
    EXPECT_EQ(bd.explained[0], 1);
    EXPECT_EQ(bd.explained[1], 1);
    EXPECT_EQ(bd.explained[2], 3);
    EXPECT_EQ(bd.unexplained, 0);
    EXPECT_EQ(bd.overexplained, 0);
    EXPECT_TRUE(a.roots.unexplained_nodes().empty());
}

TEST(RootClasses, ImmortalAndNativeNodesTakeNoPartInArithmetic) {
    SnapshotBuilder b;
    const uint32_t immortal = b.node("int", 1'000'000'000, "1", 28, format::kNodeImmortal);
    const uint32_t native = b.node("std::vector", 0, {}, 64, format::kNodeNative);
    const uint32_t holder = b.node("list", 1);
    b.edge(holder, immortal);
    b.edge(holder, native);
    b.edge(holder, native);
    b.root(immortal, RootKind::Interpreter, "small int", 1);
    const Analysed a(b.build());

    EXPECT_FALSE(a.roots.breakdown(immortal).counted);
    EXPECT_EQ(a.roots.breakdown(immortal).surplus, 0);
    EXPECT_EQ(a.roots.unexplained(immortal), 0);
    EXPECT_EQ(a.roots.unexplained(native), 0);
    EXPECT_TRUE(a.roots.negative_surplus_nodes().empty());  // native: refcount 0 < 2 owned
    EXPECT_TRUE(a.roots.is_root(immortal));
    EXPECT_EQ(a.roots.totals(RootClass::Interpreter).references, 0u);
    // holder: refcount 1, nothing explains it.
    EXPECT_EQ(a.roots.unexplained(holder), 1);
}

TEST(RootClasses, NegativeSurplusIsReportedNotFatal) {
    SnapshotBuilder b;
    const uint32_t p = b.node("list", 0);
    const uint32_t x = b.node("object", 1);
    b.edge(p, x);
    b.edge(p, x);
    b.edge(p, x);
    b.root(p, RootKind::Interpreter, {}, 0);
    b.root(x, RootKind::ThreadStack, "local", 1);
    const Analysed a(b.build());
    ASSERT_EQ(a.roots.negative_surplus_nodes().size(), 1u);
    EXPECT_EQ(a.roots.negative_surplus_nodes()[0].node, x);
    EXPECT_EQ(a.roots.negative_surplus_nodes()[0].references, -2);
    EXPECT_EQ(a.roots.unexplained(x), 0);
    EXPECT_EQ(a.roots.breakdown(x).explained[1], 0);
}

TEST(RootClasses, TotalsCountRecordsObjectsAndReferences) {
    SnapshotBuilder b;
    const uint32_t m = b.node("module", 2, "app");
    const uint32_t l = b.node("list", 1);
    const uint32_t leak = b.node("object", 3);
    b.root(m, RootKind::Interpreter, "sys.modules['app']");
    b.root(m, RootKind::Interpreter, "importlib");
    b.root(l, RootKind::ThreadStack, "local l");
    const Analysed a(b.build());
    EXPECT_EQ(a.roots.totals(RootClass::Interpreter).records, 2u);
    EXPECT_EQ(a.roots.totals(RootClass::Interpreter).objects, 1u);
    EXPECT_EQ(a.roots.totals(RootClass::Interpreter).references, 2u);
    EXPECT_EQ(a.roots.totals(RootClass::ThreadStack).records, 1u);
    EXPECT_EQ(a.roots.totals(RootClass::ThreadStack).references, 1u);
    EXPECT_EQ(a.roots.totals(RootClass::Extension).records, 0u);
    EXPECT_EQ(a.roots.totals(RootClass::Unexplained).objects, 1u);
    EXPECT_EQ(a.roots.totals(RootClass::Unexplained).references, 3u);
    EXPECT_EQ(a.roots.unexplained(leak), 3);
}

TEST(RootClasses, RootNodesPutInterpreterRootsFirst) {
    SnapshotBuilder b;
    const uint32_t t = b.node("object", 1);
    const uint32_t e = b.node("object", 1);
    const uint32_t i = b.node("object", 1);
    b.root(t, RootKind::ThreadStack, "local");
    b.root(e, RootKind::Extension, "ext");
    b.root(i, RootKind::Interpreter, "sys");
    const Analysed a(b.build());
    EXPECT_EQ(a.roots.root_nodes(), (std::vector<uint32_t>{i, t, e}));
}

TEST(RootClasses, InvalidRecordsAreIgnoredAndCounted) {
    SnapshotBuilder b;
    const uint32_t x = b.node("object", 1);
    b.root(x, RootKind::Interpreter);
    b.root(99, RootKind::Interpreter);
    b.root(x, static_cast<RootKind>(9));
    const Analysed a(b.build());
    EXPECT_EQ(a.roots.invalid_root_records(), 2u);
    EXPECT_EQ(a.roots.roots_of(x).size(), 1u);
}

}  // namespace
}  // namespace refscope::analysis

#include "refscope/analysis/grouping.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace refscope::analysis

// Type names as people type them (type_names.h): a bare class name finds its
// qualified type when one type has it, lists the candidates when several
// do, an exact qualified name always wins, near misses are suggested, and
// the filter's `type:` follows the same rule.
#include "refscope/analysis/type_names.h"

#include <gtest/gtest.h>

#include "refscope/analysis/filter_query.h"
#include "snapshot_builder.h"

namespace refscope::analysis {
namespace {

using testing::SnapshotBuilder;

// __main__.Plugin, app.Plugin, app.Leaky (twice: a class defined twice), a
// type really named Leaky, dict.
Snapshot named_types() {
    SnapshotBuilder b;
    b.node("__main__.Plugin", 1, {}, 32, format::kNodeGcTracked, "__main__");
    b.node("app.Order", 1, {}, 32, format::kNodeGcTracked, "app");
    b.node("app.Order", 1, {}, 32, format::kNodeGcTracked, "app");
    b.node("dict", 1);
    b.node("other.Widget", 1, {}, 32, format::kNodeGcTracked, "other");
    b.node("app.Widget", 1, {}, 32, format::kNodeGcTracked, "app");
    return b.build();
}

TEST(TypeNames, BareNameFindsTheQualifiedType) {
    const Snapshot s = named_types();
    EXPECT_EQ(bare_type_name("__main__.Plugin"), "Plugin");
    EXPECT_EQ(bare_type_name("dict"), "dict");
    EXPECT_EQ(resolve_type_name(s, "Plugin"), "__main__.Plugin");
    EXPECT_EQ(resolve_type_name(s, "__main__.Plugin"), "__main__.Plugin");
    EXPECT_EQ(resolve_type_name(s, "Order"), "app.Order");
    EXPECT_EQ(resolve_type_name(s, "dict"), "dict");
    // A dotted name is never matched by its tail.
    EXPECT_TRUE(types_named(s, "main__.Plugin").empty());
    // Unknown names come back as they are: the caller says "no objects".
    EXPECT_EQ(resolve_type_name(s, "Nothing"), "Nothing");
}

TEST(TypeNames, SharedBareNameListsTheCandidates) {
    const Snapshot s = named_types();
    try {
        resolve_type_name(s, "Widget");
        FAIL() << "expected TypeNameError";
    } catch (const TypeNameError& e) {
        EXPECT_STREQ(e.what(), "'Widget' names 2 types: app.Widget, other.Widget; give the qualified name");
    }
    EXPECT_EQ(types_named(s, "Widget").size(), 2u);
}

TEST(TypeNames, NearMissesAreSuggested) {
    const Snapshot s = named_types();
    EXPECT_EQ(no_type_message(s, "Plugn"), "no objects of type 'Plugn'; did you mean __main__.Plugin?");
    EXPECT_EQ(no_type_message(s, "plugin"), "no objects of type 'plugin'; did you mean __main__.Plugin?");
    EXPECT_EQ(no_type_message(s, "Zebra"), "no objects of type 'Zebra'");
    const std::vector<std::string> widgets = similar_type_names(s, "Widgt");
    EXPECT_EQ(widgets, (std::vector<std::string>{"app.Widget", "other.Widget"}));
}

TEST(TypeNames, FilterTypeFollowsTheSameRule) {
    const Snapshot s = named_types();
    FilterContext context;
    context.snapshot = &s;
    EXPECT_EQ(select_nodes(parse_filter("type:Plugin"), context), (std::vector<uint32_t>{0}));
    EXPECT_EQ(select_nodes(parse_filter("type:Widget"), context), (std::vector<uint32_t>{4, 5}));
    EXPECT_EQ(select_nodes(parse_filter("type:dict"), context), (std::vector<uint32_t>{3}));
    // Globs keep their meaning: `type:Plug*` matches qualified names only.
    EXPECT_TRUE(select_nodes(parse_filter("type:Plug*"), context).empty());
    EXPECT_EQ(select_nodes(parse_filter("type:*.Plugin"), context), (std::vector<uint32_t>{0}));
}

}  // namespace
}  // namespace refscope::analysis

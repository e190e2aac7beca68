#include <functional>
#include <memory>

#include <gtest/gtest.h>

#include "refscope/analysis/filter_query.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "snapshot_builder.h"

namespace refscope {
namespace {

using analysis::CompiledFilter;
using analysis::FilterContext;
using analysis::FilterContextError;
using analysis::parse_filter;
using format::EdgeKind;

// A small heap with one of everything the filter can ask about.
struct SmallHeap {
    SmallHeap() {
        testing::SnapshotBuilder b;
        constexpr uint8_t kTracked = format::kNodeGcTracked;
        const uint32_t modules = b.node("dict", 1, "len 1", 232);                 // 0
        const uint32_t app = b.node("module", 1, "app", 72);                      // 1
        const uint32_t app_dict = b.node("dict", 1, "len 2", 232);                // 2
        const uint32_t held = b.node("app.Leaky", 2, {}, 48, kTracked, "app");    // 3
        const uint32_t leaked = b.node("app.Leaky", 1, {}, 48, kTracked, "app");  // 4
        const uint32_t text = b.str("Hello world");                               // 5
        const uint32_t left = b.node("list", 1, "len 1", 64);                     // 6
        const uint32_t right = b.node("list", 1, "len 1", 64);                    // 7
        b.node("int", 1000, "42", 28, format::kNodeImmortal);                     // 8
        const uint32_t buffer =
            b.node("cpp::Buffer", 0, {}, 4096, format::kNodeNative, "ext");       // 9
        b.node("type", 3, "app.Leaky", 900, kTracked | format::kNodeTypeObject);  // 10
        b.edge(modules, app, EdgeKind::DictValue);
        b.edge(app, app_dict, EdgeKind::Field);
        b.edge(app_dict, held, EdgeKind::DictValue);
        b.edge(app_dict, text, EdgeKind::DictValue);
        b.edge(held, buffer, EdgeKind::Native, 0, format::kEdgeOwned);
        b.edge(left, right, EdgeKind::Index);
        b.edge(right, left, EdgeKind::Index);
        b.root(modules, format::RootKind::Interpreter, "sys.modules", 0);
        snapshot = b.build();
        leaked_address = snapshot.node_address[leaked];
        index = std::make_unique<analysis::GraphIndex>(snapshot);
        roots = std::make_unique<analysis::RootClasses>(*index);
        paths = std::make_unique<analysis::RetentionPaths>(*index, *roots);
        retained = {2000, 1900, 1800, 4144, 48, 60, 128, 128, 28, 4096, 900};
        in_cycle = {0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0};
        is_new = {0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0};
        suspect = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
    }
    FilterContext full() const {
        FilterContext c;
        c.snapshot = &snapshot;
        c.index = index.get();
        c.roots = roots.get();
        c.paths = paths.get();
        c.retained = retained;
        c.in_cycle = in_cycle;
        c.is_new = is_new;
        c.suspect = suspect;
        return c;
    }
    Snapshot snapshot;
    uint64_t leaked_address = 0;
    std::unique_ptr<analysis::GraphIndex> index;
    std::unique_ptr<analysis::RootClasses> roots;
    std::unique_ptr<analysis::RetentionPaths> paths;
    std::vector<uint64_t> retained;
    std::vector<uint8_t> in_cycle, is_new, suspect;
};

// Runs `query` through select(), count(), select_bitmap() and matches() and
// checks each against the brute-force predicate.
void expect_matches(const SmallHeap& heap, const std::string& query,
                    const std::function<bool(uint32_t)>& expected) {
    SCOPED_TRACE("query: " + query);
    const CompiledFilter filter(parse_filter(query), heap.full());
    std::vector<uint32_t> want;
    for (uint32_t n = 0; n < heap.snapshot.node_count(); ++n) {
        if (expected(n)) want.push_back(n);
        EXPECT_EQ(filter.matches(n), expected(n)) << "node " << n;
    }
    EXPECT_EQ(filter.select(), want);
    EXPECT_EQ(filter.count(), want.size());
    std::vector<uint8_t> bitmap;
    filter.select_bitmap(bitmap);
    ASSERT_EQ(bitmap.size(), heap.snapshot.node_count());
    for (uint32_t n = 0; n < bitmap.size(); ++n) EXPECT_EQ(bitmap[n] != 0, expected(n));
}

TEST(FilterEval, AgreesWithBruteForce) {
    const SmallHeap heap;
    const Snapshot& s = heap.snapshot;
    const auto type = [&](uint32_t n) { return s.strings.view(s.types[s.node_type[n]].name); };
    const auto flags = [&](uint32_t n, uint8_t bit) { return (s.node_flags[n] & bit) != 0; };
    const auto surplus_ok = [&](uint32_t n) {
        return !flags(n, format::kNodeImmortal | format::kNodeNative);
    };
    const auto surplus = [&](uint32_t n) {
        return s.node_refcount[n] - int64_t{heap.roots->owned_in(n)};
    };
    const auto leaky = [&](uint32_t n) { return type(n) == "app.Leaky"; };

    // A sanity check of the heap itself: the analysis sees what the test means.
    ASSERT_FALSE(heap.paths->reachable(4));
    ASSERT_TRUE(heap.paths->reachable(3));
    ASSERT_EQ(heap.roots->unexplained(3), 1);

    expect_matches(heap, "", [](uint32_t) { return true; });
    expect_matches(heap, "type:app.Leaky", leaky);
    expect_matches(heap, "type:app.*", leaky);
    expect_matches(heap, "type:*Leaky", leaky);
    expect_matches(heap, "type:?ict", [&](uint32_t n) { return type(n) == "dict"; });
    expect_matches(heap, "type:*", [](uint32_t) { return true; });
    expect_matches(heap, "type:app", [](uint32_t) { return false; });  // exact, not a prefix
    // A module object belongs to the module it is, not to its type's module.
    expect_matches(heap, "module:app", [&](uint32_t n) { return n == 1 || leaky(n); });
    expect_matches(heap, "module:builtins", [&](uint32_t n) {
        return n != 1 && s.strings.view(s.types[s.node_type[n]].module) == "builtins";
    });
    expect_matches(heap, "module:e?t", [&](uint32_t n) { return n == 9; });
    expect_matches(heap, "preview:HELLO", [&](uint32_t n) { return n == 5; });
    expect_matches(heap, "preview:\"o w\"", [&](uint32_t n) { return n == 5; });
    expect_matches(heap, "preview:len",
                   [&](uint32_t n) { return n == 0 || n == 2 || n == 6 || n == 7; });
    char address[32];
    std::snprintf(address, sizeof address, "0x%llx",
                  static_cast<unsigned long long>(heap.leaked_address));
    expect_matches(heap, address, [&](uint32_t n) { return n == 4; });
    expect_matches(heap, std::string("address:") + address, [&](uint32_t n) { return n == 4; });
    expect_matches(heap, "size>=232", [&](uint32_t n) { return s.node_size[n] >= 232; });
    expect_matches(heap, "size<64", [&](uint32_t n) { return s.node_size[n] < 64; });
    expect_matches(heap, "size=64", [&](uint32_t n) { return s.node_size[n] == 64; });
    expect_matches(heap, "size!=64", [&](uint32_t n) { return s.node_size[n] != 64; });
    expect_matches(heap, "size<=48", [&](uint32_t n) { return s.node_size[n] <= 48; });
    expect_matches(heap, "size>4KB", [&](uint32_t n) { return s.node_size[n] > 4000; });
    expect_matches(heap, "size>=4KiB", [&](uint32_t n) { return s.node_size[n] >= 4096; });
    expect_matches(heap, "size>4KiB", [](uint32_t) { return false; });
    expect_matches(heap, "retained>1KB", [&](uint32_t n) { return heap.retained[n] > 1000; });
    expect_matches(heap, "refcount>1", [&](uint32_t n) { return s.node_refcount[n] > 1; });
    expect_matches(heap, "surplus>0", [&](uint32_t n) { return surplus_ok(n) && surplus(n) > 0; });
    expect_matches(heap, "surplus=0", [&](uint32_t n) { return surplus_ok(n) && surplus(n) == 0; });
    expect_matches(heap, "unexplained>0",
                   [&](uint32_t n) { return heap.roots->unexplained(n) > 0; });
    expect_matches(heap, "unexplained=0",
                   [&](uint32_t n) { return heap.roots->unexplained(n) == 0; });
    expect_matches(heap, "distance>=2", [&](uint32_t n) {
        return heap.paths->reachable(n) && heap.paths->distance(n) >= 2;
    });
    expect_matches(heap, "depth<1", [&](uint32_t n) { return n == 0; });
    expect_matches(heap, "referrers>=1", [&](uint32_t n) { return heap.index->in_degree(n) >= 1; });
    expect_matches(heap, "referents=2", [&](uint32_t n) { return heap.index->out_degree(n) == 2; });
    expect_matches(heap, "new", [&](uint32_t n) { return heap.is_new[n] != 0; });
    expect_matches(heap, "unreachable", [&](uint32_t n) { return !heap.paths->reachable(n); });
    expect_matches(heap, "reachable", [&](uint32_t n) { return heap.paths->reachable(n); });
    expect_matches(heap, "cycle", [&](uint32_t n) { return n == 6 || n == 7; });
    expect_matches(heap, "root", [&](uint32_t n) { return n == 0; });
    expect_matches(heap, "immortal", [&](uint32_t n) { return n == 8; });
    expect_matches(heap, "tracked", [&](uint32_t n) { return flags(n, format::kNodeGcTracked); });
    expect_matches(heap, "native", [&](uint32_t n) { return n == 9; });
    expect_matches(heap, "typeobject", [&](uint32_t n) { return n == 10; });
    expect_matches(heap, "suspect", [&](uint32_t n) { return n == 4; });

    // Precedence, negation, grouping.
    expect_matches(heap, "type:app.Leaky unreachable OR native",
                   [&](uint32_t n) { return (leaky(n) && !heap.paths->reachable(n)) || n == 9; });
    expect_matches(heap, "type:app.Leaky (unreachable OR native)",
                   [&](uint32_t n) { return leaky(n) && !heap.paths->reachable(n); });
    expect_matches(heap, "new OR cycle -tracked", [&](uint32_t n) {
        return heap.is_new[n] || ((n == 6 || n == 7) && !flags(n, format::kNodeGcTracked));
    });
    expect_matches(heap, "-tracked", [&](uint32_t n) { return !flags(n, format::kNodeGcTracked); });
    expect_matches(heap, "not (cycle OR root)",
                   [&](uint32_t n) { return n != 0 && n != 6 && n != 7; });
    expect_matches(heap, "-surplus>0",
                   [&](uint32_t n) { return !(surplus_ok(n) && surplus(n) > 0); });
    expect_matches(heap, "new unexplained>0 OR size>1000 -native", [&](uint32_t n) {
        return (heap.is_new[n] && heap.roots->unexplained(n) > 0) ||
               (s.node_size[n] > 1000 && !flags(n, format::kNodeNative));
    });
}

TEST(FilterEval, MissingColumnsAreErrorsNotEmptyResults) {
    const SmallHeap heap;
    FilterContext bare;
    bare.snapshot = &heap.snapshot;
    const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
        {"retained>1MB", "retained", "'retained' needs the dominator analysis (retained sizes)"},
        {"surplus>0", "surplus", "'surplus' needs the root classes (refcount surplus analysis)"},
        {"unexplained>0", "unexplained",
         "'unexplained' needs the root classes (refcount surplus analysis)"},
        {"distance<3", "distance", "'distance' needs the retention paths (BFS from roots)"},
        {"unreachable", "unreachable", "'unreachable' needs the retention paths (BFS from roots)"},
        {"reachable", "reachable", "'reachable' needs the retention paths (BFS from roots)"},
        {"referrers>1", "referrers", "'referrers' needs the graph index"},
        {"referents>1", "referents", "'referents' needs the graph index"},
        {"new", "new", "'new' needs a diff against an older snapshot"},
        {"cycle", "cycle", "'cycle' needs the cycle analysis (strongly connected components)"},
        {"suspect", "suspect", "'suspect' needs the leak suspect ranking"},
        // Even where the branch could never decide the result.
        {"native OR (type:dict -new)", "new", "'new' needs a diff against an older snapshot"},
    };
    for (const auto& [query, term, message] : cases) {
        try {
            CompiledFilter filter(parse_filter(query), bare);
            ADD_FAILURE() << "no error for " << query;
        } catch (const FilterContextError& e) {
            EXPECT_EQ(e.term(), term);
            EXPECT_EQ(std::string(e.what()), message);
        }
    }
    // What needs no analysis works on a bare context.
    EXPECT_EQ(CompiledFilter(parse_filter("type:dict size>100 root -immortal"), bare).count(), 1u);

    FilterContext no_snapshot;
    EXPECT_THROW(CompiledFilter(parse_filter("new"), no_snapshot), std::invalid_argument);
    FilterContext short_column = heap.full();
    const std::vector<uint8_t> too_short(3, 1);
    short_column.is_new = too_short;
    EXPECT_THROW(CompiledFilter(parse_filter("root"), short_column), std::invalid_argument);
}

TEST(FilterEval, BadIdsInTheSnapshotDoNotReadOutOfBounds) {
    SmallHeap heap;
    heap.snapshot.node_type[4] = 999;
    heap.snapshot.node_preview[5] = 999999;
    FilterContext c;
    c.snapshot = &heap.snapshot;
    EXPECT_EQ(CompiledFilter(parse_filter("type:?"), c).select(), (std::vector<uint32_t>{4}));
    EXPECT_EQ(CompiledFilter(parse_filter("preview:hello"), c).count(), 0u);
    EXPECT_FALSE(CompiledFilter(parse_filter("root"), c).matches(1000));
}

TEST(FilterEval, MillionNodesAgreeWithALoop) {
    // Not timed: checks that block boundaries and the sparse unexplained list
    // are handled on a heap much larger than one block.
    Snapshot s;
    for (const char* name : {"dict", "app.Node", "app.Leaf", "str"}) {
        s.types.push_back({s.strings.add(name), s.strings.add("app"), 0});
    }
    constexpr uint32_t kNodes = 1'000'000;
    for (uint32_t n = 0; n < kNodes; ++n) {
        const uint8_t flags = n % 5 == 0 ? 0 : format::kNodeGcTracked;
        s.add_node(0x7f0000000000ull + 32ull * n, n % 4, 16 + (n * 7919u) % 2000, 1 + n % 3, flags,
                   0);
    }
    for (uint32_t n = 0; n + 1 < kNodes; n += 2) {
        s.add_edge(n, n + 1, EdgeKind::Reference, format::kEdgeOwned | format::kEdgeGcVisible, 0);
    }
    const analysis::GraphIndex index(s);
    const analysis::RootClasses roots(index);
    FilterContext c;
    c.snapshot = &s;
    c.roots = &roots;
    const CompiledFilter filter(parse_filter("type:app.* size>1000 OR -tracked unexplained>1"), c);
    uint64_t expected = 0;
    for (uint32_t n = 0; n < kNodes; ++n) {
        const bool app = s.node_type[n] == 1 || s.node_type[n] == 2;
        const bool tracked = (s.node_flags[n] & format::kNodeGcTracked) != 0;
        expected += (app && s.node_size[n] > 1000) || (!tracked && roots.unexplained(n) > 1);
    }
    EXPECT_GT(expected, 100'000u);
    EXPECT_EQ(filter.count(), expected);
    const auto selected = filter.select();
    ASSERT_EQ(selected.size(), expected);
    EXPECT_TRUE(std::is_sorted(selected.begin(), selected.end()));
    EXPECT_TRUE(filter.matches(selected.back()));
}

}  // namespace
}  // namespace refscope

#include "analyse.h"
#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "random_heap.h"
#include "snapshot_builder.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using testing::SnapshotBuilder;

constexpr uint8_t kVisible = format::kEdgeOwned | format::kEdgeGcVisible;
constexpr uint8_t kInvisible = format::kEdgeOwned;


// Mutual reachability over retaining edges, by transitive closure.
TEST(CyclesBruteForce, RandomHeapsMatchMutualReachability) {
    std::array<int, kCycleFateCount> fates_seen{};
    for (uint64_t seed = 1; seed <= 5000; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const auto a = testing::analyse(testing::random_heap(seed));
        const uint32_t n = a->index().node_count();
        std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
        std::vector<bool> self_loop(n, false);
        for (uint32_t e = 0; e < a->index().edge_count(); ++e) {
            if (!a->index().retains(e)) continue;
            reach[a->index().source(e)][a->index().target(e)] = true;
            if (a->index().source(e) == a->index().target(e)) self_loop[a->index().source(e)] = true;
        }
        for (uint32_t k = 0; k < n; ++k) {
            for (uint32_t i = 0; i < n; ++i) {
                for (uint32_t j = 0; j < n; ++j) {
                    if (reach[i][k] && reach[k][j]) reach[i][j] = true;
                }
            }
        }
        uint32_t on_cycles = 0;
        for (uint32_t v = 0; v < n; ++v) {
            const bool on_cycle = reach[v][v];  // a path of length >= 1 back to itself
            ASSERT_EQ(a->cycles()->cycle_of(v) != kNoCycle, on_cycle) << "node " << v;
            on_cycles += on_cycle ? 1 : 0;
            for (uint32_t w = 0; w < n; ++w) {
                if (!on_cycle || w == v) continue;
                const bool same = reach[v][w] && reach[w][v];
                ASSERT_EQ(a->cycles()->cycle_of(v) == a->cycles()->cycle_of(w), same) << v << " " << w;
            }
        }
        // Members, sizes and fates agree with the per-node view.
        uint32_t listed = 0;
        for (uint32_t c = 0; c < a->cycles()->count(); ++c) {
            const auto members = a->cycles()->members(c);
            const CycleInfo& info = a->cycles()->info(c);
            ASSERT_EQ(info.members, members.size());
            ASSERT_TRUE(std::is_sorted(members.begin(), members.end()));
            uint64_t bytes = 0;
            bool surplus = false;
            bool invisible = false;
            for (uint32_t m : members) {
                EXPECT_EQ(a->cycles()->cycle_of(m), c);
                bytes += a->snapshot().node_size[m];
                surplus = surplus || a->roots().unexplained(m) > 0;
                for (uint32_t e : a->index().out_edges(m)) {
                    invisible = invisible ||
                                (a->index().retains(e) && a->cycles()->cycle_of(a->index().target(e)) == c &&
                                 (a->snapshot().edge_flags[e] & format::kEdgeGcVisible) == 0);
                }
            }
            listed += info.members;
            EXPECT_EQ(info.bytes, bytes);
            EXPECT_EQ(info.reachable, a->paths().reachable(members.front()));
            EXPECT_EQ(info.culprit_edge != kNoEdge, invisible);
            CycleFate expected = CycleFate::CollectableGarbage;
            if (info.reachable) {
                expected = CycleFate::Alive;
            } else if (surplus) {
                expected = CycleFate::HeldFromOutside;
            } else if (invisible) {
                expected = CycleFate::InvisibleEdge;
            }
            if (info.fate == CycleFate::HeldByLeak) {
                ASSERT_EQ(expected, CycleFate::CollectableGarbage);
                // The holder retains the cycle and is itself stuck.
                const uint32_t h = info.culprit_node;
                ASSERT_NE(h, kNoNode);
                EXPECT_TRUE(reach[h][members.front()]);
                const uint32_t hc = a->cycles()->cycle_of(h);
                EXPECT_TRUE(a->roots().unexplained(h) > 0 ||
                            (hc != kNoCycle && a->cycles()->info(hc).fate == CycleFate::InvisibleEdge));
            } else {
                EXPECT_EQ(info.fate, expected) << "cycle " << c;
            }
            EXPECT_FALSE(a->cycles()->explain(c).empty());
            ++fates_seen[static_cast<int>(info.fate)];
        }
        EXPECT_EQ(listed, on_cycles);
        if (::testing::Test::HasFatalFailure()) return;
    }
    // The random heaps must exercise every fate, or this test proves little.
    for (int f = 0; f < kCycleFateCount; ++f) {
        EXPECT_GT(fates_seen[f], 20) << cycle_fate_name(static_cast<CycleFate>(f));
    }
}

TEST(Cycles, EmptySnapshotAndNoCycles) {
    const auto empty = testing::analyse(Snapshot{});
    EXPECT_EQ(empty->cycles()->count(), 0u);
    EXPECT_TRUE(empty->cycles()->ranked(0).empty());
    // A weak self-reference and a borrowed one are not cycles.
    SnapshotBuilder b;
    const uint32_t n = b.node("app.Node", 0);
    b.edge(n, n, EdgeKind::Weak, 0, 0);
    b.edge(n, n, EdgeKind::Reference, 0, format::kEdgeGcVisible);
    const auto a = testing::analyse(b.build());
    EXPECT_EQ(a->cycles()->count(), 0u);
    EXPECT_EQ(a->cycles()->cycle_of(n), kNoCycle);
}

TEST(Cycles, MillionNodeCycleAndChain) {
    constexpr uint32_t kLength = 1'000'000;
    SnapshotBuilder b;
    for (uint32_t n = 0; n < kLength; ++n) b.node("app.Node", 1, {}, 8);
    // A chain 0 → … → N-1 closed back to 0, and a tail chain hanging off it.
    for (uint32_t n = 0; n + 1 < kLength; ++n) b.edge(n, n + 1, EdgeKind::Attribute);
    b.edge(kLength - 1, 0, EdgeKind::Attribute);
    const auto a = testing::analyse(b.build());
    ASSERT_EQ(a->cycles()->count(), 1u);
    EXPECT_EQ(a->cycles()->info(0).members, kLength);
    EXPECT_EQ(a->cycles()->info(0).bytes, 8ull * kLength);
    EXPECT_EQ(a->cycles()->info(0).fate, CycleFate::CollectableGarbage);

    SnapshotBuilder c;
    for (uint32_t n = 0; n < kLength; ++n) c.node("app.Node", 1, {}, 8);
    for (uint32_t n = kLength - 1; n > 0; --n) c.edge(n, n - 1, EdgeKind::Attribute);
    const auto chain = testing::analyse(c.build());
    EXPECT_EQ(chain->cycles()->count(), 0u);
    EXPECT_EQ(chain->cycles()->cycle_of(0), kNoCycle);
}

// nanobind's Wrapper: `w.value = w`, the reference held in C++ and not
// reported by tp_traverse.
Snapshot wrapper_self_cycle(uint8_t value_flags) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app", 72);
    b.root(module, format::RootKind::Interpreter, "sys.modules['app']");
    const uint32_t w = b.node("fixture.Wrapper", 1, {}, 48, format::kNodeGcTracked, "fixture");
    b.edge(w, w, EdgeKind::Slot, b.string_id("value"), value_flags);
    return b.build();
}

// Wrapper -.value (C++)-> function -.__closure__-> tuple -[0]-> cell
// -.cell_contents-> Wrapper.
Snapshot wrapper_closure_cycle(uint8_t value_flags, int64_t wrapper_refcount = 1) {
    SnapshotBuilder b;
    const uint32_t w = b.node("fixture.Wrapper", wrapper_refcount, {}, 48, format::kNodeGcTracked,
                              "fixture");
    const uint32_t f = b.node("function", 1, "app.make.<locals>.callback", 136);
    const uint32_t t = b.node("tuple", 1, "len 1", 48);
    const uint32_t cell = b.node("cell", 1, {}, 40);
    b.edge(w, f, EdgeKind::Slot, b.string_id("value"), value_flags);
    b.edge(f, t, EdgeKind::Field, b.string_id("__closure__"));
    b.edge(t, cell, EdgeKind::Index, 0);
    b.edge(cell, w, EdgeKind::Field, b.string_id("cell_contents"));
    return b.build();
}

TEST(Cycles, WrapperSelfReferenceIsUncollectable) {
    const auto a = testing::analyse(wrapper_self_cycle(kInvisible));
    ASSERT_EQ(a->cycles()->count(), 1u);
    const CycleInfo& info = a->cycles()->info(0);
    EXPECT_EQ(info.fate, CycleFate::InvisibleEdge);
    EXPECT_TRUE(uncollectable(info.fate));
    EXPECT_EQ(info.members, 1u);
    EXPECT_FALSE(info.reachable);
    EXPECT_EQ(info.culprit_edge, 0u);
    EXPECT_FALSE(info.culprit_type_traverses);
    EXPECT_EQ(a->cycles()->explain(0),
              "uncollectable: fixture.Wrapper holds .value without tp_traverse, so the garbage "
              "collector cannot see this cycle");
}

TEST(Cycles, WrapperClosureCycleIsUncollectable) {
    const auto a = testing::analyse(wrapper_closure_cycle(kInvisible));
    ASSERT_EQ(a->cycles()->count(), 1u);
    const CycleInfo& info = a->cycles()->info(0);
    EXPECT_EQ(info.fate, CycleFate::InvisibleEdge);
    EXPECT_EQ(info.members, 4u);
    EXPECT_EQ(info.bytes, 48u + 136u + 48u + 40u);
    ASSERT_NE(info.culprit_edge, kNoEdge);
    EXPECT_EQ(a->snapshot().source_of(info.culprit_edge), 0u);  // the Wrapper
    const std::string why = a->cycles()->explain(0);
    EXPECT_NE(why.find("fixture.Wrapper holds .value without tp_traverse"), std::string::npos) << why;
    const auto types = a->cycles()->top_types(0, 2);
    ASSERT_EQ(types.size(), 2u);
    EXPECT_EQ(types[0].objects, 1u);
    EXPECT_EQ(a->snapshot().strings.view(a->snapshot().types[types[0].type].name), "function");  // most bytes first
}

TEST(Cycles, SameCyclesFullyVisibleAreCollectableGarbage) {
    for (const Snapshot& s : {wrapper_self_cycle(kVisible), wrapper_closure_cycle(kVisible)}) {
        const auto a = testing::analyse(s);
        ASSERT_EQ(a->cycles()->count(), 1u);
        EXPECT_EQ(a->cycles()->info(0).fate, CycleFate::CollectableGarbage);
        EXPECT_EQ(a->cycles()->info(0).culprit_edge, kNoEdge);
        EXPECT_FALSE(uncollectable(a->cycles()->info(0).fate));
        EXPECT_EQ(a->cycles()->explain(0).rfind("collectable garbage", 0), 0u);
    }
}

TEST(Cycles, MemberWithUnexplainedSurplusIsHeldFromOutside) {
    // Refcount 2, one owned reference: one reference nobody in the graph explains.
    const auto a = testing::analyse(wrapper_closure_cycle(kVisible, 2));
    ASSERT_EQ(a->cycles()->count(), 1u);
    const CycleInfo& info = a->cycles()->info(0);
    EXPECT_EQ(info.fate, CycleFate::HeldFromOutside);
    EXPECT_EQ(info.culprit_node, 0u);
    EXPECT_EQ(info.unexplained, 1);
    EXPECT_EQ(a->cycles()->explain(0),
              "uncollectable: held from outside the graph (unexplained refcount surplus on "
              "fixture.Wrapper @ 0x7f0000001000, 1 reference)");

    // With the invisible edge as well, both reasons are named.
    const auto both = testing::analyse(wrapper_closure_cycle(kInvisible, 2));
    EXPECT_EQ(both->cycles()->info(0).fate, CycleFate::HeldFromOutside);
    EXPECT_NE(both->cycles()->explain(0).find("; also fixture.Wrapper holds .value without tp_traverse"),
              std::string::npos);
}

TEST(Cycles, CycleReachableFromModuleIsAlive) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app", 72);
    b.root(module, format::RootKind::Interpreter, "sys.modules['app']");
    const uint32_t d = b.node("dict", 1, "len 1", 232);
    const uint32_t key = b.str("w");
    const uint32_t w = b.node("fixture.Wrapper", 2, {}, 48, format::kNodeGcTracked, "fixture");
    b.edge(module, d, EdgeKind::Field, b.string_id("__dict__"));
    b.dict_item(d, key, w);
    b.edge(w, w, EdgeKind::Slot, b.string_id("value"), kInvisible);
    const auto a = testing::analyse(b.build());
    ASSERT_EQ(a->cycles()->count(), 1u);
    EXPECT_EQ(a->cycles()->info(0).fate, CycleFate::Alive);
    EXPECT_TRUE(a->cycles()->info(0).reachable);
    EXPECT_NE(a->cycles()->info(0).culprit_edge, kNoEdge);  // still worth showing
    EXPECT_EQ(a->cycles()->explain(0).rfind("alive: reachable from the roots", 0), 0u);
}

// A visible cycle under a leaked holder, and one under an invisible cycle:
// the collector frees neither, though nothing is wrong inside them.
TEST(Cycles, CyclesUnderLeaksAreHeldByLeak) {
    SnapshotBuilder b;
    const uint32_t holder = b.node("app.Holder", 1, {}, 64);  // unexplained surplus 1
    const uint32_t a1 = b.node("list", 2, {}, 56);  // from the holder and from a2
    const uint32_t a2 = b.node("list", 1, {}, 56);
    b.edge(holder, a1);
    b.edge(a1, a2);
    b.edge(a2, a1);
    const uint32_t w = b.node("fixture.Wrapper", 1, {}, 48, format::kNodeGcTracked, "fixture");
    b.edge(w, w, EdgeKind::Slot, b.string_id("value"), kInvisible);
    const uint32_t c1 = b.node("dict", 2, {}, 232);
    const uint32_t c2 = b.node("dict", 1, {}, 232);
    b.edge(w, c1);
    b.edge(c1, c2);
    b.edge(c2, c1);
    const auto a = testing::analyse(b.build());
    ASSERT_EQ(a->cycles()->count(), 3u);
    const CycleInfo& lists = a->cycles()->info(a->cycles()->cycle_of(a1));
    EXPECT_EQ(lists.fate, CycleFate::HeldByLeak);
    EXPECT_EQ(lists.culprit_node, holder);
    EXPECT_EQ(lists.unexplained, 1);
    EXPECT_NE(a->cycles()->explain(a->cycles()->cycle_of(a1)).find("retained by app.Holder @ "),
              std::string::npos);
    const CycleInfo& dicts = a->cycles()->info(a->cycles()->cycle_of(c1));
    EXPECT_EQ(dicts.fate, CycleFate::HeldByLeak);
    EXPECT_EQ(dicts.culprit_node, w);
    EXPECT_NE(a->cycles()->explain(a->cycles()->cycle_of(c1)).find("in an uncollectable cycle"),
              std::string::npos);
    EXPECT_EQ(a->cycles()->info(a->cycles()->cycle_of(w)).fate, CycleFate::InvisibleEdge);
    // The cause ranks first though it is the smallest.
    EXPECT_EQ(a->cycles()->ranked(0),
              (std::vector<uint32_t>{a->cycles()->cycle_of(w), a->cycles()->cycle_of(c1),
                                     a->cycles()->cycle_of(a1)}));
    EXPECT_EQ(a->cycles()->totals(CycleFate::HeldByLeak).cycles, 2u);
    EXPECT_EQ(a->cycles()->totals(CycleFate::HeldByLeak).bytes, 56u * 2 + 232u * 2);
}

// When several references inside a cycle are invisible, blame the type that
// has no tp_traverse at all over one whose tp_traverse merely misses an edge.
TEST(Cycles, CulpritPrefersTypeWithoutTraverse) {
    SnapshotBuilder b;
    const uint32_t d = b.node("dict", 2, {}, 232);
    const uint32_t other = b.node("dict", 0, {}, 232);
    const uint32_t w = b.node("fixture.Wrapper", 1, {}, 48, format::kNodeGcTracked, "fixture");
    b.edge(d, w, EdgeKind::Reference, 0, kInvisible);            // dict, which traverses elsewhere
    b.edge(w, d, EdgeKind::Slot, b.string_id("value"), kInvisible);
    b.edge(other, d, EdgeKind::Reference, 0, kVisible);
    const auto a = testing::analyse(b.build());
    const CycleInfo& info = a->cycles()->info(a->cycles()->cycle_of(w));
    ASSERT_NE(info.culprit_edge, kNoEdge);
    EXPECT_EQ(a->snapshot().source_of(info.culprit_edge), w);
    EXPECT_FALSE(info.culprit_type_traverses);

    // Only the dict's edge invisible: the reason says its tp_traverse misses it.
    SnapshotBuilder c;
    const uint32_t d2 = c.node("dict", 2, {}, 232);
    const uint32_t other2 = c.node("dict", 0, {}, 232);
    const uint32_t w2 = c.node("fixture.Wrapper", 1, {}, 48);
    c.edge(other2, d2, EdgeKind::Reference, 0, kVisible);  // dict does traverse
    c.edge(d2, w2, EdgeKind::Reference, 0, kInvisible);
    c.edge(w2, d2, EdgeKind::Slot, c.string_id("value"), kVisible);
    const auto only = testing::analyse(c.build());
    ASSERT_EQ(only->cycles()->count(), 1u);
    EXPECT_TRUE(only->cycles()->info(0).culprit_type_traverses);
    EXPECT_NE(only->cycles()->explain(0).find("dict's tp_traverse does not report <ref #0>"),
              std::string::npos)
        << only->cycles()->explain(0);
}

// Wrapper -(C++ object)-> its C++ object -(Wrapper::holder)-> a C++ Holder
// -(Holder::function)-> function -> tuple -> cell -> Wrapper: a pybind11 or
// nanobind cycle through C++ members. `traverses_elsewhere` adds a second
// Wrapper whose tp_traverse reports an edge, so the type has one.
Snapshot native_member_cycle(bool traverses_elsewhere) {
    SnapshotBuilder b;
    const uint32_t w = b.node("fixture.Wrapper", 1, {}, 48, format::kNodeGcTracked, "fixture");
    const uint32_t object = b.node("Wrapper", 0, {}, 16, format::kNodeNative, "fixture");
    const uint32_t holder = b.node("Holder", 1, {}, 24, format::kNodeNative, "fixture");
    const uint32_t f = b.node("function", 1, "app.make.<locals>.callback", 136);
    const uint32_t t = b.node("tuple", 1, "len 1", 48);
    const uint32_t cell = b.node("cell", 1, {}, 40);
    b.edge(w, object, EdgeKind::Native, b.string_id("C++ object"), kInvisible);
    b.edge(object, holder, EdgeKind::Native, b.string_id("Wrapper::holder"), kInvisible);
    b.edge(holder, f, EdgeKind::Native, b.string_id("Holder::function"), kInvisible);
    b.edge(f, t, EdgeKind::Field, b.string_id("__closure__"), kVisible);
    b.edge(t, cell, EdgeKind::Index, 0, kVisible);
    b.edge(cell, w, EdgeKind::Field, b.string_id("cell_contents"), kVisible);
    if (traverses_elsewhere) {
        const uint32_t other = b.node("fixture.Wrapper", 0, {}, 48, format::kNodeGcTracked, "fixture");
        b.edge(other, b.node("dict", 1, {}, 232), EdgeKind::Field, b.string_id("__dict__"), kVisible);
    }
    return b.build();
}

// The reference C++ hides is blamed on the Python object above the C++
// members, and whether that object's type traverses decides the wording.
// The cycle finder finds that object from out-edges: the in-edges, built
// for the suspects later, are not built by this stage or those before it.
TEST(Cycles, NativeMembersSpeakThroughTheirPythonHolder) {
    for (const bool traverses_elsewhere : {false, true}) {
        SCOPED_TRACE(traverses_elsewhere);
        const Snapshot s = native_member_cycle(traverses_elsewhere);
        const GraphIndex index(s);
        const RootClasses roots(index);
        const RetentionPaths paths(index, roots);
        const DominatorTree dominators(index, roots, DominatorRoots::ExplainedAndUnexplained);
        const Cycles cycles(index, roots, paths);
        EXPECT_FALSE(index.in_edges_built());
        ASSERT_EQ(cycles.count(), 1u);
        const CycleInfo& info = cycles.info(0);
        EXPECT_EQ(info.members, 6u);
        EXPECT_EQ(info.fate, CycleFate::InvisibleEdge);
        ASSERT_NE(info.culprit_edge, kNoEdge);
        EXPECT_EQ(s.source_of(info.culprit_edge), 2u);  // the Holder
        EXPECT_EQ(info.culprit_type_traverses, traverses_elsewhere);
        const std::string hold = traverses_elsewhere
                                     ? "fixture.Wrapper's tp_traverse does not report "
                                     : "fixture.Wrapper holds ";
        EXPECT_NE(cycles.explain(0).find(hold + "Wrapper::holder \u2192 Holder::function"),
                  std::string::npos)
            << cycles.explain(0);
        EXPECT_FALSE(index.in_edges_built());  // explain() finds the holder the same way
    }
}

// Two Python objects hold the same C++ object through a C++ member each, at
// the same distance; one's type traverses (another instance reports an
// edge), the other's has no tp_traverse. Whichever is taken, the sentence
// names the holder whose type decided its wording.
TEST(Cycles, EquallyNearHoldersNameTheOneThatDecided) {
    SnapshotBuilder b;
    const uint32_t traverses = b.node("app.Traverses", 1, {}, 48, format::kNodeGcTracked, "app");
    const uint32_t wrapper = b.node("fixture.Wrapper", 1, {}, 48, format::kNodeGcTracked, "fixture");
    const uint32_t wrapper_object = b.node("Wrapper", 0, {}, 16, format::kNodeNative, "fixture");
    const uint32_t traverses_object = b.node("Traverses", 0, {}, 16, format::kNodeNative, "app");
    const uint32_t shared = b.node("Shared", 2, {}, 24, format::kNodeNative, "fixture");
    const uint32_t f = b.node("function", 1, "app.make.<locals>.callback", 136);
    const uint32_t other = b.node("app.Traverses", 0, {}, 48, format::kNodeGcTracked, "app");
    b.edge(traverses, traverses_object, EdgeKind::Native, b.string_id("C++ object"), kInvisible);
    b.edge(wrapper, wrapper_object, EdgeKind::Native, b.string_id("C++ object"), kInvisible);
    b.edge(wrapper_object, shared, EdgeKind::Native, b.string_id("Wrapper::shared"), kInvisible);
    b.edge(traverses_object, shared, EdgeKind::Native, b.string_id("Traverses::shared"), kInvisible);
    b.edge(shared, f, EdgeKind::Native, b.string_id("Shared::function"), kInvisible);
    b.edge(f, traverses, EdgeKind::Field, b.string_id("a"), kVisible);
    b.edge(f, wrapper, EdgeKind::Field, b.string_id("b"), kVisible);
    b.edge(other, b.node("dict", 1, {}, 232), EdgeKind::Field, b.string_id("__dict__"), kVisible);
    const auto a = testing::analyse(b.build());
    const uint32_t c = a->cycles()->cycle_of(shared);
    ASSERT_NE(c, kNoCycle);
    const CycleInfo& info = a->cycles()->info(c);
    ASSERT_EQ(info.members, 6u);
    ASSERT_NE(info.culprit_edge, kNoEdge);
    EXPECT_EQ(a->snapshot().source_of(info.culprit_edge), shared);
    const std::string why = a->cycles()->explain(c);
    const bool names_traverses = why.find("app.Traverses") != std::string::npos;
    EXPECT_NE(names_traverses, why.find("fixture.Wrapper") != std::string::npos) << why;
    EXPECT_EQ(info.culprit_type_traverses, names_traverses) << why;
    EXPECT_NE(why.find(names_traverses ? "app.Traverses's tp_traverse does not report Traverses::shared \u2192 "
                                         "Shared::function"
                                       : "fixture.Wrapper holds Wrapper::shared \u2192 Shared::function"),
              std::string::npos)
        << why;
}

TEST(Cycles, RankedPutsUncollectableFirstThenBySize) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app", 72);
    b.root(module, format::RootKind::Interpreter);
    // Alive, big.
    const uint32_t big1 = b.node("dict", 2, {}, 10'000);
    const uint32_t big2 = b.node("dict", 1, {}, 10'000);
    b.edge(module, big1);
    b.edge(big1, big2);
    b.edge(big2, big1);
    // Garbage, medium.
    const uint32_t g1 = b.node("list", 1, {}, 500);
    const uint32_t g2 = b.node("list", 1, {}, 500);
    b.edge(g1, g2);
    b.edge(g2, g1);
    // Uncollectable, small and smaller.
    const uint32_t w1 = b.node("fixture.Wrapper", 1, {}, 48);
    b.edge(w1, w1, EdgeKind::Slot, b.string_id("value"), kInvisible);
    const uint32_t w2 = b.node("fixture.Wrapper", 2, {}, 40);  // surplus 1
    b.edge(w2, w2, EdgeKind::Slot, b.string_id("value"), kVisible);
    const auto a = testing::analyse(b.build());
    ASSERT_EQ(a->cycles()->count(), 4u);
    const std::vector<uint32_t> expected = {a->cycles()->cycle_of(w1), a->cycles()->cycle_of(w2),
                                            a->cycles()->cycle_of(g1), a->cycles()->cycle_of(big1)};
    EXPECT_EQ(a->cycles()->ranked(0), expected);
    EXPECT_EQ(a->cycles()->ranked(2), std::vector<uint32_t>(expected.begin(), expected.begin() + 2));
    EXPECT_EQ(a->cycles()->info(a->cycles()->cycle_of(w2)).fate, CycleFate::HeldFromOutside);
    EXPECT_EQ(cycle_fate_name(CycleFate::CollectableGarbage), "collectable garbage");
}

}  // namespace
}  // namespace refscope::analysis

// Leak suspects on hand-built snapshots shaped like a real interpreter: a
// few hundred strs and ints with unexplained surplus held by C statics,
// static types, sys.modules and a module `app` with a dict cache — then one
// real problem at a time, which must come out on top as one row per type.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/filter_query.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/leak_suspects.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/analysis/snapshot_diff.h"
#include "snapshot_builder.h"
#include "suspects_analysis.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using testing::contains;
using testing::SnapshotBuilder;

constexpr uint8_t kInvisible = format::kEdgeOwned;  // owned, not reported by tp_traverse

struct Scenario {
    uint32_t leaky = 0;            // app.Leaky objects with unexplained surplus 1, each with a __dict__
    bool wrapper_cycle = false;    // fixture.Wrapper -.value (C++)-> itself
    uint32_t sessions = 0;         // app.Session objects in app's cache list
    uint32_t requests = 0;         // app.Request objects in the same list (after the sessions)
    uint64_t sequence = 0;
};

// The interpreter's own furniture, always built first and in the same order
// so that two snapshots of the "same process" share addresses.
Snapshot interpreter_heap(const Scenario& sc) {
    SnapshotBuilder b;
    constexpr uint8_t kStaticType = format::kNodeTypeObject | format::kNodeStaticType;
    // Static types, held by C statics (interpreter roots explaining everything).
    for (const char* name : {"str", "int", "dict", "list", "tuple"}) {
        const uint32_t t = b.node("type", 40, name, 400, kStaticType);
        b.root(t, format::RootKind::Interpreter, std::string("static type ") + name, 0);
        b.snapshot().types[b.type(name)].type_address = SnapshotBuilder::address_of(t);
    }
    const uint32_t modules = b.node("dict", 1, "sys.modules", 1200);
    b.root(modules, format::RootKind::Interpreter, "sys.modules");
    const uint32_t app = b.node("module", 1, "app", 72);
    b.dict_item(modules, b.str("app", 1), app);
    const uint32_t app_dict = b.node("dict", 1, "app.__dict__", 640);
    b.edge(app, app_dict, EdgeKind::Field, b.string_id("__dict__"));
    const uint32_t cache = b.node("dict", 1, "cache", 4096);
    b.dict_item(app_dict, b.str("CACHE", 1), cache);
    for (int i = 0; i < 20; ++i) {
        const uint32_t key = b.str("key" + std::to_string(i), 1);
        const uint32_t value = b.node("app.Entry", 1, {}, 56, format::kNodeGcTracked, "app");
        b.dict_item(cache, key, value);
    }
    // Interned identifiers and cached ints: surplus 1..6 nobody explains
    // (the interpreter's C statics), some also in the cache's keys.
    for (int i = 0; i < 300; ++i) b.str("ident_" + std::to_string(i), 1 + i % 6);
    for (int i = 0; i < 60; ++i) b.node("int", 1 + i % 3, std::to_string(i), 28, 0);
    // An extension module's state: a small dict held by a C static, holding
    // a few ints — noise, including what it holds.
    const uint32_t state = b.node("dict", 1, "_io state", 232);
    for (int i = 0; i < 4; ++i) b.dict_item(state, b.str("k" + std::to_string(i), 1), b.node("int", 1, "7", 28, 0));

    const uint32_t list = b.node("list", 1, "sessions", 64 + 8 * (sc.sessions + sc.requests));
    b.dict_item(app_dict, b.str("SESSIONS", 1), list);
    for (uint32_t i = 0; i < sc.sessions; ++i) {
        b.edge(list, b.node("app.Session", 1, {}, 48, format::kNodeGcTracked, "app"), EdgeKind::Index, i);
    }
    for (uint32_t i = 0; i < sc.requests; ++i) {
        b.edge(list, b.node("app.Request", 1, {}, 64, format::kNodeGcTracked, "app"), EdgeKind::Index,
               sc.sessions + i);
    }
    for (uint32_t i = 0; i < sc.leaky; ++i) {
        const uint32_t leak = b.node("app.Leaky", 1, {}, 48, format::kNodeGcTracked, "app");
        const uint32_t attrs = b.node("dict", 1, {}, 104);
        b.edge(leak, attrs, EdgeKind::Field, b.string_id("__dict__"));
    }
    if (sc.wrapper_cycle) {
        const uint32_t w = b.node("fixture.Wrapper", 1, {}, 48, format::kNodeGcTracked, "fixture");
        b.edge(w, w, EdgeKind::Slot, b.string_id("value"), kInvisible);
    }
    Snapshot s = b.build();
    s.header.sequence = sc.sequence;
    return s;
}

size_t rank_of(const LeakSuspects& suspects, std::string_view type) {
    for (size_t i = 0; i < suspects.groups().size(); ++i) {
        if (suspects.groups()[i].type == type) return i;
    }
    return suspects.groups().size();
}


TEST(LeakSuspectsScenario, NothingSuspiciousGivesOnlyLowConfidenceNoise) {
    const auto a = testing::analyse(interpreter_heap({}));
    const LeakSuspects suspects(a->suspect_inputs());
    EXPECT_EQ(suspects.high_confidence_count(), 0u);
    ASSERT_FALSE(suspects.groups().empty());  // the noise is listed, marked, last
    for (const SuspectGroup& g : suspects.groups()) {
        EXPECT_EQ(g.confidence, SuspectConfidence::Low) << g.type << ": " << g.reason;
    }
    const SuspectGroup* str = suspects.find("str");
    ASSERT_NE(str, nullptr);
    EXPECT_EQ(str->surplus_objects, 300u);  // every interned identifier, none of the cache keys
    EXPECT_EQ(str->unreachable_objects, 4u);  // the extension state's keys
    EXPECT_EQ(str->objects, 304u);
    EXPECT_TRUE(contains(str->reason, "probably static state held from C, the interpreter's")) << str->reason;
    EXPECT_TRUE(contains(str->reason, "300 objects of type str have 1,050 references nobody"))
        << str->reason;
    // What the extension state dict holds is noise too.
    const SuspectGroup* ints = suspects.find("int");
    ASSERT_NE(ints, nullptr);
    EXPECT_EQ(ints->objects, 64u);
    EXPECT_TRUE(ints->kinds & kSuspectUnreachable);
    // The per-node column marks nothing.
    for (const uint8_t bits : suspects.node_column()) ASSERT_EQ(bits, 0);

    SuspectOptions high_only;
    high_only.include_low_confidence = false;
    EXPECT_TRUE(LeakSuspects(a->suspect_inputs(), high_only).groups().empty());
}

TEST(LeakSuspectsScenario, FiftyLeakyObjectsAreOneTopRowAboveTheNoise) {
    const auto a = testing::analyse(interpreter_heap({.leaky = 50}));
    const LeakSuspects suspects(a->suspect_inputs());
    ASSERT_FALSE(suspects.groups().empty());
    const SuspectGroup& top = suspects.groups()[0];
    EXPECT_EQ(top.type, "app.Leaky");
    EXPECT_EQ(top.module, "app");
    EXPECT_EQ(top.confidence, SuspectConfidence::High);
    EXPECT_EQ(top.kinds, kSuspectUnexplainedSurplus);
    EXPECT_EQ(top.objects, 50u);
    EXPECT_EQ(top.unexplained_references, 50);
    EXPECT_EQ(top.shallow_bytes, 50u * 48);
    EXPECT_EQ(top.retained_bytes, 50u * (48 + 104));
    EXPECT_EQ(top.sample.size(), 8u);
    EXPECT_EQ(a->snapshot().node_type[top.representative], a->snapshot().node_type[top.sample[0]]);
    EXPECT_EQ(top.reason,
              "50 objects of type app.Leaky have 50 references nobody in the graph accounts for "
              "(a C/C++ holder or a refcount leak); they retain 7.4 KiB");
    // Their __dicts__ are the second row: unreachable, held by the Leaky objects.
    const SuspectGroup* dicts = suspects.find("dict");
    ASSERT_NE(dicts, nullptr);
    EXPECT_EQ(dicts->confidence, SuspectConfidence::High);
    EXPECT_EQ(dicts->kinds, kSuspectUnreachable);
    EXPECT_EQ(dicts->unreachable_objects, 50u);
    EXPECT_EQ(dicts->holder_count, 50u);
    EXPECT_EQ(type_name(a->snapshot(), dicts->holder), "app.Leaky");
    EXPECT_TRUE(contains(dicts->reason, "50 objects of type dict have no path from any root; they "
                                        "are kept alive by 50 holders, most (1) by app.Leaky @"))
        << dicts->reason;
    EXPECT_EQ(suspects.high_confidence_count(), 2u);
    EXPECT_LT(rank_of(suspects, "app.Leaky"), rank_of(suspects, "str"));
    // str is still there, low and after every high row.
    EXPECT_EQ(suspects.find("str")->confidence, SuspectConfidence::Low);
    EXPECT_GE(rank_of(suspects, "str"), suspects.high_confidence_count());
    // The column marks the Leaky objects and their dicts, not the strs.
    uint32_t marked = 0;
    for (uint32_t n = 0; n < a->snapshot().node_count(); ++n) {
        const uint8_t bits = suspects.node_column()[n];
        if (type_name(a->snapshot(), n) == "str") {
            EXPECT_EQ(bits, 0) << n;
        }
        if (type_name(a->snapshot(), n) == "app.Leaky") {
            EXPECT_EQ(bits, kSuspectUnexplainedSurplus) << n;
        }
        marked += bits != 0;
    }
    EXPECT_EQ(marked, 100u);

    // The filter reads the column as its `suspect` flag.
    FilterContext context;
    context.snapshot = &a->snapshot();
    context.suspect = suspects.node_column();
    EXPECT_EQ(select_nodes(parse_filter("suspect type:app.*"), context).size(), 50u);
    EXPECT_EQ(select_nodes(parse_filter("suspect type:str"), context).size(), 0u);
}

// `roots` lists unexplained holders in this order: the leaked app.Leaky
// objects (1 reference each) before the interpreter's interned strs that
// hold up to 6.
TEST(LeakSuspectsScenario, UnexplainedHoldersRankTheLeakBeforeStaticState) {
    const auto a = testing::analyse(interpreter_heap({.leaky = 3}));
    const LeakSuspects& suspects = *a->suspects();
    const std::vector<NodeCount> top = suspects.rank_unexplained(a->roots(), 5);
    ASSERT_EQ(top.size(), 5u);
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(type_name(a->snapshot(), top[i].node), "app.Leaky") << i;
    EXPECT_EQ(top[3].references, 6);  // then static state, most references first
    EXPECT_EQ(suspects.rank_unexplained(a->roots()).size(), a->roots().unexplained_nodes().size());
    // Without a high-confidence row the order is by references alone.
    const auto clean = testing::analyse(interpreter_heap({}));
    const std::vector<NodeCount> all = clean->suspects()->rank_unexplained(clean->roots());
    ASSERT_FALSE(all.empty());
    EXPECT_TRUE(std::is_sorted(all.begin(), all.end(), [](const NodeCount& x, const NodeCount& y) {
        return x.references != y.references ? x.references > y.references : x.node < y.node;
    }));
}

TEST(LeakSuspectsScenario, UncollectableWrapperCycleNamesTheMissingTraverse) {
    const auto a = testing::analyse(interpreter_heap({.wrapper_cycle = true}));
    const LeakSuspects suspects(a->suspect_inputs());
    ASSERT_EQ(suspects.high_confidence_count(), 1u);
    const SuspectGroup& top = suspects.groups()[0];
    EXPECT_EQ(top.type, "fixture.Wrapper");
    EXPECT_EQ(top.kinds, kSuspectUncollectableCycle);
    EXPECT_EQ(top.cycle_objects, 1u);
    EXPECT_EQ(top.retained_bytes, 48u);  // outside the dominator tree: itself
    EXPECT_EQ(top.cycle_count, 1u);
    ASSERT_NE(top.cycle, kNoCycle);
    EXPECT_EQ(a->cycles()->info(top.cycle).fate, CycleFate::InvisibleEdge);
    EXPECT_EQ(top.reason,
              "1 object of type fixture.Wrapper is in 1 uncollectable cycle (48 B of them): "
              "fixture.Wrapper holds .value without tp_traverse, so the garbage collector cannot "
              "see this cycle");
}

TEST(LeakSuspects, ObjectsHeldByAnUncollectableCycleNameIt) {
    SnapshotBuilder b;
    const uint32_t w = b.node("fixture.Wrapper", 1, {}, 48, format::kNodeGcTracked, "fixture");
    b.edge(w, w, EdgeKind::Slot, b.string_id("value"), kInvisible);
    for (int i = 0; i < 3; ++i) {
        b.edge(w, b.node("app.Payload", 1, {}, 1000, format::kNodeGcTracked, "app"), EdgeKind::Slot,
               b.string_id("payload"));
    }
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    const SuspectGroup* payload = suspects.find("app.Payload");
    ASSERT_NE(payload, nullptr);
    EXPECT_EQ(payload->kinds & ~kSuspectLargeRetained, kSuspectUnreachable);
    EXPECT_EQ(payload->holder, w);
    EXPECT_EQ(payload->holder_count, 1u);
    EXPECT_TRUE(contains(payload->reason, "3 objects of type app.Payload have no path from any root; "
                                          "they are kept alive by an uncollectable cycle (invisible "
                                          "edge) of 1 object containing fixture.Wrapper @ 0x7f0000001000"))
        << payload->reason;
    EXPECT_EQ(suspects.node_column()[1], payload->kinds);
}

TEST(LeakSuspectsScenario, GrowthOfAThousandSessionsIsRanked) {
    const auto base = testing::analyse(interpreter_heap({.sessions = 200, .sequence = 1}));
    const auto now = testing::analyse(interpreter_heap({.sessions = 1200, .sequence = 2}));
    const SnapshotDiff diff = diff_snapshots(base->snapshot(), now->snapshot());
    SuspectInputs inputs = now->suspect_inputs();
    inputs.diff = &diff;
    const LeakSuspects suspects(inputs);
    ASSERT_FALSE(suspects.groups().empty());
    const SuspectGroup& top = suspects.groups()[0];
    EXPECT_EQ(top.type, "app.Session");
    EXPECT_EQ(top.confidence, SuspectConfidence::High);
    EXPECT_TRUE(top.kinds & kSuspectGrowth);
    EXPECT_EQ(top.growth_objects, 1000);
    EXPECT_EQ(top.growth_bytes, 1000 * 48);
    EXPECT_EQ(top.objects_before, 200u);
    EXPECT_EQ(top.new_objects, 1000u);
    EXPECT_EQ(top.objects, 1000u);  // the new ones; the 200 old ones are not suspects
    EXPECT_TRUE(contains(top.reason, "app.Session grew by 1,000 objects (+46.9 KiB) since the "
                                     "baseline (200 → 1,200); 1,000 are new"))
        << top.reason;
    // The list holding them grew in bytes, not in count: no growth row for
    // it, but it is where the growth accumulates, and ranks second.
    ASSERT_GE(suspects.groups().size(), 2u);
    const SuspectGroup& list = suspects.groups()[1];
    EXPECT_EQ(list.type, "list");
    EXPECT_EQ(list.kinds, kSuspectLargeRetained);
    EXPECT_EQ(list.confidence, SuspectConfidence::High);
    EXPECT_EQ(list.objects, 1u);
    EXPECT_EQ(list.accumulated_objects, 1000u);
    EXPECT_EQ(list.accumulation_node, list.representative);
    EXPECT_TRUE(contains(list.reason, "list @ 0x7f0000007900 (sessions) holds 1,000 of the 1,000 new "
                                      "objects: the growth accumulates there; it retains 65.7 KiB"))
        << list.reason;
    EXPECT_EQ(suspects.high_confidence_count(), 2u);
    // New sessions are marked, the old ones not.
    uint32_t marked = 0;
    for (uint32_t n = 0; n < now->snapshot().node_count(); ++n) {
        if (type_name(now->snapshot(), n) != "app.Session") continue;
        marked += suspects.node_column()[n] != 0;
        EXPECT_EQ(suspects.node_column()[n] != 0, diff.is_new[n] != 0) << n;
    }
    EXPECT_EQ(marked, 1000u);
}

TEST(LeakSuspectsScenario, SmallGrowthInOneHolderRanksAboveAnUncollectableCycle) {
    const auto base = testing::analyse(interpreter_heap({.sessions = 10, .sequence = 1}));
    Scenario sc{.wrapper_cycle = true, .sessions = 30, .sequence = 2};
    const auto now = testing::analyse(interpreter_heap(sc));
    const SnapshotDiff diff = diff_snapshots(base->snapshot(), now->snapshot());
    SuspectInputs inputs = now->suspect_inputs();
    inputs.diff = &diff;
    const LeakSuspects suspects(inputs);
    // Twenty new sessions (960 B) that all accumulate in one list lead a
    // growth, and outrank a cycle the collector cannot free; the wrapper is
    // new too, but one object is not growth.
    EXPECT_EQ(rank_of(suspects, "app.Session"), 0u);
    EXPECT_EQ(suspects.groups()[0].kinds, kSuspectGrowth | kSuspectGrowingHolder);
    EXPECT_EQ(suspects.groups()[0].growth_objects, 20);
    EXPECT_EQ(suspects.groups()[0].lead_holder_objects, 20u);
    EXPECT_EQ(rank_of(suspects, "fixture.Wrapper"), 1u);
    EXPECT_EQ(suspects.groups()[1].kinds, kSuspectUncollectableCycle);

    // Below the growth threshold there is no growth evidence at all.
    SuspectOptions strict;
    strict.min_growth_objects = 21;
    const LeakSuspects fewer(inputs, strict);
    EXPECT_EQ(fewer.find("app.Session"), nullptr);
}

TEST(LeakSuspectsScenario, ThreeSnapshotSurvivorsAreGroupedByType) {
    const Snapshot first = interpreter_heap({.sessions = 200, .sequence = 1});
    const Snapshot second = interpreter_heap({.sessions = 1200, .requests = 300, .sequence = 2});
    const auto third = testing::analyse(interpreter_heap({.sessions = 1200, .sequence = 3}));
    const SurvivorReport report = find_survivors(first, second, third->snapshot());
    SuspectInputs inputs = third->suspect_inputs();
    inputs.survivors = &report;
    const LeakSuspects suspects(inputs);
    ASSERT_FALSE(suspects.groups().empty());
    const SuspectGroup& top = suspects.groups()[0];
    EXPECT_EQ(top.type, "app.Session");
    EXPECT_EQ(top.kinds, kSuspectSurvivor | kSuspectGrowingHolder);
    EXPECT_EQ(top.survivor_objects, 1000u);
    EXPECT_EQ(top.survivor_bytes, 48'000u);
    EXPECT_EQ(top.objects, 1000u);
    EXPECT_EQ(top.lead_objects, 1000u);
    EXPECT_EQ(top.lead_holder_objects, 1000u);
    EXPECT_EQ(top.lead_holder_name, "app.SESSIONS");
    EXPECT_EQ(top.reason,
              "1,000 objects of type app.Session (46.9 KiB) allocated between snapshots 1 and 2 "
              "are still alive in snapshot 3; new app.Session objects accumulate in app.SESSIONS "
              "(list @ 0x7f0000007900 (sessions)): it holds 1,000 of the 1,000 surviving ones");
    // The requests were freed again: no row for them.
    EXPECT_EQ(suspects.find("app.Request"), nullptr);
    // Besides the survivors' own row, only the list they accumulate in.
    EXPECT_EQ(suspects.high_confidence_count(), 2u);
    const SuspectGroup& list = suspects.groups()[1];
    EXPECT_EQ(list.type, "list");
    EXPECT_EQ(list.accumulated_objects, 1000u);
    EXPECT_TRUE(contains(list.reason, "holds 1,000 of the 1,000 surviving objects")) << list.reason;
}

TEST(LeakSuspectsScenario, EverythingAtOnceStaysOneRowPerTypeAndDeterministic) {
    const auto base = testing::analyse(interpreter_heap({.sessions = 200, .sequence = 1}));
    const auto now = testing::analyse(interpreter_heap({.leaky = 50, .wrapper_cycle = true, .sessions = 1200, .sequence = 2}));
    const SnapshotDiff diff = diff_snapshots(base->snapshot(), now->snapshot());
    SuspectInputs inputs = now->suspect_inputs();
    inputs.diff = &diff;
    const LeakSuspects one(inputs);
    const LeakSuspects two(inputs);
    ASSERT_EQ(one.groups().size(), two.groups().size());
    for (size_t i = 0; i < one.groups().size(); ++i) {
        EXPECT_EQ(one.groups()[i].type, two.groups()[i].type);
        EXPECT_EQ(one.groups()[i].score, two.groups()[i].score);
        EXPECT_EQ(one.groups()[i].reason, two.groups()[i].reason);
    }
    // app.Leaky is new too (not in the baseline): one row with two reasons.
    const SuspectGroup* leaky = one.find("app.Leaky");
    ASSERT_NE(leaky, nullptr);
    EXPECT_EQ(leaky->kinds, kSuspectUnexplainedSurplus | kSuspectGrowth);
    EXPECT_EQ(leaky->objects, 50u);
    ASSERT_EQ(leaky->reasons.size(), 2u);
    EXPECT_EQ(leaky->reason, leaky->reasons[0] + "; " + leaky->reasons[1]);
    // High rows before low rows, each by descending score.
    for (size_t i = 1; i < one.groups().size(); ++i) {
        const SuspectGroup& p = one.groups()[i - 1];
        const SuspectGroup& q = one.groups()[i];
        ASSERT_LE(p.confidence, q.confidence);
        if (p.confidence == q.confidence) {
            ASSERT_GE(p.score, q.score);
        }
    }
    size_t high_rows_per_type = 0;
    for (const SuspectGroup& g : one.groups()) {
        high_rows_per_type += g.type == "app.Leaky" ? 1 : 0;
    }
    EXPECT_EQ(high_rows_per_type, 1u);
}

TEST(LeakSuspects, EmptySnapshot) {
    const auto a = testing::analyse(Snapshot{});
    const LeakSuspects suspects(a->suspect_inputs());
    EXPECT_TRUE(suspects.groups().empty());
    EXPECT_TRUE(suspects.node_column().empty());
    EXPECT_EQ(suspects.high_confidence_count(), 0u);
}

TEST(LeakSuspects, WithoutDiffThereIsNoGrowthOrSurvivorEvidence) {
    const auto a = testing::analyse(interpreter_heap({.leaky = 5, .sessions = 100}));
    const LeakSuspects suspects(a->suspect_inputs());
    for (const SuspectGroup& g : suspects.groups()) {
        EXPECT_EQ(g.kinds & (kSuspectGrowth | kSuspectSurvivor), 0) << g.type;
    }
    EXPECT_EQ(suspects.find("app.Session"), nullptr);
}

TEST(LeakSuspects, RefusesMissingInputsAndMismatchedColumns) {
    const auto a = testing::analyse(interpreter_heap({}));
    SuspectInputs missing = a->suspect_inputs();
    missing.cycles = nullptr;
    EXPECT_THROW(LeakSuspects{missing}, std::invalid_argument);
    SnapshotDiff short_diff;
    short_diff.is_new.assign(3, 0);
    SuspectInputs with_diff = a->suspect_inputs();
    with_diff.diff = &short_diff;
    EXPECT_THROW(LeakSuspects{with_diff}, std::invalid_argument);
    SurvivorReport short_report;
    SuspectInputs with_report = a->suspect_inputs();
    with_report.survivors = &short_report;
    EXPECT_THROW(LeakSuspects{with_report}, std::invalid_argument);
}

TEST(LeakSuspects, TypesSharingANameAreOneRow) {
    SnapshotBuilder b;
    b.node("app.Node", 1, {}, 40, format::kNodeGcTracked, "app");
    // A second type with the same name (a class redefined by a reload).
    TypeInfo again;
    again.name = b.string_id("app.Node");
    again.module = b.string_id("app");
    b.snapshot().types.push_back(again);
    b.snapshot().add_node(0x9000, static_cast<uint32_t>(b.snapshot().types.size() - 1), 40, 1,
                          format::kNodeGcTracked, 0);
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    ASSERT_EQ(suspects.high_confidence_count(), 1u);
    EXPECT_EQ(suspects.groups()[0].type, "app.Node");
    EXPECT_EQ(suspects.groups()[0].objects, 2u);
}

// Issue 16, defect A: a row added the retained bytes of every member whose
// immediate dominator was outside the row, so members under members with
// another type in between were counted again (a tuple row retained more
// than the whole heap).
TEST(LeakSuspects, MembersUnderMembersOfTheSameRowCountOnceThroughOtherTypes) {
    // A leaked chain alternating app.Node (40 B) and app.Link (24 B).
    SnapshotBuilder b;
    uint32_t previous = b.node("app.Node", 2, {}, 40, format::kNodeGcTracked, "app");
    for (int i = 0; i < 49; ++i) {
        const uint32_t link = b.node("app.Link", 1, {}, 24, format::kNodeGcTracked, "app");
        const uint32_t next = b.node("app.Node", 1, {}, 40, format::kNodeGcTracked, "app");
        b.edge(previous, link, EdgeKind::Attribute);
        b.edge(link, next, EdgeKind::Attribute);
        previous = next;
    }
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    const uint64_t heap = 50 * 40 + 49 * 24;
    std::map<std::string, uint64_t> retained;
    for (const SuspectGroup& row : suspects.groups()) {
        EXPECT_LE(row.retained_bytes, heap) << row.type;
        retained[row.type] += row.retained_bytes;
    }
    EXPECT_EQ(retained["app.Node"], heap);       // the head's dominator subtree
    EXPECT_EQ(retained["app.Link"], heap - 40);  // the first link's
}

TEST(LeakSuspects, ChainOfOneTypeCountsItsRetainedBytesOnce) {
    // A leaked linked list: the head has the surplus, the rest hang off it.
    SnapshotBuilder b;
    uint32_t previous = b.node("app.Node", 2, {}, 40, format::kNodeGcTracked, "app");
    for (int i = 0; i < 99; ++i) {
        const uint32_t next = b.node("app.Node", 1, {}, 40, format::kNodeGcTracked, "app");
        b.edge(previous, next, EdgeKind::Attribute);
        previous = next;
    }
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    ASSERT_EQ(suspects.groups().size(), 1u);
    const SuspectGroup& row = suspects.groups()[0];
    EXPECT_EQ(row.type, "app.Node");
    EXPECT_EQ(row.objects, 100u);
    EXPECT_EQ(row.kinds, kSuspectUnexplainedSurplus | kSuspectUnreachable | kSuspectLargeRetained);
    EXPECT_EQ(row.retained_bytes, 4000u);  // not 40 + 80 + ... + 4000
    EXPECT_EQ(row.surplus_objects, 1u);
    EXPECT_EQ(row.unexplained_references, 2);
    EXPECT_EQ(row.unreachable_objects, 99u);
    EXPECT_EQ(row.holder, 0u);
    EXPECT_EQ(row.representative, 0u);
    EXPECT_TRUE(contains(row.reason, "99 objects of type app.Node have no path from any root; they "
                                     "are kept alive by app.Node @ 0x7f0000001000 (unexplained "
                                     "refcount surplus, 2 references)"))
        << row.reason;
}

TEST(LeakSuspects, LargeRetainedAloneIsLowConfidence) {
    SnapshotBuilder b;
    const uint32_t modules = b.node("dict", 1, "sys.modules", 1000);
    b.root(modules, format::RootKind::Interpreter, "sys.modules");
    const uint32_t big = b.node("app.Store", 1, {}, 5'000'000, format::kNodeGcTracked, "app");
    b.edge(modules, big, EdgeKind::DictValue);
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    EXPECT_EQ(suspects.high_confidence_count(), 0u);
    const SuspectGroup* store = suspects.find("app.Store");
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->kinds, kSuspectLargeRetained);
    EXPECT_EQ(store->confidence, SuspectConfidence::Low);
    EXPECT_EQ(store->largest_retained, 5'000'000u);
    EXPECT_TRUE(contains(store->reason, "retains 4.8 MiB (100% of the heap)")) << store->reason;
    EXPECT_EQ(suspects.node_column()[big], 0);
}

TEST(LeakSuspects, KindNames) {
    EXPECT_EQ(suspect_kind_name(kSuspectUncollectableCycle), "uncollectable cycle");
    EXPECT_EQ(suspect_kind_names(kSuspectUnexplainedSurplus | kSuspectGrowth),
              "unexplained surplus, growth");
    EXPECT_EQ(suspect_kind_names(0), "");
    EXPECT_EQ(suspect_confidence_name(SuspectConfidence::Low), "low");
    EXPECT_TRUE(is_interpreter_module("builtins"));
    EXPECT_TRUE(is_interpreter_module(""));
    EXPECT_FALSE(is_interpreter_module("app"));
    EXPECT_TRUE(is_interpreter_module("_cython_3_0_11"));  // the Cython runtime's shared types
    EXPECT_FALSE(is_interpreter_module("cython_app"));
}

}  // namespace
}  // namespace refscope::analysis

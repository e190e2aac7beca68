// Finalizer traps (finalizer_traps.h) on hand-built snapshots shaped the way
// the probe writes weakref.finalize, a weakref callback closure and a
// WeakKeyDictionary; and their leak-suspects row, ranked first.
#include <gtest/gtest.h>

#include <string>

#include "refscope/analysis/finalizer_traps.h"
#include "snapshot_builder.h"
#include "suspects_analysis.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using testing::contains;
using testing::rows_of;
using testing::SnapshotBuilder;

// sys.modules-like root → module dict → ['finalize'] class dict →
// ['_registry'] dict {finalize F: _Info I}; I.weakref = W (ref to Model M,
// callback F); I.args → tuple → OutputGraph → list → M. With `also_global`
// the module dict holds M as well, so the finalizer's state no longer
// dominates it.
struct FinalizeHeap {
    uint32_t module_dict, registry, finalizer, info, weakref, args, graph, model, payload;
};

// The one trap `a` holds, with what the test expects of it; `text` is part
// of its description.
void expect_one_trap(const testing::AnalysisPtr& a, uint32_t referent, uint32_t holder, TrapHolder via, const std::string& text) {
    const auto traps = find_finalizer_traps(a->index(), *a->dominators());
    ASSERT_EQ(traps.size(), 1u);
    EXPECT_EQ(traps[0].referent, referent);
    EXPECT_EQ(traps[0].holder, holder);
    EXPECT_EQ(traps[0].via, via);
    EXPECT_TRUE(contains(describe_finalizer_trap(a->snapshot(), traps[0]), text)) << describe_finalizer_trap(a->snapshot(), traps[0]);
}

FinalizeHeap finalize_heap(SnapshotBuilder& b, bool also_global) {
    FinalizeHeap h{};
    h.module_dict = b.node("dict", 2, "weakref");
    b.root(h.module_dict, format::RootKind::Interpreter, "sys.modules['weakref']");
    const uint32_t class_dict = b.node("dict");
    b.dict_item(h.module_dict, b.str("finalize"), class_dict);
    h.registry = b.node("dict");
    b.dict_item(class_dict, b.str("_registry"), h.registry);
    h.finalizer = b.node("weakref.finalize", 2, {}, 32, format::kNodeGcTracked, "weakref");
    h.info = b.node("weakref.finalize._Info", 1, {}, 80, format::kNodeGcTracked, "weakref");
    b.dict_item(h.registry, h.finalizer, h.info);
    h.weakref = b.node("weakref.ReferenceType", 1, {}, 80, format::kNodeGcTracked, "weakref");
    b.edge(h.info, h.weakref, EdgeKind::Slot, b.string_id("weakref"));
    b.edge(h.weakref, h.finalizer, EdgeKind::Field, b.string_id("__callback__"));
    h.args = b.node("tuple");
    b.edge(h.info, h.args, EdgeKind::Slot, b.string_id("args"));
    h.graph = b.node("app.OutputGraph", 1, {}, 64, format::kNodeGcTracked, "app");
    b.edge(h.args, h.graph, EdgeKind::Index, 0);
    const uint32_t modules = b.node("list");
    b.edge(h.graph, modules, EdgeKind::Attribute, b.str("graph_modules"));
    h.model = b.node("app.Model", also_global ? 2 : 1, {}, 64, format::kNodeGcTracked, "app");
    b.edge(modules, h.model, EdgeKind::Index, 0);
    b.edge(h.weakref, h.model, EdgeKind::Weak, 0, 0);
    h.payload = b.node("bytearray", 1, {}, 4 << 20, 0);
    b.edge(h.model, h.payload, EdgeKind::Attribute, b.str("weight"));
    if (also_global) b.dict_item(h.module_dict, b.str("model"), h.model);
    return h;
}

TEST(FinalizerTraps, AFinalizeWhoseArgumentsHoldItsObjectIsATrap) {
    SnapshotBuilder b;
    const FinalizeHeap h = finalize_heap(b, false);
    const auto a = testing::analyse(b.build());
    const auto traps = find_finalizer_traps(a->index(), *a->dominators());
    ASSERT_EQ(traps.size(), 1u);
    EXPECT_EQ(traps[0].referent, h.model);
    EXPECT_EQ(traps[0].weakref, h.weakref);
    EXPECT_EQ(traps[0].callback, h.finalizer);
    EXPECT_EQ(traps[0].holder, h.info);
    EXPECT_EQ(traps[0].via, TrapHolder::FinalizerEntry);
    const std::string text = describe_finalizer_trap(a->snapshot(), traps[0]);
    EXPECT_TRUE(contains(text, "weakref.finalize._Info @ ")) << text;
    EXPECT_TRUE(contains(text, "the entry of the finalizer weakref.finalize @ ")) << text;
    EXPECT_TRUE(contains(text, "waiting for app.Model @ ")) << text;

    // The retention path runs registry → _Info → args → … → Model.
    const auto path = a->paths().path_to(h.model);
    ASSERT_TRUE(path.has_value());
    const auto on_path = finalizer_trap_on_path(a->index(), *path);
    ASSERT_TRUE(on_path.has_value());
    EXPECT_EQ(on_path->holder, h.info);
    EXPECT_EQ(on_path->referent, h.model);
    EXPECT_TRUE(contains(finalizer_path_note(a->snapshot(), *on_path), "finalizer trap: this path runs through"));
}

TEST(FinalizerTraps, AnObjectAlsoHeldElsewhereIsNotTrapped) {
    SnapshotBuilder b;
    const FinalizeHeap h = finalize_heap(b, true);
    const auto a = testing::analyse(b.build());
    EXPECT_TRUE(find_finalizer_traps(a->index(), *a->dominators()).empty());
    // The path from the module dict straight to the model does not pass the
    // finalizer's state; a path through it would still be noted.
    const auto path = a->paths().path_to(h.model);
    ASSERT_TRUE(path.has_value());
    EXPECT_FALSE(finalizer_trap_on_path(a->index(), *path).has_value());
    const std::vector<uint32_t> through_state{h.module_dict, h.registry, h.info, h.args, h.graph, h.model};
    EXPECT_TRUE(finalizer_trap_on_path(a->index(), through_state).has_value());
}

TEST(FinalizerTraps, ACallbackClosureCapturingItsReferent) {
    // guard.ref = weakref.ref(obj, lambda r: forget(obj)): the closure's cell
    // holds obj.
    SnapshotBuilder b;
    const uint32_t guard = b.node("app.Guard", 2, {}, 48, format::kNodeGcTracked, "app");
    b.root(guard, format::RootKind::Interpreter, "global guard");
    const uint32_t weakref = b.node("weakref.ReferenceType");
    b.edge(guard, weakref, EdgeKind::Attribute, b.str("ref"));
    const uint32_t closure = b.node("function", 1, "app.<lambda>");
    b.edge(weakref, closure, EdgeKind::Field, b.string_id("__callback__"));
    const uint32_t cell = b.node("cell");
    b.edge(closure, cell, EdgeKind::Field, b.string_id("__closure__"));
    const uint32_t obj = b.node("app.Model", 1, {}, 64, format::kNodeGcTracked, "app");
    b.edge(cell, obj, EdgeKind::Field, b.string_id("cell_contents"));
    b.edge(weakref, obj, EdgeKind::Weak, 0, 0);
    // A weakref without a callback to another object waits for nothing.
    const uint32_t other = b.node("app.Other", 1, {}, 64, format::kNodeGcTracked, "app");
    b.edge(cell, other, EdgeKind::Reference);
    const uint32_t plain = b.node("weakref.ReferenceType");
    b.edge(closure, plain, EdgeKind::Reference);
    b.edge(plain, other, EdgeKind::Weak, 0, 0);
    const auto a = testing::analyse(b.build());
    expect_one_trap(a, obj, closure, TrapHolder::Callback, "the callback function app.<lambda>");
}

TEST(FinalizerTraps, AWeakKeyDictionaryValueHoldingItsKey) {
    SnapshotBuilder b;
    const uint32_t data = b.node("dict", 2);
    b.root(data, format::RootKind::Interpreter, "WeakKeyDictionary.data");
    const uint32_t remove = b.node("function", 2, "weakref.WeakKeyDictionary.__init__.<locals>.remove");
    b.root(remove, format::RootKind::Interpreter, "WeakKeyDictionary._remove");
    const uint32_t key_ref = b.node("weakref.ReferenceType");
    b.edge(key_ref, remove, EdgeKind::Field, b.string_id("__callback__"));
    const uint32_t value = b.node("app.Meta", 1, {}, 64, format::kNodeGcTracked, "app");
    b.dict_item(data, key_ref, value);
    const uint32_t key = b.node("app.Model", 1, {}, 64, format::kNodeGcTracked, "app");
    b.edge(value, key, EdgeKind::Attribute, b.str("owner"));
    b.edge(key_ref, key, EdgeKind::Weak, 0, 0);
    const auto a = testing::analyse(b.build());
    expect_one_trap(a, key, value, TrapHolder::WeakKeyEntry, "WeakKeyDictionary entry whose value holds its key");
}

TEST(FinalizerTraps, TheTrappedTypeIsTheFirstHighConfidenceSuspect) {
    SnapshotBuilder b;
    const FinalizeHeap h = finalize_heap(b, false);
    // An uncollectable-looking rival: a program object with unexplained
    // surplus retaining a little.
    const uint32_t rival = b.node("app.Cache", 2, {}, 64, format::kNodeGcTracked, "app");
    b.edge(rival, b.node("bytearray", 1, {}, 8192, 0), EdgeKind::Attribute, b.str("blob"));
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    ASSERT_FALSE(suspects.groups().empty());
    const SuspectGroup& first = suspects.groups().front();
    EXPECT_EQ(first.type, "app.Model");
    EXPECT_EQ(first.confidence, SuspectConfidence::High);
    EXPECT_TRUE(first.kinds & kSuspectOwnFinalizer);
    EXPECT_EQ(first.finalizer_objects, 1u);
    EXPECT_EQ(first.finalizer_trap.holder, h.info);
    EXPECT_TRUE(contains(first.reason, "kept alive only by the state of a callback waiting for it to be freed, which "
                                       "cannot run while its state holds it"))
        << first.reason;
    EXPECT_TRUE(contains(first.reason, "4.0 MiB retained")) << first.reason;
    EXPECT_EQ(suspect_kind_name(kSuspectOwnFinalizer), "own finalizer");
    // Only the referent is marked: what it holds is the same leak.
    for (size_t i = 1; i < suspects.groups().size(); ++i)
        EXPECT_FALSE(suspects.groups()[i].kinds & kSuspectOwnFinalizer) << suspects.groups()[i].type;
    EXPECT_NE(rows_of(suspects, "app.Cache").first, nullptr);
}

}  // namespace
}  // namespace refscope::analysis

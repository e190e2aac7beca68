// The analysis of native nodes (C/C++ objects reported through the probe's
// describe API), on hand-built snapshots shaped like the probe's output:
// described references explain surplus, native nodes sit on retention paths,
// and an uncollectable cycle through C++ members names the Python type and
// the member ("Wrapper holds Wrapper::value without tp_traverse").
#include <gtest/gtest.h>

#include <string>

#include "analyse.h"
#include "refscope/analysis/cycles.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "snapshot_builder.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using format::RootKind;
using testing::SnapshotBuilder;

constexpr uint8_t kVisible = format::kEdgeOwned | format::kEdgeGcVisible;
constexpr uint8_t kInvisible = format::kEdgeOwned;
constexpr uint8_t kPlain = 0;                        // not GC-tracked (pybind11 instances)
constexpr uint8_t kTracked = format::kNodeGcTracked;
constexpr uint8_t kNative = format::kNodeNative;


bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(NativeCycles, SelfCycleThroughTheCppObjectNamesTypeAndMember) {
    SnapshotBuilder b;
    const uint32_t w = b.node("app.Wrapper", 1, {}, 48, kPlain, "app");
    const uint32_t cpp = b.node("Wrapper", 0, {}, 8, kNative, "app");
    b.edge(w, cpp, EdgeKind::Native, b.string_id("C++ object"), kInvisible);
    b.edge(cpp, w, EdgeKind::Native, b.string_id("Wrapper::value"), kInvisible);
    const auto a = testing::analyse(b.build());
    const uint32_t c = a->cycles()->cycle_of(w);
    ASSERT_NE(c, kNoCycle);
    EXPECT_EQ(a->cycles()->cycle_of(cpp), c);
    EXPECT_EQ(a->cycles()->info(c).fate, CycleFate::InvisibleEdge);
    // The reference into the Python object is the culprit, not the hop into
    // the native node (which no collector ever sees).
    EXPECT_EQ(a->snapshot().source_of(a->cycles()->info(c).culprit_edge), cpp);
    EXPECT_EQ(a->cycles()->explain(c),
              "uncollectable: app.Wrapper holds Wrapper::value without tp_traverse, so the garbage "
              "collector cannot see this cycle");
    // The surplus is explained by the described edge.
    EXPECT_EQ(a->roots().unexplained(w), 0);
    EXPECT_EQ(a->roots().owned_in(w), 1u);
    const NoPathExplanation why = a->paths().explain_unreachable(w);
    EXPECT_EQ(why.reason, NoPathExplanation::Reason::HeldByInvisibleReference);
    EXPECT_TRUE(contains(why.text, "app.Wrapper holds Wrapper::value without reporting it")) << why.text;
}

TEST(NativeCycles, CallbackChainNamesEveryMember) {
    // w -> C++ CallbackWrapper -> std::function -> f -> globals -> w
    SnapshotBuilder b;
    const uint32_t w = b.node("app.CallbackWrapper", 1, {}, 48, kPlain, "app");
    const uint32_t cpp = b.node("CallbackWrapper", 0, {}, 32, kNative, "app");
    const uint32_t fn = b.node("std::function<void()>", 0, {}, 0, kNative, "app");
    const uint32_t f = b.node("function", 1, "callback", 136, kTracked);
    const uint32_t globals = b.node("dict", 1, "len 1", 232, kTracked);
    b.edge(w, cpp, EdgeKind::Native, b.string_id("C++ object"), kInvisible);
    b.edge(cpp, fn, EdgeKind::Native, b.string_id("CallbackWrapper::value"), kInvisible);
    b.edge(fn, f, EdgeKind::Native, b.string_id("PyCallback::function"), kInvisible);
    b.edge(f, globals, EdgeKind::Field, b.string_id("__globals__"), kVisible);
    b.edge(globals, w, EdgeKind::DictValue, f, kVisible);
    const auto a = testing::analyse(b.build());
    const uint32_t c = a->cycles()->cycle_of(w);
    ASSERT_NE(c, kNoCycle);
    EXPECT_EQ(a->cycles()->info(c).members, 5u);
    EXPECT_EQ(a->cycles()->info(c).fate, CycleFate::InvisibleEdge);
    EXPECT_TRUE(contains(a->cycles()->explain(c),
                         "app.CallbackWrapper holds CallbackWrapper::value \u2192 PyCallback::function "
                         "without tp_traverse"))
        << a->cycles()->explain(c);
}

TEST(NativeCycles, ACycleTheCollectorSeesThroughTheInstanceTraverseIsCollectable) {
    // custom_type_setup: the instance's tp_traverse reports what its C++
    // object holds, so the probe marks that reference GC-visible.
    SnapshotBuilder b;
    const uint32_t w = b.node("app.TraversedWrapper", 1, {}, 48, kTracked, "app");
    const uint32_t cpp = b.node("TraversedWrapper", 0, {}, 8, kNative, "app");
    b.edge(w, cpp, EdgeKind::Native, b.string_id("C++ object"), kInvisible);
    b.edge(cpp, w, EdgeKind::Native, b.string_id("TraversedWrapper::value"), kVisible);
    const auto a = testing::analyse(b.build());
    const uint32_t c = a->cycles()->cycle_of(w);
    ASSERT_NE(c, kNoCycle);
    EXPECT_EQ(a->cycles()->info(c).culprit_edge, kNoEdge);
    EXPECT_EQ(a->cycles()->info(c).fate, CycleFate::CollectableGarbage);
}

TEST(NativeCycles, ADescribedReferenceIsBlamedBeforeAnImplicitOne) {
    // pybind11's default argument: type -> dict -> capsule -> (described)
    // default instance -> (__class__, not traversed) type.
    // The instance comes first in node order, so its __class__ edge is the
    // first invisible edge met.
    SnapshotBuilder b;
    const uint32_t instance = b.node("app.DefaultWrapper", 1, {}, 48, kPlain, "app");
    const uint32_t type = b.node("type", 3, "app.DefaultWrapper", 900, kTracked | format::kNodeTypeObject);
    const uint32_t dict = b.node("dict", 1, "len 1", 232, kTracked);
    const uint32_t capsule = b.node("PyCapsule", 1, {}, 48, kPlain);
    b.edge(type, dict, EdgeKind::Field, b.string_id("__dict__"), kVisible);
    b.edge(dict, capsule, EdgeKind::DictValue, dict, kVisible);
    b.edge(capsule, instance, EdgeKind::Native,
           b.string_id("app.DefaultWrapper.__init__ default argument 'other'"), kInvisible);
    b.edge(instance, type, EdgeKind::Field, b.string_id("__class__"), kInvisible);
    b.root(type, RootKind::Interpreter, "module app", 2);
    const auto a = testing::analyse(b.build());
    const uint32_t c = a->cycles()->cycle_of(type);
    ASSERT_NE(c, kNoCycle);
    EXPECT_EQ(a->cycles()->info(c).fate, CycleFate::Alive);
    EXPECT_EQ(a->snapshot().source_of(a->cycles()->info(c).culprit_edge), capsule);
    EXPECT_TRUE(contains(a->cycles()->explain(c), "default argument 'other'")) << a->cycles()->explain(c);
}

TEST(NativePaths, PreservedObjectIsReachedThroughItsCppOwner) {
    // PyObject preservation: an extension root holds the C++ object, which
    // owns the Python object; nothing else refers to it.
    SnapshotBuilder b;
    const uint32_t impl = b.node("TensorImpl", 1, "C++ refcount 1", 24, kNative, "ext");
    const uint32_t obj = b.node("ext.Tensor", 1, {}, 40, kTracked, "ext");
    b.edge(impl, obj, EdgeKind::Native, b.string_id("TensorImpl::pyobj (owning)"), kInvisible);
    b.edge(obj, impl, EdgeKind::Native, b.string_id("impl"), 0);  // points at it, does not own it
    b.root(impl, RootKind::Extension, "TensorImpl held by C++ (registry)", 0);
    const auto a = testing::analyse(b.build());
    EXPECT_EQ(a->roots().unexplained(obj), 0);
    EXPECT_FALSE(a->roots().breakdown(impl).counted);  // C++ counts take no part
    const auto path = a->paths().path_to(obj);
    ASSERT_TRUE(path.has_value());
    EXPECT_EQ(path->root_node, impl);
    ASSERT_EQ(path->edges.size(), 1u);
    EXPECT_EQ(describe_edge(a->snapshot(), path->edges[0]), "<native: TensorImpl::pyobj (owning)>");
    EXPECT_EQ(describe_node(a->snapshot(), impl).rfind("native TensorImpl @ ", 0), 0u);
    // The non-owning back edge makes no cycle.
    EXPECT_EQ(a->cycles()->cycle_of(obj), kNoCycle);
}

TEST(NativePaths, WithoutTheDescriptionTheSameObjectIsUnexplainedSurplus) {
    SnapshotBuilder b;
    const uint32_t obj = b.node("ext.Tensor", 1, {}, 40, kTracked, "ext");
    const auto a = testing::analyse(b.build());
    EXPECT_EQ(a->roots().unexplained(obj), 1);
    EXPECT_FALSE(a->paths().reachable(obj));
    EXPECT_EQ(a->paths().explain_unreachable(obj).reason, NoPathExplanation::Reason::UnexplainedSurplus);
}

}  // namespace
}  // namespace refscope::analysis

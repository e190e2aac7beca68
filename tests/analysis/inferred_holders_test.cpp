// InferredHolders (core/src/analysis/inferred_holders.cpp) on hand-built
// snapshots: the nanobind page's cycles through an undescribed C++ member
// (closure, globals, default argument, bound method) are inferred, in the
// analysis and in the texts the CLI and the app print (path explanations,
// suspects' reasons); a described or GC-visible wrapper, a plain refcount
// leak, a 1.0 file without type flags and a wrapper too far away are not.
#include <gtest/gtest.h>

#include "refscope/analysis/display_text.h"
#include "refscope/analysis/inferred_holders.h"
#include "snapshot_builder.h"
#include "suspects_analysis.h"

namespace refscope::testing {
namespace {

using analysis::infer_holder;
using analysis::infer_holders;
using format::EdgeKind;

constexpr uint8_t kRecorded = format::kTypeFactsRecorded;
// A type a C++ binding library made (pybind11, nanobind).
constexpr uint8_t kBound = format::kTypeFactsRecorded | format::kTypeBound;
constexpr uint8_t kGcType = format::kTypeFactsRecorded | format::kTypeHasGc;

// The heap of one program: each case a separate island, none reachable from
// a root, as after the program's functions returned.
struct Heap {
    SnapshotBuilder b;
    uint32_t wrapper_type = 0;

    Heap() {
        for (const char* name : {"function", "tuple", "cell", "dict", "method", "list", "app.Owner"}) {
            const std::string module = std::string(name).starts_with("app.") ? "app" : "builtins";
            b.snapshot().types[b.type(name, module)].flags = kGcType;
        }
        b.snapshot().types[b.type("str")].flags = kRecorded;  // no GC, but the interpreter's
        wrapper_type = set_type("pbwrap.Wrapper", kBound);
    }
    uint32_t set_type(const std::string& name, uint8_t flags) {
        const uint32_t t = b.type(name, name.substr(0, name.find('.')));
        b.snapshot().types[t].flags = flags;
        return t;
    }
    // An instance of a wrapper type: not GC-tracked, as without tp_traverse.
    uint32_t wrapper(const std::string& type = "pbwrap.Wrapper") {
        return b.node(type, 1, {}, 24, 0, type.substr(0, type.find('.')));
    }
    uint32_t field(std::string_view name) { return b.string_id(name); }

    // function callback → .__closure__ → tuple → [0] → cell → .cell_contents
    // → w; the function's refcount has the C++ member's reference (surplus 1).
    std::pair<uint32_t, uint32_t> closure_case(const std::string& type = "pbwrap.Wrapper") {
        const uint32_t f = b.node("function", 1, "callback");
        const uint32_t closure = b.node("tuple");
        const uint32_t cell = b.node("cell");
        const uint32_t w = wrapper(type);
        b.edge(f, closure, EdgeKind::Field, field("__closure__"));
        b.edge(closure, cell, EdgeKind::Index, 0);
        b.edge(cell, w, EdgeKind::Field, field("cell_contents"));
        return {f, w};
    }
};

TEST(InferredHolders, ClosureGlobalsDefaultsAndBoundMethodAreInferred) {
    Heap h;
    const auto [closure_f, closure_w] = h.closure_case();
    // globals: callback → .__globals__ → dict → ['w'] → w
    const uint32_t globals_f = h.b.node("function", 1, "callback");
    const uint32_t globals = h.b.node("dict");
    const uint32_t globals_w = h.wrapper();
    h.b.edge(globals_f, globals, EdgeKind::Field, h.field("__globals__"));
    h.b.dict_item(globals, h.b.str("w"), globals_w);
    // default argument: callback → .__defaults__ → tuple → [0] → w
    const uint32_t default_f = h.b.node("function", 1, "callback");
    const uint32_t defaults = h.b.node("tuple");
    const uint32_t default_w = h.wrapper();
    h.b.edge(default_f, defaults, EdgeKind::Field, h.field("__defaults__"));
    h.b.edge(defaults, default_w, EdgeKind::Index, 0);
    // bound method: method → .__self__ → app.Owner → .__dict__ → dict → ['w'] → w
    const uint32_t method = h.b.node("method", 1, "Owner.fire");
    const uint32_t owner = h.b.node("app.Owner", 1, {}, 32, format::kNodeGcTracked, "app");
    const uint32_t owner_dict = h.b.node("dict");
    const uint32_t method_w = h.wrapper();
    h.b.edge(method, owner, EdgeKind::Field, h.field("__self__"));
    h.b.edge(owner, owner_dict, EdgeKind::Field, h.field("__dict__"));
    h.b.dict_item(owner_dict, h.b.str("w"), method_w);
    const auto a = analyse(h.b.build());

    const std::pair<uint32_t, uint32_t> cases[] = {
        {closure_f, closure_w}, {globals_f, globals_w}, {default_f, default_w}, {method, method_w}};
    const size_t hops[] = {3, 2, 2, 3};
    for (size_t i = 0; i < 4; ++i) {
        const auto [held, w] = cases[i];
        const auto inferred = infer_holder(a->index(), a->roots(), held);
        ASSERT_TRUE(inferred.has_value()) << "case " << i;
        EXPECT_EQ(inferred->holder, w);
        EXPECT_EQ(inferred->edges.size(), hops[i]);
        EXPECT_EQ(a->index().target(inferred->edges.back()), w);
        EXPECT_TRUE(contains(inferred->text, "probably held by `pbwrap.Wrapper` @ " +
                                                 analysis::format_address(SnapshotBuilder::address_of(w)) +
                                                 " through a C++ member: the type has no tp_traverse, so the "
                                                 "garbage collector cannot see this cycle (inferred"))
            << inferred->text;

        // `path` for the wrapper: retained by the function (or method) with
        // surplus, and the inference names the wrapper back.
        const auto why = a->paths().explain_unreachable(w);
        EXPECT_EQ(why.holder, held);
        EXPECT_EQ(why.likely_holder, w);
        EXPECT_TRUE(contains(why.text, "probably held by `pbwrap.Wrapper`")) << why.text;
    }
    EXPECT_EQ(infer_holders(a->index(), a->roots()).size(), 4u);

    // The suspects row of the wrapper type says it too (the app shows these),
    // with high confidence: the functions holding the wrappers are not the
    // interpreter's static state once their holder is inferred.
    const auto [high, low] = rows_of(*a->suspects(), "pbwrap.Wrapper");
    ASSERT_NE(high, nullptr);
    EXPECT_EQ(low, nullptr);
    EXPECT_NE(high->likely_holder, kNoNode);
    EXPECT_TRUE(contains(high->reason, "probably held by `pbwrap.Wrapper`")) << high->reason;
}

TEST(InferredHolders, DescribedOrTraversedWrappersAreNotInferred) {
    Heap h;
    h.set_type("pbwrap.Described", kBound | format::kTypeDescribed);
    h.set_type("pbwrap.Traversed", kGcType);
    const auto [described_f, described_w] = h.closure_case("pbwrap.Described");
    const auto [traversed_f, traversed_w] = h.closure_case("pbwrap.Traversed");
    // A non-GC extension type no binding library made (NumPy's dtypes and
    // array methods): its C references are not a C++ member to guess at.
    h.set_type("ext.Unbound", kRecorded);
    const auto [unbound_f, unbound_w] = h.closure_case("ext.Unbound");
    // A wrapper whose C++ object a recogniser reports with a member (a
    // native node with an edge) is described without a describe callback.
    const auto [native_f, native_w] = h.closure_case("pbwrap.Recognised");
    h.set_type("pbwrap.Recognised", kBound);
    const uint32_t cpp = h.b.node("Recognised", 1, {}, 8, format::kNodeNative, "pbwrap");
    h.b.edge(native_w, cpp, EdgeKind::Native, h.field("C++ object"));
    h.b.edge(cpp, h.b.node("tuple"), EdgeKind::Native, h.field("Recognised::options"));
    // Its C++ object alone (the nanobind recogniser's, members unknown)
    // describes nothing: still inferred.
    const auto [bare_f, bare_w] = h.closure_case("pbwrap.Bare");
    h.set_type("pbwrap.Bare", kBound);
    h.b.edge(bare_w, h.b.node("Bare", 1, {}, 8, format::kNodeNative, "pbwrap"), EdgeKind::Native,
             h.field("C++ object"));
    const auto a = analyse(h.b.build());
    const auto bare = infer_holder(a->index(), a->roots(), bare_f);
    ASSERT_TRUE(bare.has_value());
    EXPECT_EQ(bare->holder, bare_w);
    for (const uint32_t f : {described_f, traversed_f, native_f, unbound_f}) {
        EXPECT_GT(a->roots().unexplained(f), 0);
        EXPECT_FALSE(infer_holder(a->index(), a->roots(), f).has_value()) << f;
    }
    for (const uint32_t w : {described_w, traversed_w, native_w, unbound_w}) {
        const auto why = a->paths().explain_unreachable(w);
        EXPECT_EQ(why.likely_holder, kNoNode);
        EXPECT_FALSE(contains(why.text, "probably held by")) << why.text;
    }
    EXPECT_EQ(infer_holders(a->index(), a->roots()).size(), 1u);  // the bare one
    for (const auto& row : a->suspects()->groups()) {
        if (row.likely_holder == bare_w) continue;
        EXPECT_EQ(row.likely_holder, kNoNode) << row.type;
        EXPECT_FALSE(contains(row.reason, "probably held by")) << row.type << ": " << row.reason;
    }
}

TEST(InferredHolders, PlainRefcountLeakIsNotInferred) {
    Heap h;
    // app.Owner with a leaked reference, holding a dict of strs and a list:
    // no wrapper nearby, only GC types and the interpreter's atoms.
    const uint32_t leaked = h.b.node("app.Owner", 2, {}, 32, format::kNodeGcTracked, "app");
    const uint32_t dict = h.b.node("dict");
    const uint32_t list = h.b.node("list");
    h.b.edge(leaked, dict, EdgeKind::Field, h.field("__dict__"));
    h.b.dict_item(dict, h.b.str("items"), list);
    h.b.edge(list, h.b.str("x"), EdgeKind::Index, 0);
    const auto a = analyse(h.b.build());
    ASSERT_EQ(a->roots().unexplained(leaked), 2);
    EXPECT_FALSE(infer_holder(a->index(), a->roots(), leaked).has_value());
    const auto why = a->paths().explain_unreachable(list);
    EXPECT_EQ(why.holder, leaked);
    EXPECT_FALSE(contains(why.text, "probably")) << why.text;
    EXPECT_TRUE(infer_holders(a->index(), a->roots()).empty());
}

TEST(InferredHolders, UnknownTypeFactsAndFarWrappersAreNotInferred) {
    // A 1.0 file records no type flags: no guess from the node flags.
    {
        Heap h;
        h.set_type("pbwrap.Wrapper", 0);
        const auto [f, w] = h.closure_case();
        const auto a = analyse(h.b.build());
        EXPECT_FALSE(infer_holder(a->index(), a->roots(), f).has_value());
    }
    // Five hops away (a chain of lists): beyond the bound.
    {
        Heap h;
        const uint32_t f = h.b.node("function", 1, "callback");
        uint32_t at = f;
        for (int i = 0; i < 4; ++i) {
            const uint32_t next = h.b.node("list");
            h.b.edge(at, next, EdgeKind::Index, 0);
            at = next;
        }
        h.b.edge(at, h.wrapper(), EdgeKind::Index, 0);
        const auto a = analyse(h.b.build());
        EXPECT_FALSE(infer_holder(a->index(), a->roots(), f).has_value());
        analysis::InferenceLimits wider;
        wider.max_hops = 5;
        EXPECT_TRUE(infer_holder(a->index(), a->roots(), f, wider).has_value());
    }
    // The wrapper itself with surplus (w.value = w, or any C++ holder of
    // it): nothing to infer beyond what the surplus says.
    {
        Heap h;
        const uint32_t w = h.b.node("pbwrap.Wrapper", 2, {}, 24, 0, "pbwrap");
        h.b.edge(w, w, EdgeKind::Native, h.field("value"), format::kEdgeOwned);
        const auto a = analyse(h.b.build());
        EXPECT_FALSE(infer_holder(a->index(), a->roots(), w).has_value());
    }
}

}  // namespace
}  // namespace refscope::testing

// Leak suspects: what counts as noise (static state held from C, the
// interpreter's or an extension's) and what stays evidence, one rule at a
// time on small hand-built snapshots (docs/leak-suspects.md, "Rows").
#include <gtest/gtest.h>

#include <string>

#include "snapshot_builder.h"
#include "suspects_analysis.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using testing::contains;
using testing::rows_of;
using testing::SnapshotBuilder;

TEST(LeakSuspects, InterpreterTypeRetainingALotIsEvidenceNotNoise) {
    SnapshotBuilder b;
    const uint32_t held = b.node("dict", 1, "held by C", 1000);
    for (int i = 0; i < 4; ++i) b.edge(held, b.node("app.Blob", 1, {}, 400'000, format::kNodeGcTracked, "app"));
    const uint32_t small = b.node("dict", 1, "small", 100);  // noise
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    ASSERT_EQ(suspects.groups().size(), 3u);
    // The holder first (one object, 1.5 MiB retained), then what it holds.
    const SuspectGroup& dict = suspects.groups()[0];
    EXPECT_EQ(dict.type, "dict");
    EXPECT_EQ(dict.confidence, SuspectConfidence::High);
    EXPECT_EQ(dict.objects, 1u);  // the big one; the small one is a low row of its own
    EXPECT_EQ(dict.representative, held);
    EXPECT_FALSE(contains(dict.reason, "static state held from C")) << dict.reason;
    const SuspectGroup& blobs = suspects.groups()[1];
    EXPECT_EQ(blobs.type, "app.Blob");
    EXPECT_TRUE(blobs.kinds & kSuspectUnreachable);
    EXPECT_EQ(blobs.unreachable_objects, 4u);
    EXPECT_EQ(blobs.holder, held);
    EXPECT_EQ(suspects.groups()[2].type, "dict");
    EXPECT_EQ(suspects.groups()[2].confidence, SuspectConfidence::Low);
    EXPECT_EQ(suspects.groups()[2].representative, small);
    EXPECT_TRUE(contains(suspects.groups()[2].reason, "static state held from C")) << suspects.groups()[2].reason;
}

// Unexplained surplus on instances of a standard-library type is CPython's
// own C code holding them (both static types and heap types made by C
// modules), so it is listed with low confidence.
TEST(LeakSuspects, SurplusOnAHeapTypeFromAStdlibModuleIsNoise) {
    SnapshotBuilder b;
    const uint32_t type_node = b.node("type", 1, "collections.Widget", 900, format::kNodeTypeObject);
    b.root(type_node, format::RootKind::Interpreter, "heap type", 0);
    const uint32_t w = b.node("collections.Widget", 2, {}, 64, format::kNodeGcTracked, "collections");
    (void)w;
    b.snapshot().types[b.type("collections.Widget")].type_address = SnapshotBuilder::address_of(type_node);
    const uint32_t s = b.str("interned", 3);  // builtins str, type object unknown: noise
    (void)s;
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    EXPECT_EQ(suspects.high_confidence_count(), 0u);
    ASSERT_NE(suspects.find("collections.Widget"), nullptr);
    EXPECT_EQ(suspects.find("collections.Widget")->confidence, SuspectConfidence::Low);
    EXPECT_EQ(suspects.find("str")->confidence, SuspectConfidence::Low);
}

// CPython names some static types of its own with a dot (`Token.MISSING`,
// whose one instance is a C static); no module `Token` is loaded, so its
// surplus is the interpreter's. An extension's static type is named after
// its module, which is loaded: its instance held from C stays a suspect.
TEST(LeakSuspects, StaticTypesOfNoLoadedModuleOrKeptByTheirExtensionAreNoiseExportedOnesAreNot) {
    SnapshotBuilder b;
    constexpr uint8_t kStaticType = format::kNodeTypeObject | format::kNodeStaticType;
    const auto static_type = [&b](const std::string& name, const std::string& module) {
        const uint32_t t = b.node("type", 10, name, 400, kStaticType);
        b.root(t, format::RootKind::Interpreter, "static type " + name, 0);
        b.type(name, module);
        b.snapshot().types[b.type(name)].type_address = SnapshotBuilder::address_of(t);
        return t;
    };
    static_type("Token.MISSING", "Token");
    const uint32_t handle = static_type("_ext.Handle", "_ext");
    static_type("_ext.Enum", "_ext");  // kept to itself: no namespace holds it
    const uint32_t modules = b.node("dict", 1, "sys.modules", 1200);
    b.root(modules, format::RootKind::Interpreter, "sys.modules");
    const uint32_t ext = b.node("module", 1, "_ext", 72);
    b.dict_item(modules, b.str("_ext", 1), ext);
    const uint32_t ext_dict = b.node("dict", 1, "len 1", 300);
    b.edge(ext, ext_dict, EdgeKind::Field, b.string_id("__dict__"));
    b.dict_item(ext_dict, b.str("Handle", 1), handle);  // exported: _ext.Handle
    b.node("Token.MISSING", 2, {}, 16, 0, "Token");
    b.node("_ext.Handle", 2, {}, 48, 0, "_ext");
    b.node("_ext.Enum", 2, {}, 40, 0, "_ext");
    // A private type leaking one instance per call is not static state.
    static_type("_ext.Iterator", "_ext");
    for (int i = 0; i < 100; ++i) b.node("_ext.Iterator", 2, {}, 40, 0, "_ext");
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    ASSERT_NE(suspects.find("Token.MISSING"), nullptr);
    EXPECT_EQ(suspects.find("Token.MISSING")->confidence, SuspectConfidence::Low);
    ASSERT_NE(suspects.find("_ext.Enum"), nullptr);
    EXPECT_EQ(suspects.find("_ext.Enum")->confidence, SuspectConfidence::Low);
    ASSERT_NE(suspects.find("_ext.Handle"), nullptr);
    EXPECT_EQ(suspects.find("_ext.Handle")->confidence, SuspectConfidence::High);
    ASSERT_NE(suspects.find("_ext.Iterator"), nullptr);
    EXPECT_EQ(suspects.find("_ext.Iterator")->confidence, SuspectConfidence::High);
    EXPECT_EQ(suspects.find("_ext.Iterator")->objects, 100u);
    EXPECT_EQ(suspects.high_confidence_count(), 2u);
}

// Every class forms a cycle with its own __dict__ and descriptors, so a class
// with one reference nobody explains makes that whole cycle "held from
// outside". CPython's own classes held by interpreter state from C (the _ast
// node classes, ast.AST...) are noise; a user's class held from C is not.
TEST(LeakSuspects, ClassCyclesHeldByTheInterpreterAreNoiseAUsersAreNot) {
    SnapshotBuilder b;
    const auto add_class = [&b](const std::string& qualified_name) {
        // refcount 2: the descriptor's __objclass__ plus one unexplained reference
        const uint32_t cls = b.node("type", 2, qualified_name, 900, format::kNodeTypeObject);
        const uint32_t dict = b.node("dict", 1, "len 1", 300);
        const uint32_t descriptor = b.node("getset_descriptor", 1, "__dict__", 72);
        b.edge(cls, dict, EdgeKind::Field, b.string_id("__dict__"));
        b.dict_item(dict, b.str("__dict__", 1), descriptor);
        b.edge(descriptor, cls, EdgeKind::Field, b.string_id("__objclass__"));
        return cls;
    };
    const uint32_t ast_class = add_class("ast.AST");
    const uint32_t user_class = add_class("app.Plugin");
    const auto a = testing::analyse(b.build());
    ASSERT_EQ(a->cycles()->count(), 2u);
    const LeakSuspects suspects(a->suspect_inputs());
    const auto [high, low] = rows_of(suspects, "type");
    ASSERT_NE(high, nullptr);
    ASSERT_NE(low, nullptr);
    EXPECT_EQ(high->objects, 1u);
    EXPECT_EQ(high->representative, user_class);
    EXPECT_EQ(low->representative, ast_class);
    // The user's class's cycle members are suspects, ast.AST's are not.
    EXPECT_NE(suspects.node_column()[user_class], 0);
    EXPECT_EQ(suspects.node_column()[ast_class], 0);
}

// A type an extension made in C (PyType_FromSpec: kiwisolver's Strength,
// which kiwisolver keeps in a C static and exports no name for) is that
// extension's static state; a class statement's class held the same way is
// evidence. Before kNodeExtensionType, Strength was the one high-confidence
// row of a clean Matplotlib program.
TEST(LeakSuspects, TypesAnExtensionMadeInCAreStaticStateClassesAreNot) {
    SnapshotBuilder b;
    const uint32_t made_by_c = b.node("type", 1, "kiwisolver.Strength", 900,
                                      format::kNodeTypeObject | format::kNodeExtensionType);
    const uint32_t user_class = b.node("type", 1, "kiwisolver.Plugin", 900, format::kNodeTypeObject);
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    const auto [high, low] = rows_of(suspects, "type");
    ASSERT_NE(high, nullptr);
    ASSERT_NE(low, nullptr);
    EXPECT_EQ(high->representative, user_class);
    EXPECT_EQ(high->objects, 1u);
    EXPECT_EQ(low->representative, made_by_c);
    EXPECT_TRUE(contains(low->reason, "static state held from C")) << low->reason;
}

// Values of a module's namespace live as long as the module: references C
// holds to them (torch's dtype registry, NumPy's operator ufuncs) keep
// nothing alive, so their surplus is static state. The same object held from
// C but by no module is a suspect, and so is a global that retains a lot.
TEST(LeakSuspects, ModuleGlobalsHeldFromCAreStaticStateOthersAreNot) {
    SnapshotBuilder b;
    const uint32_t modules = b.node("dict", 1, "sys.modules", 1200);
    b.root(modules, format::RootKind::Interpreter, "sys.modules");
    const uint32_t torch = b.node("module", 1, "torch", 72);
    b.dict_item(modules, b.str("torch", 1), torch);
    const uint32_t namespace_dict = b.node("dict", 1, "torch.__dict__", 640);
    b.edge(torch, namespace_dict, EdgeKind::Field, b.string_id("__dict__"));
    // refcount 4: the module's reference and three from C registries
    for (const char* name : {"float32", "int64", "bool"})
        b.dict_item(namespace_dict, b.str(name, 1), b.node("torch.dtype", 4, name, 88, 0, "torch"));
    const uint32_t big = b.node("app.Table", 2, {}, 2'000'000, format::kNodeGcTracked, "app");
    b.dict_item(namespace_dict, b.str("TABLE", 1), big);
    // A dtype held from C and by no module.
    const uint32_t stray = b.node("torch.dtype", 3, "stray", 88, 0, "torch");
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    const auto [high, low] = rows_of(suspects, "torch.dtype");
    ASSERT_NE(high, nullptr);
    ASSERT_NE(low, nullptr);
    EXPECT_EQ(high->objects, 1u);
    EXPECT_EQ(high->representative, stray);
    EXPECT_EQ(low->objects, 3u);
    EXPECT_TRUE(contains(low->reason, "static state held from C")) << low->reason;
    ASSERT_NE(suspects.find("app.Table"), nullptr);
    EXPECT_EQ(suspects.find("app.Table")->confidence, SuspectConfidence::High);
    EXPECT_EQ(suspects.find("app.Table")->representative, big);
}

// A metaclass held from C (torch's _ReduceOpMeta, made for pybind11's
// py::metaclass and kept in a C++ static) is infrastructure; an ordinary
// class held from C is evidence.
TEST(LeakSuspects, MetaclassesHeldFromCAreStaticStateClassesAreNot) {
    SnapshotBuilder b;
    // refcount 2: the class made with it, and one reference from C
    const uint32_t meta = b.node("type", 2, "lib.Meta", 900, format::kNodeTypeObject);
    const uint32_t model = b.node("lib.Meta", 1, "lib.Model", 900, format::kNodeTypeObject);
    b.snapshot().types[b.type("lib.Meta")].type_address = SnapshotBuilder::address_of(meta);
    b.edge(model, meta, EdgeKind::Field, b.string_id("__class__"));
    const uint32_t plugin = b.node("type", 2, "app.Plugin", 900, format::kNodeTypeObject);
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    const auto [high, low] = rows_of(suspects, "type");
    ASSERT_NE(high, nullptr);
    ASSERT_NE(low, nullptr);
    EXPECT_EQ(high->representative, plugin);
    EXPECT_EQ(low->representative, meta);
}

// NumPy 2.4 keeps a few casts in a C static struct and also in the cast
// tables (dicts held from C) of every DType: an object with surplus whose
// every owner is such unreachable static state belongs to it. An object of
// the same type that a program's object also holds stays evidence.
TEST(LeakSuspects, ObjectsOwnedOnlyByStaticStateAreStaticStateTheirOwnSurplusToo) {
    SnapshotBuilder b;
    const uint32_t table_a = b.node("dict", 1, "cast table", 300);  // held from C
    const uint32_t table_b = b.node("dict", 1, "cast table", 300);
    const uint32_t shared = b.node("_ext.Cast", 3, {}, 184, format::kNodeGcTracked, "_ext");
    b.dict_item(table_a, b.str("to_object", 1), shared);
    b.dict_item(table_b, b.str("to_object", 1), shared);
    const uint32_t thing = b.node("app.Thing", 1, {}, 48, format::kNodeGcTracked, "app");
    const uint32_t also_thing = b.node("_ext.Cast", 3, {}, 184, format::kNodeGcTracked, "_ext");
    b.dict_item(table_a, b.str("to_thing", 1), also_thing);
    b.edge(thing, also_thing, EdgeKind::Attribute, b.string_id("cast"));
    const auto a = testing::analyse(b.build());
    const LeakSuspects suspects(a->suspect_inputs());
    uint32_t high = 0, low = 0;
    for (const SuspectGroup& g : suspects.groups()) {
        if (g.type != "_ext.Cast") continue;
        if (g.confidence == SuspectConfidence::High) {
            ++high;
            EXPECT_EQ(g.objects, 1u);
            EXPECT_EQ(g.representative, also_thing);
        } else {
            ++low;
            EXPECT_EQ(g.representative, shared);
            EXPECT_TRUE(contains(g.reason, "static state held from C")) << g.reason;
        }
    }
    EXPECT_EQ(high, 1u);
    EXPECT_EQ(low, 1u);
}

}  // namespace
}  // namespace refscope::analysis

#include "refscope/analysis/descriptions.h"

#include <gtest/gtest.h>

#include "snapshot_builder.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using format::RootKind;
using testing::SnapshotBuilder;

TEST(Descriptions, EveryEdgeKind) {
    SnapshotBuilder b;
    const uint32_t d = b.node("dict", 1, "len 3");
    const uint32_t key = b.str("k1");
    const uint32_t int_key = b.node("int", 1, "42");
    const uint32_t tuple_key = b.node("tuple", 1, "len 2");
    const uint32_t name = b.str("cache");
    const uint32_t bytes_key = b.node("bytes", 1, "b'k'");
    const uint32_t v = b.node("object");
    b.edge(d, v, EdgeKind::DictValue, key);                      // 0
    b.edge(d, v, EdgeKind::DictValue, int_key);                  // 1
    b.edge(d, v, EdgeKind::DictValue, tuple_key);                // 2
    b.edge(d, key, EdgeKind::DictKey);                           // 3
    b.edge(d, v, EdgeKind::Attribute, name);                     // 4
    b.edge(d, v, EdgeKind::Slot, b.string_id("x"));              // 5
    b.edge(d, v, EdgeKind::Index, 3);                            // 6
    b.edge(d, v, EdgeKind::SetMember);                           // 7
    b.edge(d, v, EdgeKind::Field, b.string_id("__globals__"));   // 8
    b.edge(d, v, EdgeKind::Local, b.string_id("x"));             // 9
    b.edge(d, v, EdgeKind::Reference, 2);                        // 10
    b.edge(d, v, EdgeKind::Weak, 0, 0);                          // 11
    b.edge(d, v, EdgeKind::Native, b.string_id("owner"));        // 12
    b.edge(d, v, EdgeKind::Native, 0);                           // 13
    b.edge(d, v, EdgeKind::DictValue, 9999);                     // 14: label out of range
    b.edge(d, v, EdgeKind::Slot, 9999);                          // 15
    b.edge(d, v, EdgeKind::Attribute, 9999);                     // 16
    b.edge(d, v, static_cast<EdgeKind>(42));                     // 17
    b.edge(d, v, EdgeKind::DictValue, bytes_key);                // 18
    b.edge(d, v, EdgeKind::Native, b.string_id("word at +24"),   // 19: found in memory
           format::kEdgeOwned | format::kEdgeInferred);
    const Snapshot s = b.build();

    EXPECT_EQ(describe_edge(s, 0), "['k1']");
    EXPECT_EQ(describe_edge(s, 1), "[42]");
    EXPECT_EQ(describe_edge(s, 2), "[tuple (len=2)]");
    EXPECT_EQ(describe_edge(s, 3), "(key)");
    EXPECT_EQ(describe_edge(s, 4), ".cache");
    EXPECT_EQ(describe_edge(s, 5), ".x");
    EXPECT_EQ(describe_edge(s, 6), "[3]");
    EXPECT_EQ(describe_edge(s, 7), "{member}");
    EXPECT_EQ(describe_edge(s, 8), ".__globals__");
    EXPECT_EQ(describe_edge(s, 9), "local x");
    EXPECT_EQ(describe_edge(s, 10), "<ref #2>");
    EXPECT_EQ(describe_edge(s, 11), "(weak)");
    EXPECT_EQ(describe_edge(s, 12), "<native: owner>");
    EXPECT_EQ(describe_edge(s, 13), "<native>");
    EXPECT_EQ(describe_edge(s, 19), "<inferred: word at +24>");
    EXPECT_EQ(describe_edge(s, 14), "[?]");
    EXPECT_EQ(describe_edge(s, 15), ".?");
    EXPECT_EQ(describe_edge(s, 16), ".?");
    EXPECT_EQ(describe_edge(s, 17), "<edge kind 42>");
    EXPECT_EQ(describe_edge(s, 18), "[b'k']");
    EXPECT_EQ(describe_edge(s, 20), "?");
    EXPECT_EQ(edge_kind_name(EdgeKind::DictValue), "dict value");
    EXPECT_EQ(edge_kind_name(uint8_t{200}), "unknown");
}

TEST(Descriptions, Nodes) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app");
    const uint32_t dict = b.node("dict", 1, "len 3");
    const uint32_t text = b.str("hello");
    const uint32_t function = b.node("function", 1, "app.f");
    const uint32_t number = b.node("int", 1, "12345");
    const uint32_t leaky = b.node("app.Leaky", 1, {}, 48, format::kNodeGcTracked, "app");
    const uint32_t none = b.node("NoneType", 1);
    const uint32_t cls = b.node("type", 1, "app.Leaky", 900, format::kNodeTypeObject);
    const uint32_t native = b.node("Eigen::Matrix", 0, {}, 64, format::kNodeNative);
    const uint32_t odd = b.node("app.Thing", 1, "custom");
    const uint32_t ordered = b.node("collections.OrderedDict", 1, "len 2");
    const uint32_t raw = b.node("bytes", 1, "b'\\x00ab'");
    const uint32_t empty_str = b.node("str", 1);
    const Snapshot s = b.build();

    EXPECT_EQ(describe_node(s, module), "module app");
    EXPECT_EQ(describe_node(s, dict), "dict (len=3)");
    EXPECT_EQ(describe_node(s, text), "str 'hello'");
    EXPECT_EQ(describe_node(s, function), "function app.f");
    EXPECT_EQ(describe_node(s, number), "int 12345");
    EXPECT_EQ(describe_node(s, leaky), "app.Leaky @ 0x7f0000001140");
    EXPECT_EQ(describe_node(s, none), "None");
    EXPECT_EQ(describe_node(s, cls), "type app.Leaky");
    EXPECT_EQ(describe_node(s, native), "native Eigen::Matrix @ " + format_address(SnapshotBuilder::address_of(native)));
    EXPECT_EQ(describe_node(s, odd), "app.Thing @ " + format_address(SnapshotBuilder::address_of(odd)) + " (custom)");
    EXPECT_EQ(describe_node(s, ordered), "collections.OrderedDict (len=2)");
    EXPECT_EQ(describe_node(s, raw), "bytes b'\\x00ab'");
    EXPECT_EQ(describe_node(s, empty_str), "str @ " + format_address(SnapshotBuilder::address_of(empty_str)));
    EXPECT_EQ(describe_node(s, 12345), "?");
    EXPECT_EQ(type_name(s, leaky), "app.Leaky");
    EXPECT_EQ(module_name(s, leaky), "app");
    EXPECT_EQ(module_name(s, module), "app");
    EXPECT_EQ(module_name(s, dict), "builtins");
}

TEST(Descriptions, Roots) {
    SnapshotBuilder b;
    const uint32_t x = b.node("object");
    const uint32_t main_thread = b.thread("MainThread", 1, true);
    b.root(x, RootKind::ThreadStack, "frame app.py:12 in main, local x", 1, main_thread);
    b.root(x, RootKind::Extension);
    b.root(x, RootKind::ThreadStack, "orphan", 1, 77);
    const Snapshot s = b.build();
    EXPECT_EQ(describe_root(s, s.roots[0]), "frame app.py:12 in main, local x");
    EXPECT_EQ(root_thread_name(s, s.roots[0]), "MainThread");
    EXPECT_EQ(describe_root(s, s.roots[1]), "extension");
    EXPECT_EQ(root_thread_name(s, s.roots[1]), "");
    EXPECT_EQ(root_thread_name(s, s.roots[2]), "");
}

}  // namespace
}  // namespace refscope::analysis

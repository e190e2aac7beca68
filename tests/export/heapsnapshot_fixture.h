// The small heap the export tests share, and a reader for exported files.
//
// The heap (sizes chosen so that every retained size below is a distinct sum):
//
//   sys.modules['app'] ─▶ module app (64) ─__dict__▶ dict (1000)
//     dict['head'] ─▶ Node (100) ─next▶ Node (200) ─next▶ Node (400)
//                                       the last one also points, NOT owned, back at the dict
//     dict['a'] ─▶ Holder (10) ─child▶ Shared (300) ◀child─ Holder (20) ◀─ dict['b']
//     dict['cyc'] ─▶ CycA (30) ⇄peer⇄ CycB (40)
//     dict['ref'] ─▶ weakref (80) ┄weak┄▶ Target (500) ◀─ thread MainThread, local t
//   Leaked (700), refcount 2 and no holder: unexplained surplus 2
//     Leaked ─items▶ list (56) ─[0]▶ int 42 (28)
//     Leaked ─cpp_member▶ Inner (90), owned but invisible to the GC
//   str keys 'head' 'a' 'b' 'cyc' 'ref' (49 + length each), owned by the dict
//   but not reported by tp_traverse (as CPython does for str keys);
//   attribute-name strs 'next' 'child' 'peer' 'items', held by the interpreter
//   (interned).
//
// Refcounts are owned in-edges + root references, except Leaked.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "../analysis/snapshot_builder.h"
#include "json_value.h"
#include "refscope/export/heapsnapshot.h"

namespace refscope::testing {

struct SmallHeap {
    Snapshot snapshot;
    uint32_t module = 0, dict = 0, key_head = 0, key_a = 0, key_b = 0, key_cyc = 0, key_ref = 0;
    uint32_t node1 = 0, node2 = 0, node3 = 0, holder_a = 0, holder_b = 0, shared = 0;
    uint32_t cyc_a = 0, cyc_b = 0, weakref = 0, target = 0, leaked = 0, list = 0, number = 0;
    uint32_t inner = 0, name_next = 0, name_child = 0, name_peer = 0, name_items = 0;
};

inline SmallHeap make_small_heap() {
    using format::EdgeKind;
    SnapshotBuilder b;
    SmallHeap h;
    constexpr uint8_t kOwnedOnly = format::kEdgeOwned;
    const auto obj = [&](const std::string& type, uint64_t size, int64_t refcount = 1) {
        return b.node(type, refcount, {}, size, format::kNodeGcTracked, "app");
    };
    h.module = b.node("module", 1, "app", 64);
    h.dict = b.node("dict", 1, "len 5", 1000);  // the not-owned back edge does not count
    h.key_head = b.str("head");
    h.key_a = b.str("a");
    h.key_b = b.str("b");
    h.key_cyc = b.str("cyc");
    h.key_ref = b.str("ref");
    h.name_next = b.str("next");
    h.name_child = b.str("child");
    h.name_peer = b.str("peer");
    h.name_items = b.str("items");
    h.node1 = obj("app.Node", 100);
    h.node2 = obj("app.Node", 200);
    h.node3 = obj("app.Node", 400);
    h.holder_a = obj("app.Holder", 10);
    h.holder_b = obj("app.Holder", 20);
    h.shared = obj("app.Shared", 300, 2);
    h.cyc_a = obj("app.CycA", 30, 2);
    h.cyc_b = obj("app.CycB", 40);
    h.weakref = b.node("weakref.ReferenceType", 1, {}, 80, format::kNodeGcTracked, "weakref");
    h.target = obj("app.Target", 500);
    h.leaked = obj("app.Leaked", 700, 2);
    h.list = b.node("list", 1, "len 1", 56);
    h.number = b.node("int", 1, "42", 28, 0);
    h.inner = obj("app.Inner", 90);

    b.root(h.module, format::RootKind::Interpreter, "sys.modules['app']");
    for (const uint32_t name : {h.name_next, h.name_child, h.name_peer, h.name_items}) {
        b.root(name, format::RootKind::Interpreter, "interned");
    }
    const uint32_t main_thread = b.thread("MainThread", 140000, true);
    b.root(h.target, format::RootKind::ThreadStack, "frame app.py:12 in main, local t", 1,
           main_thread);

    b.edge(h.module, h.dict, EdgeKind::Field, b.string_id("__dict__"));
    const auto item = [&](uint32_t key, uint32_t value) {
        b.edge(h.dict, key, EdgeKind::DictKey, 0, kOwnedOnly);
        b.edge(h.dict, value, EdgeKind::DictValue, key);
    };
    item(h.key_head, h.node1);
    item(h.key_a, h.holder_a);
    item(h.key_b, h.holder_b);
    item(h.key_cyc, h.cyc_a);
    item(h.key_ref, h.weakref);
    b.edge(h.node1, h.node2, EdgeKind::Attribute, h.name_next);
    b.edge(h.node2, h.node3, EdgeKind::Attribute, h.name_next);
    b.edge(h.node3, h.dict, EdgeKind::Reference, 0, 0);  // an annotation: not owned
    b.edge(h.holder_a, h.shared, EdgeKind::Attribute, h.name_child);
    b.edge(h.holder_b, h.shared, EdgeKind::Attribute, h.name_child);
    b.edge(h.cyc_a, h.cyc_b, EdgeKind::Attribute, h.name_peer);
    b.edge(h.cyc_b, h.cyc_a, EdgeKind::Attribute, h.name_peer);
    b.edge(h.weakref, h.target, EdgeKind::Weak, 0, 0);
    b.edge(h.leaked, h.list, EdgeKind::Attribute, h.name_items);
    b.edge(h.leaked, h.inner, EdgeKind::Native, b.string_id("cpp_member"), kOwnedOnly);
    b.edge(h.list, h.number, EdgeKind::Index, 0);
    h.snapshot = b.build();
    return h;
}

// Retained sizes by hand (see the picture above). Synthetic nodes and the
// not-owned and weak edges retain nothing of their own.
struct ExpectedRetained {
    uint32_t node;
    uint64_t bytes;
};
inline std::vector<ExpectedRetained> expected_retained_sizes(const SmallHeap& h) {
    const uint64_t keys = 53 + 50 + 50 + 52 + 52;
    const uint64_t chain = 100 + 200 + 400;
    const uint64_t dict = 1000 + keys + chain + 10 + 20 + 300 + 30 + 40 + 80;
    return {
        {h.module, 64 + dict}, {h.dict, dict},      {h.node1, chain},  {h.node2, 600},
        {h.node3, 400},        {h.holder_a, 10},    {h.holder_b, 20},  {h.shared, 300},
        {h.cyc_a, 70},         {h.cyc_b, 40},       {h.weakref, 80},   {h.target, 500},
        {h.leaked, 700 + 56 + 28 + 90},             {h.list, 84},      {h.number, 28},
        {h.inner, 90},         {h.key_head, 53},    {h.name_next, 53},
    };
}

// An exported file, taken apart.
struct ParsedHeapsnapshot {
    JsonValue root;
    size_t node_fields = 0, edge_fields = 0;
    std::vector<uint64_t> nodes, edges;
    std::vector<std::string> strings;
    std::vector<std::string> node_types, edge_types;

    size_t node_count() const { return nodes.size() / node_fields; }
    uint64_t field(size_t node, size_t f) const { return nodes[node * node_fields + f]; }
    std::string type_of(size_t node) const { return node_types.at(field(node, 0)); }
    const std::string& name_of(size_t node) const { return strings.at(field(node, 1)); }
    uint64_t id_of(size_t node) const { return field(node, 2); }
    size_t index_of_id(uint64_t id) const {
        for (size_t n = 0; n < node_count(); ++n) {
            if (id_of(n) == id) return n;
        }
        throw std::out_of_range("no node with id " + std::to_string(id));
    }
    struct Edge {
        std::string type;
        std::string name;  // the index as text for element edges
        size_t to = 0;     // node index
    };
    std::vector<Edge> edges_of(size_t node) const {
        size_t first = 0;
        for (size_t n = 0; n < node; ++n) first += field(n, 4);
        std::vector<Edge> out;
        for (size_t e = first; e < first + field(node, 4); ++e) {
            Edge edge;
            edge.type = edge_types.at(edges[e * edge_fields]);
            const uint64_t name = edges[e * edge_fields + 1];
            edge.name = edge.type == "element" || edge.type == "hidden" ? std::to_string(name)
                                                                       : strings.at(name);
            edge.to = edges[e * edge_fields + 2] / node_fields;
            out.push_back(edge);
        }
        return out;
    }
};

inline std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

inline ParsedHeapsnapshot parse_heapsnapshot(const std::string& text) {
    ParsedHeapsnapshot p;
    p.root = parse_json(text);
    const JsonValue& meta = p.root["snapshot"]["meta"];
    p.node_fields = meta["node_fields"].size();
    p.edge_fields = meta["edge_fields"].size();
    for (const JsonValue& t : meta["node_types"][0].items) p.node_types.push_back(t.text);
    for (const JsonValue& t : meta["edge_types"][0].items) p.edge_types.push_back(t.text);
    for (const JsonValue& v : p.root["nodes"].items) p.nodes.push_back(v.u64());
    for (const JsonValue& v : p.root["edges"].items) p.edges.push_back(v.u64());
    for (const JsonValue& v : p.root["strings"].items) p.strings.push_back(v.text);
    return p;
}

}  // namespace refscope::testing

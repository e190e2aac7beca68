// A small heap with every case the models must show, built in memory
// (tests/analysis/snapshot_builder.h) and analysed by the real pipeline.
//
//   sys.modules (root) ─['app']→ module app ─.__dict__→ dict ─['cache']→ app.Cache ─.ref→ weakref
//                                                           └─['items']→ list (len=3, also a frame local)
//                                                                          ├[0]→ Leaky ─(borrowed)→ app.Cache
//                                                                          ├[1]→ Leaky
//                                                                          └[2]→ Leaky
//   weakref ─(weak)→ app.Cache
//   leaked app.Leaky (2 unexplained references) ─.payload→ list (len=0)
//   fixture.Wrapper ─.value (owned, not reported by tp_traverse)→ function f ─.__closure__→ Wrapper
//   interned strings (root) ─(key)→ 'payload', 'ref', 'value'
//
// Refcounts are made consistent after building: owned in-edges plus the
// references roots explain plus the unexplained surplus given here.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "analyse.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "snapshot_builder.h"

namespace refscope::test_fixture {

using testing::analyse;  // analyse.h: the pipeline the app runs

using format::EdgeKind;
using format::RootKind;

struct Heap {
    uint32_t modules, key_app, module_app, app_dict, key_cache, cache, key_items, items;
    uint32_t leaky[3];
    uint32_t leaked, payload, name_payload, wrapper, closure, weakref, name_ref, name_value, interned;
};

// `list_length` Leaky objects in the list (the baseline tests use fewer).
inline Snapshot build_heap(Heap& h, int list_length = 3) {
    testing::SnapshotBuilder b;
    std::map<uint32_t, int64_t> surplus;
    h.modules = b.node("dict", 0, "len 1", 232);
    h.key_app = b.str("app");
    h.module_app = b.node("module", 0, "app", 72);
    h.app_dict = b.node("dict", 0, "len 2", 360);
    h.key_cache = b.str("cache");
    h.cache = b.node("app.Cache", 0, {}, 48, format::kNodeGcTracked, "app");
    h.key_items = b.str("items");
    h.items = b.node("list", 0, "len " + std::to_string(list_length), 88);
    for (int i = 0; i < 3; ++i) {
        h.leaky[i] = i < list_length ? b.node("app.Leaky", 0, {}, 64, format::kNodeGcTracked, "app") : kNoNode;
    }
    h.leaked = b.node("app.Leaky", 0, {}, 64, format::kNodeGcTracked, "app");
    h.payload = b.node("list", 0, "len 0", 56);
    h.name_payload = b.str("payload");
    h.wrapper = b.node("fixture.Wrapper", 0, {}, 40, format::kNodeGcTracked, "fixture");
    h.closure = b.node("function", 0, "fixture.make.<locals>.f", 136);
    h.weakref = b.node("weakref", 0, {}, 80);
    h.name_ref = b.str("ref");
    h.name_value = b.str("value");
    h.interned = b.node("dict", 0, "len 3", 360);

    b.dict_item(h.modules, h.key_app, h.module_app);
    b.edge(h.module_app, h.app_dict, EdgeKind::Field, b.string_id("__dict__"));
    b.dict_item(h.app_dict, h.key_cache, h.cache);
    b.dict_item(h.app_dict, h.key_items, h.items);
    for (int i = 0; i < list_length; ++i) b.edge(h.items, h.leaky[i], EdgeKind::Index, static_cast<uint32_t>(i));
    if (list_length > 0) b.edge(h.leaky[0], h.cache, EdgeKind::Reference, 0, format::kEdgeGcVisible);
    b.edge(h.cache, h.weakref, EdgeKind::Attribute, h.name_ref);
    b.edge(h.weakref, h.cache, EdgeKind::Weak, 0, 0);
    b.edge(h.leaked, h.payload, EdgeKind::Attribute, h.name_payload);
    b.edge(h.wrapper, h.closure, EdgeKind::Attribute, h.name_value, format::kEdgeOwned);
    b.edge(h.closure, h.wrapper, EdgeKind::Field, b.string_id("__closure__"));
    b.edge(h.interned, h.name_payload, EdgeKind::DictKey);
    b.edge(h.interned, h.name_ref, EdgeKind::DictKey);
    b.edge(h.interned, h.name_value, EdgeKind::DictKey);

    b.root(h.modules, RootKind::Interpreter, "sys.modules");
    b.root(h.interned, RootKind::Interpreter, "interned strings");
    const uint32_t main_thread = b.thread("MainThread", 1, true);
    b.root(h.items, RootKind::ThreadStack, "frame app.py:12 in main, local items", 1, main_thread);
    surplus[h.modules] = 1;
    surplus[h.interned] = 1;
    surplus[h.items] = 1;
    surplus[h.leaked] = 2;  // held by C code nobody reported

    Snapshot s = b.build();
    for (size_t n = 0; n < s.node_count(); ++n) s.node_refcount[n] = 0;
    for (size_t e = 0; e < s.edge_count(); ++e) {
        if (s.edge_flags[e] & format::kEdgeOwned) ++s.node_refcount[s.edge_target[e]];
    }
    for (const auto& [node, count] : surplus) s.node_refcount[node] += count;
    return s;
}

inline std::shared_ptr<const analysis::SnapshotAnalysis> analysed_heap(Heap& h, int list_length = 3) {
    return analyse(build_heap(h, list_length));
}

}  // namespace refscope::test_fixture

// The heap the CLI tests run against: a small app with one object reachable
// from sys.modules, one leaked by C code (unexplained surplus), one held only
// through a C++ holder, a weakref, a thread-stack root and one inconsistent
// refcount. Ids are fixed so that tests can name the objects.
#pragma once

#include <string>
#include <vector>

#include "snapshot_builder.h"

namespace refscope::testing {

struct DemoHeap {
    Snapshot snapshot;
    uint32_t sys_modules, app_module, module_dict, cache, reachable_leaky, leaked_leaky,
        holder, holder_list, held_leaky, weakref, local_list, negative;
};

inline DemoHeap make_demo_heap() {
    using format::EdgeKind;
    using format::RootKind;
    SnapshotBuilder b;
    DemoHeap d;
    d.sys_modules = b.node("dict", 1, "len 1", 232);
    const uint32_t app_key = b.str("app");
    d.app_module = b.node("module", 1, "app", 72);
    d.module_dict = b.node("dict", 2, "len 3", 360);
    const uint32_t cache_key = b.str("cache");
    d.cache = b.node("dict", 1, "len 2", 232);
    const uint32_t k1 = b.str("k1");
    d.reachable_leaky = b.node("app.Leaky", 1, {}, 48, format::kNodeGcTracked, "app");
    d.leaked_leaky = b.node("app.Leaky", 1, {}, 48, format::kNodeGcTracked, "app");
    d.holder = b.node("app.Holder", 2, {}, 64, format::kNodeGcTracked, "app");
    d.holder_list = b.node("list", 1, "len 1", 64);
    d.held_leaky = b.node("app.Leaky", 1, {}, 48, format::kNodeGcTracked, "app");
    d.weakref = b.node("weakref.ReferenceType", 1, {}, 80, format::kNodeGcTracked, "weakref");
    const uint32_t f_key = b.str("f");
    const uint32_t function = b.node("function", 1, "app.f", 160);
    d.local_list = b.node("list", 1, "len 2", 72);
    const uint32_t forty_two = b.node("int", 1'000'000'000, "42", 28, format::kNodeImmortal);
    d.negative = b.str("neg\x01\xff", 0);
    const uint32_t watcher = b.node("str", 1'000'000'000, "watcher", 56, format::kNodeImmortal);

    b.dict_item(d.sys_modules, app_key, d.app_module);
    b.edge(d.app_module, d.module_dict, EdgeKind::Field, b.string_id("__dict__"));
    b.dict_item(d.module_dict, cache_key, d.cache);
    b.dict_item(d.module_dict, f_key, function);
    b.edge(d.module_dict, d.weakref, EdgeKind::Attribute, watcher);
    b.dict_item(d.cache, k1, d.reachable_leaky);
    b.edge(function, d.module_dict, EdgeKind::Field, b.string_id("__globals__"));
    b.edge(d.weakref, d.reachable_leaky, EdgeKind::Weak, 0, 0);
    b.edge(d.holder, d.holder_list, EdgeKind::Slot, b.string_id("items"));
    b.edge(d.holder_list, d.held_leaky, EdgeKind::Index, 0);
    b.edge(d.local_list, forty_two, EdgeKind::Index, 0);
    b.edge(d.local_list, d.negative, EdgeKind::Index, 1);

    const uint32_t main_thread = b.thread("MainThread", 140000, true);
    b.root(d.sys_modules, RootKind::Interpreter, "sys.modules", 1);
    b.root(d.local_list, RootKind::ThreadStack, "frame app.py:12 in main, local items", 1,
           main_thread);
    b.root(forty_two, RootKind::Interpreter, "small int", 0);

    Snapshot& s = b.snapshot();
    s.header.probe_version = "0.1.0";
    s.header.python_version = "3.12.1 (main, Dec  8 2023)";
    s.header.python_hexversion = 0x030c01f0;
    s.header.python_build = "CPython release GCC 12.2.0";
    s.header.platform = "linux x86_64";
    s.header.pid = 4242;
    s.header.executable = "/usr/bin/python3";
    s.header.argv = {"app.py", "--serve"};
    s.header.time_unix_ns = 1'700'000'000'000'000'000;
    s.header.collected_first = true;
    s.header.sequence = 3;
    s.header.label = "after warmup";
    s.header.walk_ns = 1'234'000;
    d.snapshot = b.build();
    return d;
}

// The app heap for the analysis verbs (retained, cycles, diff, query,
// exports): module app with a dict cache of `leaky_count` app.Leaky objects
// (each under a key "k<i>"), a function whose __globals__ closes an alive
// cycle, one app.Leaky leaked by C code (unexplained surplus) holding a list,
// and an unreachable pair fixture.Wrapper ⇄ fixture.Value whose
// Wrapper → Value reference (.value) is owned but not reported by
// tp_traverse: the nanobind `w.value = w` cycle the collector cannot see.
// The cache's entries come last, so snapshots with different counts share
// every other address (a later snapshot of the same process).
struct AppHeap {
    Snapshot snapshot;
    uint32_t sys_modules, app_module, module_dict, cache, function, leaked, leaked_list, wrapper,
        value;
    std::vector<uint32_t> leaky;  // the cache's values
};

inline AppHeap make_app_heap(uint64_t sequence, uint32_t leaky_count, int64_t pid = 4242) {
    using format::EdgeKind;
    using format::RootKind;
    SnapshotBuilder b;
    AppHeap h;
    h.sys_modules = b.node("dict", 1, "len 1", 232);                   // 232
    const uint32_t app_key = b.str("app");                             // 52
    h.app_module = b.node("module", 1, "app", 72);                     // 72
    h.module_dict = b.node("dict", 2, "len 2", 360);                   // 360
    const uint32_t cache_key = b.str("cache");                         // 54
    h.cache = b.node("dict", 1, "len " + std::to_string(leaky_count), 232);
    const uint32_t f_key = b.str("f");                                 // 50
    h.function = b.node("function", 1, "app.f", 160);                  // 160
    h.leaked = b.node("app.Leaky", 1, {}, 48, format::kNodeGcTracked, "app");
    h.leaked_list = b.node("list", 1, "len 0", 100);
    h.wrapper = b.node("fixture.Wrapper", 1, {}, 64, format::kNodeGcTracked, "fixture");
    h.value = b.node("fixture.Value", 1, {}, 40, format::kNodeGcTracked, "fixture");
    b.dict_item(h.sys_modules, app_key, h.app_module);
    b.edge(h.app_module, h.module_dict, EdgeKind::Field, b.string_id("__dict__"));
    b.dict_item(h.module_dict, cache_key, h.cache);
    b.dict_item(h.module_dict, f_key, h.function);
    b.edge(h.function, h.module_dict, EdgeKind::Field, b.string_id("__globals__"));
    b.edge(h.leaked, h.leaked_list, EdgeKind::Slot, b.string_id("items"));
    b.edge(h.wrapper, h.value, EdgeKind::Slot, b.string_id("value"), format::kEdgeOwned);
    b.edge(h.value, h.wrapper, EdgeKind::Field, b.string_id("owner"));
    for (uint32_t i = 0; i < leaky_count; ++i) {
        const uint32_t key = b.str("k" + std::to_string(i));          // 51
        h.leaky.push_back(b.node("app.Leaky", 1, {}, 48, format::kNodeGcTracked, "app"));
        b.dict_item(h.cache, key, h.leaky.back());
    }
    b.root(h.sys_modules, RootKind::Interpreter, "sys.modules", 1);

    Snapshot& s = b.snapshot();
    s.header.pid = pid;
    s.header.executable = "/usr/bin/python3";
    s.header.argv = {"app.py"};
    s.header.time_unix_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(sequence) * 1'000'000'000;
    s.header.sequence = sequence;
    h.snapshot = b.build();
    return h;
}

}  // namespace refscope::testing

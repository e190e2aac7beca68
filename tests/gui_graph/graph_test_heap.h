// A small heap for the graph view's tests, analysed in memory:
//
//   module app (GC root) ─__dict__─▶ dict ─['leaky']─▶ app.Leaky (the target)
//   app.Leaky ─m_callback (owned, GC cannot see)─▶ app.Callback
//   app.Leaky ─weak─▶ app.Observer ◀─.observer─ module app
//   app.Observer ─.state─▶ app.ObserverState     (2 hops from the target)
//   app.Leaky ─[0..19]─▶ 20 × str                (one group node at hops 1)
//   app.Holder (refcount 2, no referrer: unexplained surplus, a suspect)
//       ─.lost─▶ app.Lost                         (no retention path)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "refscope/analysis/snapshot_analysis.h"
#include "session/analysis_ptr.h"
#include "snapshot_builder.h"

namespace refscope::app::graphtest {

struct TestHeap {
    AnalysisPtr analysis;
    uint32_t module = 0, dict = 0, target = 0, callback = 0, observer = 0, state = 0;
    uint32_t holder = 0, lost = 0;
    std::vector<uint32_t> strings;
};

inline TestHeap make_test_heap() {
    using format::EdgeKind;
    refscope::testing::SnapshotBuilder b;
    TestHeap h;
    h.module = b.node("module", 1, "app", 80, format::kNodeGcTracked, "app");
    h.dict = b.node("dict", 1, "len 2");
    h.target = b.node("app.Leaky", 1, {}, 64, format::kNodeGcTracked, "app");
    h.callback = b.node("app.Callback", 1, {}, 48, format::kNodeGcTracked, "app");
    h.observer = b.node("app.Observer", 1, {}, 48, format::kNodeGcTracked, "app");
    h.state = b.node("app.ObserverState", 1, {}, 48, format::kNodeGcTracked, "app");
    h.holder = b.node("app.Holder", 2, {}, 48, format::kNodeGcTracked, "app");
    h.lost = b.node("app.Lost", 1, {}, 48, format::kNodeGcTracked, "app");
    b.edge(h.module, h.dict, EdgeKind::Field, b.string_id("__dict__"));
    b.edge(h.dict, h.target, EdgeKind::DictValue, b.str("leaky"));
    b.edge(h.target, h.callback, EdgeKind::Native, b.string_id("m_callback"), format::kEdgeOwned);
    b.edge(h.target, h.observer, EdgeKind::Weak, 0, 0);
    b.edge(h.module, h.observer, EdgeKind::Attribute, b.str("observer"));
    b.edge(h.observer, h.state, EdgeKind::Attribute, b.str("state"));
    for (uint32_t i = 0; i < 20; ++i) {
        const uint32_t s = b.str("item-" + std::to_string(i));
        h.strings.push_back(s);
        b.edge(h.target, s, EdgeKind::Index, i);
    }
    b.edge(h.holder, h.lost, EdgeKind::Attribute, b.str("lost"));
    b.root(h.module, format::RootKind::Interpreter, "sys.modules['app']");
    h.analysis = analysis::SnapshotAnalysis::analyse(b.build());
    return h;
}

}  // namespace refscope::app::graphtest

// Growth leads (leak_suspects_leads.cpp): which new objects lead a growth
// when a program's objects hang below the standard library's and beside a
// library's. The modules' files decide whose code a type is: the program's
// own (outside the standard library and site-/dist-packages), a library's,
// or the interpreter's. Shapes of the real-program tier's asyncio timer and
// SymPy method-cache leaks.
#include <gtest/gtest.h>

#include <string>

#include "refscope/analysis/leak_suspects.h"
#include "refscope/analysis/snapshot_diff.h"
#include "snapshot_builder.h"
#include "suspects_analysis.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using testing::rows_of;
using testing::SnapshotBuilder;

// A module object named `name` whose __dict__ has __file__ = `file`, in sys.modules.
void add_module(SnapshotBuilder& b, uint32_t sys_modules, const std::string& name, const std::string& file) {
    const uint32_t module = b.node("module", 2, name, 72);
    b.dict_item(sys_modules, b.str(name), module);
    const uint32_t dict = b.node("dict", 1, {}, 640);
    b.edge(module, dict, EdgeKind::Field, b.string_id("__dict__"));
    b.dict_item(dict, b.str("__file__"), b.str(file));
}

// sys.modules with the program, the standard library's asyncio.events and
// SymPy's mul; then `entries` of each leak shape, always built in the same
// order so that two snapshots share the addresses of what both hold:
//   timers:  list --[i]--> asyncio.events.TimerHandle --> method --> __main__.Session
//   cache:   dict --key--> tuple --> __main__.Solver, --value--> list --> sympy.core.mul.Mul
Snapshot heap(uint64_t sequence, uint32_t entries) {
    SnapshotBuilder b;
    b.snapshot().header.pid = 7;
    b.snapshot().header.sequence = sequence;
    const uint32_t modules = b.node("dict", 1, "sys.modules", 1200);
    b.root(modules, format::RootKind::Interpreter, "sys.modules");
    add_module(b, modules, "__main__", "/srv/shop/service.py");
    add_module(b, modules, "asyncio.events", "/usr/lib/python3.13/asyncio/events.py");
    add_module(b, modules, "sympy.core.mul", "/usr/lib/python3/dist-packages/sympy/core/mul.py");
    const uint32_t scheduled = b.node("list", 1, {}, 4096);
    b.root(scheduled, format::RootKind::Interpreter, "loop._scheduled");
    const uint32_t cache = b.node("dict", 1, {}, 4096);
    b.root(cache, format::RootKind::Interpreter, "Solver.solve_for.cache");
    for (uint32_t i = 0; i < entries; ++i) {
        const uint32_t timer = b.node("asyncio.events.TimerHandle", 1, {}, 72, format::kNodeGcTracked,
                                      "asyncio.events");
        const uint32_t method = b.node("method", 1, {}, 48);
        const uint32_t session = b.node("__main__.Session", 1, {}, 48, format::kNodeGcTracked, "__main__");
        b.edge(scheduled, timer, EdgeKind::Index, i);
        b.edge(timer, method, EdgeKind::Attribute, b.string_id("_callback"));
        b.edge(method, session, EdgeKind::Field, b.string_id("__self__"));

        const uint32_t key = b.node("tuple", 1, {}, 56);
        const uint32_t solver = b.node("__main__.Solver", 1, {}, 48, format::kNodeGcTracked, "__main__");
        const uint32_t result = b.node("list", 1, {}, 72);
        b.edge(key, solver, EdgeKind::Index, 0);
        b.edge(cache, key, EdgeKind::DictKey);
        b.edge(cache, result, EdgeKind::DictValue, key);
        for (uint32_t j = 0; j < 3; ++j) {
            const uint32_t mul = b.node("sympy.core.mul.Mul", 1, {}, 64, format::kNodeGcTracked, "sympy.core.mul");
            b.edge(result, mul, EdgeKind::Index, j);
        }
    }
    return b.build();
}

TEST(LeakSuspectsLeads, TheProgramsTypeLeadsBelowTheStandardLibrarysAndBesideALibrarys) {
    const auto base = testing::analyse(heap(1, 10));
    const auto now = testing::analyse(heap(2, 110));
    const SnapshotDiff diff = diff_snapshots(base->snapshot(), now->snapshot());
    SuspectInputs inputs = now->suspect_inputs();
    inputs.diff = &diff;
    const LeakSuspects suspects(inputs);
    ASSERT_GE(suspects.groups().size(), 2u);

    // The two program types are the two growing holders, each naming its holder.
    for (const char* type : {"__main__.Session", "__main__.Solver"}) {
        const SuspectGroup* row = rows_of(suspects, type).first;
        ASSERT_NE(row, nullptr) << type;
        EXPECT_TRUE(row->kinds & kSuspectGrowingHolder) << type;
        EXPECT_EQ(row->lead_holder_objects, 100u) << type;
    }
    EXPECT_LT(suspects.groups()[0].type.find("__main__."), std::string::npos);
    EXPECT_LT(suspects.groups()[1].type.find("__main__."), std::string::npos);
    // The TimerHandle around each Session is its packaging; the SymPy
    // results beside each Solver key are what its entry holds: neither
    // leads a growth of its own.
    for (const char* type : {"asyncio.events.TimerHandle", "sympy.core.mul.Mul"}) {
        const SuspectGroup* row = rows_of(suspects, type).first;
        if (row != nullptr) {
            EXPECT_FALSE(row->kinds & kSuspectGrowingHolder) << type << ": " << row->reason;
        }
    }
}

}  // namespace
}  // namespace refscope::analysis

// Growth leads (leak_suspects_leads.cpp): which new objects lead a growth
// when a program's objects hang below the standard library's and beside a
// library's. The modules' files decide whose code a type is: the program's
// own (outside the standard library and site-/dist-packages), a library's,
// or the interpreter's. Shapes of the real-program tier's asyncio timer and
// SymPy method-cache leaks.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "refscope/analysis/leak_suspects.h"
#include "refscope/analysis/snapshot_diff.h"
#include "analyse.h"
#include "snapshot_builder.h"
#include "suspects_analysis.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;
using testing::rows_of;
using testing::SnapshotBuilder;

// A module object named `name` whose __dict__ has __file__ = `file` (none
// when empty), in sys.modules.
void add_module(SnapshotBuilder& b, uint32_t sys_modules, const std::string& name, const std::string& file) {
    const uint32_t module = b.node("module", 2, name, 72);
    b.dict_item(sys_modules, b.str(name), module);
    const uint32_t dict = b.node("dict", 1, {}, 640);
    b.edge(module, dict, EdgeKind::Field, b.string_id("__dict__"));
    if (!file.empty()) b.dict_item(dict, b.str("__file__"), b.str(file));
}

struct Shape {
    uint32_t entries = 0;                // timer and cache entries
    uint32_t solvers = ~0u;              // of the cache entries, those keyed by a Solver (all by default)
    std::string main_file = "/srv/shop/service.py";  // "" : a REPL's or notebook's __main__
    std::string stdlib = "/usr/lib/python3.13";      // or "/usr/lib64/python3.12"
};

// sys.modules with the program, the standard library's asyncio.events and
// SymPy's mul; then `entries` of each leak shape, always built in the same
// order so that two snapshots share the addresses of what both hold:
//   timers:  list --[i]--> asyncio.events.TimerHandle --> method --> __main__.Session
//   cache:   dict --key--> tuple --> __main__.Solver, --value--> list --> sympy.core.mul.Mul
Snapshot heap(uint64_t sequence, const Shape& shape) {
    SnapshotBuilder b;
    b.snapshot().header.pid = 7;
    b.snapshot().header.sequence = sequence;
    const uint32_t modules = b.node("dict", 1, "sys.modules", 1200);
    b.root(modules, format::RootKind::Interpreter, "sys.modules");
    add_module(b, modules, "__main__", shape.main_file);
    add_module(b, modules, "asyncio.events", shape.stdlib + "/asyncio/events.py");
    add_module(b, modules, "sympy.core.mul", "/usr/lib/python3/dist-packages/sympy/core/mul.py");
    const uint32_t scheduled = b.node("list", 1, {}, 4096);
    b.root(scheduled, format::RootKind::Interpreter, "loop._scheduled");
    const uint32_t cache = b.node("dict", 1, {}, 4096);
    b.root(cache, format::RootKind::Interpreter, "Solver.solve_for.cache");
    for (uint32_t i = 0; i < shape.entries; ++i) {
        const uint32_t timer = b.node("asyncio.events.TimerHandle", 1, {}, 72, format::kNodeGcTracked,
                                      "asyncio.events");
        const uint32_t method = b.node("method", 1, {}, 48);
        const uint32_t session = b.node("__main__.Session", 1, {}, 48, format::kNodeGcTracked, "__main__");
        b.edge(scheduled, timer, EdgeKind::Index, i);
        b.edge(timer, method, EdgeKind::Attribute, b.string_id("_callback"));
        b.edge(method, session, EdgeKind::Field, b.string_id("__self__"));

        const uint32_t key = b.node("tuple", 1, {}, 56);
        const uint32_t solver = i < shape.solvers
                                    ? b.node("__main__.Solver", 1, {}, 48, format::kNodeGcTracked, "__main__")
                                    : b.str("key " + std::to_string(i));
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

LeakSuspects suspects_between(const Shape& before, const Shape& after,
                              testing::AnalysisPtr& keep, SnapshotDiff& diff) {
    const auto base = testing::analyse(heap(1, before));
    keep = testing::analyse(heap(2, after));
    diff = diff_snapshots(base->snapshot(), keep->snapshot());
    SuspectInputs inputs = keep->suspect_inputs();
    inputs.diff = &diff;
    return LeakSuspects(inputs);
}

// The real-program tier's asyncio timer and SymPy method-cache shapes: the
// program's Session and Solver lead; the TimerHandle around each Session
// and the SymPy results beside each Solver key have no high row.
void expect_program_types_lead(const LeakSuspects& suspects) {
    for (const char* type : {"__main__.Session", "__main__.Solver"}) {
        const SuspectGroup* row = rows_of(suspects, type).first;
        ASSERT_NE(row, nullptr) << type;
        EXPECT_TRUE(row->kinds & kSuspectGrowingHolder) << type;
        EXPECT_EQ(row->lead_holder_objects, 100u) << type;
    }
    for (const char* type : {"asyncio.events.TimerHandle", "sympy.core.mul.Mul"}) {
        EXPECT_EQ(rows_of(suspects, type).first, nullptr) << type;
        const SuspectGroup* low = rows_of(suspects, type).second;
        ASSERT_NE(low, nullptr) << type;
        EXPECT_NE(low->reason.find("part of the growth of __main__."), std::string::npos) << low->reason;
    }
}

TEST(LeakSuspectsLeads, TheProgramsTypeLeadsBelowTheStandardLibrarysAndBesideALibrarys) {
    testing::AnalysisPtr now;
    SnapshotDiff diff;
    const LeakSuspects suspects = suspects_between({.entries = 10}, {.entries = 110}, now, diff);
    expect_program_types_lead(suspects);
    EXPECT_EQ(suspects.groups()[0].type.rfind("__main__.", 0), 0u) << suspects.groups()[0].type;
    EXPECT_EQ(suspects.groups()[1].type.rfind("__main__.", 0), 0u) << suspects.groups()[1].type;
}

// A REPL's or a notebook's __main__ has no __file__; Fedora's standard
// library is under /usr/lib64.
TEST(LeakSuspectsLeads, ANotebooksMainAndALib64StandardLibraryAreTold) {
    testing::AnalysisPtr now;
    SnapshotDiff diff;
    const Shape before{.entries = 10, .main_file = "", .stdlib = "/usr/lib64/python3.12"};
    Shape after = before;
    after.entries = 110;
    expect_program_types_lead(suspects_between(before, after, now, diff));
}

// A few program objects in a holder (fewer than min_growth_objects) are no
// growth, so they do not hide a library's growth in the same holder.
TEST(LeakSuspectsLeads, AFewProgramObjectsDoNotHideALibrarysGrowth) {
    testing::AnalysisPtr now;
    SnapshotDiff diff;
    const LeakSuspects suspects =
        suspects_between({.entries = 10, .solvers = 10}, {.entries = 110, .solvers = 13}, now, diff);
    const SuspectGroup* mul = rows_of(suspects, "sympy.core.mul.Mul").first;
    ASSERT_NE(mul, nullptr);
    EXPECT_TRUE(mul->kinds & kSuspectGrowingHolder) << mul->reason;
}

}  // namespace
}  // namespace refscope::analysis

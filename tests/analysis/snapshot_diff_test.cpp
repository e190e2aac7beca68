#include "refscope/analysis/snapshot_diff.h"

#include <gtest/gtest.h>

#include "snapshot_builder.h"

namespace refscope {
namespace {

using analysis::diff_snapshots;
using analysis::find_survivors;
using analysis::SnapshotMismatchError;
using testing::SnapshotBuilder;

// A builder whose snapshots claim to come from one process, in order.
SnapshotBuilder process_builder(uint64_t sequence, int64_t pid = 123) {
    SnapshotBuilder b;
    b.snapshot().header.pid = pid;
    b.snapshot().header.executable = "/usr/bin/python3";
    b.snapshot().header.argv = {"python3", "app.py"};
    b.snapshot().header.sequence = sequence;
    return b;
}

// Adds a node at an explicit address.
uint32_t at(SnapshotBuilder& b, uint64_t address, const std::string& type, uint64_t size = 32,
            const std::string& module = "builtins") {
    const uint32_t n = b.node(type, 1, {}, size, format::kNodeGcTracked, module);
    b.snapshot().node_address[n] = address;
    return n;
}

const analysis::TypeDelta* find_type(const analysis::SnapshotDiff& d, const std::string& name) {
    for (const auto& t : d.types) {
        if (t.name == name) return &t;
    }
    return nullptr;
}

TEST(SnapshotDiff, MatchesByAddressAndTypeName) {
    SnapshotBuilder a = process_builder(1);
    at(a, 0x1000, "dict", 100);
    at(a, 0x2000, "list", 50);
    at(a, 0x3000, "app.Leaky", 40, "app");  // freed
    SnapshotBuilder b = process_builder(2);
    // Type ids differ from A's: types are created in another order.
    at(b, 0x4000, "app.Leaky", 40, "app");  // new
    at(b, 0x2000, "list", 60);              // same object, grew
    at(b, 0x1000, "dict", 100);
    at(b, 0x5000, "app.Leaky", 40, "app");  // new
    const Snapshot sa = a.build(), sb = b.build();
    const auto d = diff_snapshots(sa, sb);

    EXPECT_EQ(d.totals.objects_a, 3u);
    EXPECT_EQ(d.totals.objects_b, 4u);
    EXPECT_EQ(d.totals.matched, 2u);
    EXPECT_EQ(d.totals.new_objects, 2u);
    EXPECT_EQ(d.totals.new_bytes, 80u);
    EXPECT_EQ(d.totals.freed_objects, 1u);
    EXPECT_EQ(d.totals.freed_bytes, 40u);
    EXPECT_EQ(d.totals.bytes_a, 190u);
    EXPECT_EQ(d.totals.bytes_b, 240u);
    EXPECT_EQ(d.new_nodes, (std::vector<uint32_t>{0, 3}));
    EXPECT_EQ(d.freed_nodes, (std::vector<uint32_t>{2}));
    EXPECT_EQ(d.is_new, (std::vector<uint8_t>{1, 0, 0, 1}));

    // dict unchanged -> left out; sorted by byte delta: Leaky +40, list +10.
    ASSERT_EQ(d.types.size(), 2u);
    EXPECT_EQ(d.types[0].name, "app.Leaky");
    EXPECT_EQ(d.types[0].object_delta(), 1);
    EXPECT_EQ(d.types[0].byte_delta(), 40);
    EXPECT_EQ(d.types[0].new_objects, 2u);
    EXPECT_EQ(d.types[0].freed_objects, 1u);
    EXPECT_EQ(d.types[1].name, "list");
    EXPECT_EQ(d.types[1].object_delta(), 0);
    EXPECT_EQ(d.types[1].byte_delta(), 10);
    EXPECT_EQ(d.types[1].new_objects, 0u);
    EXPECT_EQ(find_type(d, "dict"), nullptr);
}

// Per module as module_name() groups: a type's module, and a module object
// in its own module (by its preview), whatever the type ids.
TEST(SnapshotDiff, ModuleDeltasGroupModuleObjectsByTheirName) {
    const auto module_object = [](SnapshotBuilder& b, uint64_t address, std::string_view name) {
        const uint32_t n = b.node("module", 1, name, 72);
        b.snapshot().node_address[n] = address;
    };
    SnapshotBuilder a = process_builder(1);
    module_object(a, 0x100, "app");
    at(a, 0x1000, "dict", 100);
    at(a, 0x3000, "app.Leaky", 40, "app");  // freed
    SnapshotBuilder b = process_builder(2);
    at(b, 0x4000, "app.Leaky", 40, "app");  // new
    at(b, 0x5000, "app.Leaky", 40, "app");  // new
    at(b, 0x1000, "dict", 100);
    module_object(b, 0x100, "app");
    module_object(b, 0x200, "cache");  // a new module: in module "cache", not "builtins"
    const auto d = diff_snapshots(a.build(), b.build());

    ASSERT_EQ(d.modules.size(), 2u);  // builtins (the dict) did not change
    EXPECT_EQ(d.modules[0].name, "cache");
    EXPECT_EQ(d.modules[0].object_delta(), 1);
    EXPECT_EQ(d.modules[0].byte_delta(), 72);
    EXPECT_EQ(d.modules[1].name, "app");
    EXPECT_EQ(d.modules[1].objects_a, 2u);  // the module object and one Leaky
    EXPECT_EQ(d.modules[1].objects_b, 3u);
    EXPECT_EQ(d.modules[1].byte_delta(), 40);
    EXPECT_EQ(d.modules[1].new_objects, 2u);
    EXPECT_EQ(d.modules[1].freed_objects, 1u);
}

TEST(SnapshotDiff, AddressReusedByAnotherTypeIsFreedPlusNew) {
    SnapshotBuilder a = process_builder(1);
    at(a, 0x1000, "app.Old", 48, "app");
    SnapshotBuilder b = process_builder(2);
    at(b, 0x1000, "app.New", 48, "app");
    const Snapshot sa = a.build(), sb = b.build();
    const auto d = diff_snapshots(sa, sb);
    EXPECT_EQ(d.totals.matched, 0u);
    EXPECT_EQ(d.new_nodes, (std::vector<uint32_t>{0}));
    EXPECT_EQ(d.freed_nodes, (std::vector<uint32_t>{0}));
    ASSERT_NE(find_type(d, "app.New"), nullptr);
    EXPECT_EQ(find_type(d, "app.New")->byte_delta(), 48);
    ASSERT_NE(find_type(d, "app.Old"), nullptr);
    EXPECT_EQ(find_type(d, "app.Old")->byte_delta(), -48);
    // Shrinks sort last.
    EXPECT_EQ(d.types.back().name, "app.Old");
}

// CPython hands tuple addresses out again and again (its free lists): a
// tuple at an old tuple's address is the same tuple only if it holds the
// same objects, since a tuple cannot change.
TEST(SnapshotDiff, TupleAtAReusedAddressHoldingOtherObjectsIsNew) {
    const auto heap = [](uint64_t sequence, uint64_t item_address) {
        SnapshotBuilder b = process_builder(sequence);
        const uint32_t tuple = at(b, 0x1000, "tuple", 56);
        const uint32_t kept = at(b, 0x2000, "app.Key", 48, "app");
        const uint32_t item = at(b, item_address, "app.Solver", 48, "app");
        b.edge(tuple, kept, format::EdgeKind::Index, 0);
        b.edge(tuple, item, format::EdgeKind::Index, 1);
        return b.build();
    };
    const Snapshot first = heap(1, 0x3000), same = heap(2, 0x3000), other = heap(3, 0x4000);
    const auto unchanged = diff_snapshots(first, same);
    EXPECT_EQ(unchanged.totals.matched, 3u);
    EXPECT_TRUE(unchanged.new_nodes.empty());

    const auto changed = diff_snapshots(same, other);
    EXPECT_EQ(changed.new_nodes, (std::vector<uint32_t>{0, 2}));  // the tuple and its new item
    EXPECT_EQ(changed.freed_nodes, (std::vector<uint32_t>{0, 2}));
    ASSERT_NE(find_type(changed, "tuple"), nullptr);
    EXPECT_EQ(find_type(changed, "tuple")->new_objects, 1u);
    // Survivors use the same rule: the tuple and its item are allocated
    // between `same` and `other`, and both survive into a fourth snapshot.
    const Snapshot later = heap(4, 0x4000);
    const auto report = find_survivors(same, other, later);
    EXPECT_EQ(report.allocated_between, 2u);
    EXPECT_EQ(report.survivors, (std::vector<uint32_t>{0, 2}));
    // Another type at a reused address still matches (it may have changed).
    SnapshotBuilder a = process_builder(5), b = process_builder(6);
    for (SnapshotBuilder* x : {&a, &b}) at(*x, 0x1000, "list", 56);
    at(a, 0x2000, "str", 50);
    at(b, 0x2100, "str", 50);
    a.edge(0, 1, format::EdgeKind::Index, 0);
    b.edge(0, 1, format::EdgeKind::Index, 0);
    const Snapshot sa = a.build(), sb = b.build();
    EXPECT_EQ(diff_snapshots(sa, sb).totals.matched, 1u);
}

TEST(SnapshotDiff, SameTypeNameDifferentTypeIdsMatch) {
    // A type named "app.Node" may be a different type object (reloaded
    // module) with a different id: the name decides.
    SnapshotBuilder a = process_builder(1);
    a.type("filler1");
    a.type("filler2");
    at(a, 0x1000, "app.Node", 32, "app");
    SnapshotBuilder b = process_builder(2);
    at(b, 0x1000, "app.Node", 32, "app");
    const Snapshot sa = a.build(), sb = b.build();
    ASSERT_NE(sa.node_type[0], sb.node_type[0]);
    const auto d = diff_snapshots(sa, sb);
    EXPECT_EQ(d.totals.matched, 1u);
    EXPECT_TRUE(d.types.empty());
}

TEST(SnapshotDiff, DuplicateKeysPairUpOnce) {
    // A corrupt snapshot with one address twice: each A node matches at most
    // one B node.
    SnapshotBuilder a = process_builder(1);
    at(a, 0x1000, "int");
    SnapshotBuilder b = process_builder(2);
    at(b, 0x1000, "int");
    at(b, 0x1000, "int");
    const Snapshot sa = a.build(), sb = b.build();
    const auto d = diff_snapshots(sa, sb);
    EXPECT_EQ(d.totals.matched, 1u);
    EXPECT_EQ(d.new_nodes, (std::vector<uint32_t>{1}));
    EXPECT_TRUE(d.freed_nodes.empty());
}

TEST(SnapshotDiff, BadTypeIdsCompareAsQuestionMark) {
    SnapshotBuilder a = process_builder(1);
    at(a, 0x1000, "int");
    SnapshotBuilder b = process_builder(2);
    at(b, 0x1000, "int");
    Snapshot sa = a.build(), sb = b.build();
    sa.node_type[0] = 99;
    const auto d = diff_snapshots(sa, sb);
    EXPECT_EQ(d.totals.matched, 0u);
    EXPECT_NE(find_type(d, "?"), nullptr);
}

TEST(SnapshotDiff, EmptySnapshots) {
    SnapshotBuilder a = process_builder(1), b = process_builder(2);
    const Snapshot sa = a.build(), sb = b.build();
    const auto d = diff_snapshots(sa, sb);
    EXPECT_EQ(d.totals.objects_a, 0u);
    EXPECT_EQ(d.totals.objects_b, 0u);
    EXPECT_TRUE(d.types.empty());
    EXPECT_TRUE(d.is_new.empty());

    SnapshotBuilder c = process_builder(3);
    at(c, 0x1000, "dict", 10);
    const Snapshot sc = c.build();
    const auto grown = diff_snapshots(sb, sc);
    EXPECT_EQ(grown.new_nodes, (std::vector<uint32_t>{0}));
    const auto r = find_survivors(sa, sb, sc);
    EXPECT_EQ(r.allocated_between, 0u);
    EXPECT_TRUE(r.survivors.empty());
}

TEST(SnapshotDiff, RefusesDifferentProcesses) {
    SnapshotBuilder a = process_builder(1, 123);
    SnapshotBuilder b = process_builder(2, 456);
    b.snapshot().header.argv = {"python3", "other.py"};
    const Snapshot sa = a.build(), sb = b.build();
    try {
        diff_snapshots(sa, sb);
        FAIL() << "expected SnapshotMismatchError";
    } catch (const SnapshotMismatchError& e) {
        EXPECT_EQ(e.reason(), SnapshotMismatchError::Reason::DifferentProcesses);
        EXPECT_STREQ(e.what(),
                     "snapshots come from different processes: pid 123 (python3 app.py) vs pid "
                     "456 (python3 other.py)");
    }
    // Same pid, another executable: the pid was reused.
    Snapshot sc = sb;
    sc.header.pid = 123;
    sc.header.executable = "/usr/bin/python3.12";
    EXPECT_THROW(diff_snapshots(sa, sc), SnapshotMismatchError);
    // The caller may insist.
    EXPECT_NO_THROW(diff_snapshots(sa, sb, {.allow_mismatch = true}));
}

TEST(SnapshotDiff, RefusesWrongOrder) {
    SnapshotBuilder a = process_builder(5), b = process_builder(3);
    const Snapshot sa = a.build(), sb = b.build();
    try {
        diff_snapshots(sa, sb);
        FAIL() << "expected SnapshotMismatchError";
    } catch (const SnapshotMismatchError& e) {
        EXPECT_EQ(e.reason(), SnapshotMismatchError::Reason::WrongOrder);
        EXPECT_NE(std::string(e.what()).find("snapshot #5 is given before snapshot #3"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_NO_THROW(diff_snapshots(sb, sa));
    // The same snapshot twice says so (not "#5 is given before #5").
    try {
        diff_snapshots(sa, sa);
        FAIL() << "expected SnapshotMismatchError";
    } catch (const SnapshotMismatchError& e) {
        EXPECT_NE(std::string(e.what()).find("both files are snapshot #5"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("the same snapshot given twice"), std::string::npos) << e.what();
    }

    // Without sequence numbers, times decide.
    Snapshot early = sa, late = sb;
    early.header.sequence = late.header.sequence = 0;
    early.header.time_unix_ns = 1000;
    late.header.time_unix_ns = 2000;
    EXPECT_NO_THROW(diff_snapshots(early, late));
    EXPECT_THROW(diff_snapshots(late, early), SnapshotMismatchError);
    // Three snapshots: 2 and 3 swapped.
    SnapshotBuilder c = process_builder(4);
    const Snapshot sc = c.build();
    EXPECT_THROW(find_survivors(sb, sa, sc), SnapshotMismatchError);
    EXPECT_NO_THROW(find_survivors(sb, sc, sa));
}

TEST(SnapshotDiff, ThreeSnapshotSurvivors) {
    SnapshotBuilder s1 = process_builder(1);
    at(s1, 0x1000, "dict", 100);  // lives throughout: not a survivor
    at(s1, 0x2000, "list", 56);   // freed before 2
    SnapshotBuilder s2 = process_builder(2);
    at(s2, 0x1000, "dict", 100);
    at(s2, 0x3000, "app.Leaky", 40, "app");  // new in 2, alive in 3: survivor
    at(s2, 0x3100, "app.Leaky", 40, "app");  // new in 2, alive in 3: survivor
    at(s2, 0x4000, "app.Temp", 24, "app");   // new in 2, freed by 3
    at(s2, 0x5000, "str", 60);               // new in 2, address reused by a tuple in 3
    at(s2, 0x6000, "bytes", 500);            // new in 2, alive in 3: survivor
    SnapshotBuilder s3 = process_builder(3);
    at(s3, 0x7000, "app.Leaky", 40, "app");  // new in 3: not a survivor
    at(s3, 0x5000, "tuple", 64);
    at(s3, 0x3100, "app.Leaky", 48, "app");  // grew; still the same object
    at(s3, 0x6000, "bytes", 500);
    at(s3, 0x1000, "dict", 100);
    at(s3, 0x3000, "app.Leaky", 40, "app");
    const Snapshot a = s1.build(), b = s2.build(), c = s3.build();
    const auto r = find_survivors(a, b, c);
    EXPECT_EQ(r.allocated_between, 5u);
    EXPECT_EQ(r.freed_again, 2u);
    EXPECT_EQ(r.survivors, (std::vector<uint32_t>{2, 3, 5}));
    EXPECT_EQ(r.is_survivor, (std::vector<uint8_t>{0, 0, 1, 1, 0, 1}));
    EXPECT_EQ(r.survivor_bytes, 48u + 500u + 40u);
    ASSERT_EQ(r.groups.size(), 2u);
    EXPECT_EQ(r.groups[0].type, "bytes");
    EXPECT_EQ(r.groups[0].objects, 1u);
    EXPECT_EQ(r.groups[0].bytes, 500u);
    EXPECT_EQ(r.groups[1].type, "app.Leaky");
    EXPECT_EQ(r.groups[1].objects, 2u);
    EXPECT_EQ(r.groups[1].bytes, 88u);
}

TEST(SnapshotDiff, ManyNodesAgreeWithBruteForce) {
    // Random addresses with collisions in the hash table's home slots; the
    // expected result comes from a std::map keyed by (address, type name).
    SnapshotBuilder a = process_builder(1), b = process_builder(2);
    const char* types[] = {"int", "str", "dict", "app.Node"};
    uint64_t state = 12345;
    const auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return state >> 33;
    };
    for (int i = 0; i < 20000; ++i) at(a, 0x10000 + 16 * (next() % 30000), types[next() % 4]);
    for (int i = 0; i < 20000; ++i) at(b, 0x10000 + 16 * (next() % 30000), types[next() % 4]);
    const Snapshot sa = a.build(), sb = b.build();
    std::map<std::pair<uint64_t, std::string>, int> available;
    for (uint32_t n = 0; n < sa.node_count(); ++n) {
        ++available[{sa.node_address[n],
                     std::string(sa.strings.view(sa.types[sa.node_type[n]].name))}];
    }
    std::vector<uint8_t> expected_new(sb.node_count(), 0);
    uint64_t matched = 0;
    for (uint32_t n = 0; n < sb.node_count(); ++n) {
        int& left = available[{sb.node_address[n],
                               std::string(sb.strings.view(sb.types[sb.node_type[n]].name))}];
        if (left > 0) {
            --left;
            ++matched;
        } else {
            expected_new[n] = 1;
        }
    }
    const auto d = diff_snapshots(sa, sb);
    EXPECT_EQ(d.is_new, expected_new);
    EXPECT_EQ(d.totals.matched, matched);
    EXPECT_EQ(d.freed_nodes.size(), sa.node_count() - matched);
}

}  // namespace
}  // namespace refscope

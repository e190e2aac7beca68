// The .heapsnapshot export: format invariants, the documented mapping
// (docs/heapsnapshot.md), string escaping, and file handling.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "heapsnapshot_fixture.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/root_classes.h"

namespace refscope::testing {
namespace {

namespace fs = std::filesystem;
using exporting::HeapsnapshotError;
using exporting::HeapsnapshotOptions;
using exporting::HeapsnapshotStats;
using exporting::heapsnapshot_object_id;
using format::EdgeKind;

// A fresh directory per test, removed afterwards.
class TempDir {
public:
    TempDir() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ = fs::temp_directory_path() /
                ("refscope-heapsnapshot-" + std::to_string(::getpid()) + "-" + info->name());
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(path_)) {
            names.push_back(entry.path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }
private:
    fs::path path_;
};

std::string export_to_string(const Snapshot& s, const HeapsnapshotOptions& options = {},
                             HeapsnapshotStats* stats = nullptr) {
    const analysis::GraphIndex index(s);
    const analysis::RootClasses roots(index);
    std::ostringstream out;
    const HeapsnapshotStats written = exporting::write_heapsnapshot(index, roots, out, options);
    if (stats) *stats = written;
    return out.str();
}

bool python3_available() { return std::system("python3 -c 'pass' >/dev/null 2>&1") == 0; }

// Python's json module, as a second opinion on "this is valid JSON". The
// script goes through a file: the checks contain quotes of both kinds.
int python_json_check(const std::string& path, const std::string& extra_check = "True") {
    const std::string script = path + ".check.py";
    {
        std::ofstream out(script);
        out << "import json, sys\n"
            << "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
            << "sys.exit(0 if (" << extra_check << ") else 3)\n";
    }
    const std::string command = "python3 '" + script + "' '" + path + "'";
    const int status = std::system(command.c_str());
    fs::remove(script);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

size_t object_index(const ParsedHeapsnapshot& p, uint32_t node) {
    return p.index_of_id(heapsnapshot_object_id(node));
}

// "type name -> node-id" strings for readable comparisons.
std::vector<std::string> describe_edges(const ParsedHeapsnapshot& p, size_t node) {
    std::vector<std::string> out;
    for (const auto& e : p.edges_of(node)) {
        out.push_back(e.type + " " + e.name + " -> " + std::to_string(p.id_of(e.to)));
    }
    return out;
}
std::string edge_text(const char* type, const std::string& name, uint32_t target) {
    return std::string(type) + " " + name + " -> " +
           std::to_string(heapsnapshot_object_id(target));
}

TEST(HeapsnapshotFormat, MetaCountsOffsetsAndIdsAreConsistent) {
    const SmallHeap h = make_small_heap();
    HeapsnapshotStats stats;
    const std::string text = export_to_string(h.snapshot, {}, &stats);
    const ParsedHeapsnapshot p = parse_heapsnapshot(text);
    const JsonValue& meta = p.root["snapshot"]["meta"];

    ASSERT_EQ(p.node_fields, 7u);
    ASSERT_EQ(p.edge_fields, 3u);
    EXPECT_EQ(meta["node_types"].size(), p.node_fields);
    EXPECT_EQ(meta["edge_types"].size(), p.edge_fields);
    EXPECT_EQ(meta["node_fields"][0].text, "type");
    EXPECT_EQ(meta["node_fields"][6].text, "detachedness");
    EXPECT_EQ(meta["edge_fields"][2].text, "to_node");
    EXPECT_EQ(p.root["snapshot"]["trace_function_count"].u64(), 0u);
    for (const char* empty : {"trace_function_infos", "trace_tree", "samples", "locations"}) {
        EXPECT_EQ(p.root[empty].kind, JsonValue::Kind::Array) << empty;
        EXPECT_EQ(p.root[empty].size(), 0u) << empty;
    }

    // Counts: header = arrays = stats; 5 synthetic nodes (root, interpreter,
    // MainThread, extension, unexplained) before the snapshot's nodes.
    const uint64_t node_count = p.root["snapshot"]["node_count"].u64();
    const uint64_t edge_count = p.root["snapshot"]["edge_count"].u64();
    EXPECT_EQ(node_count, h.snapshot.node_count() + 5);
    EXPECT_EQ(p.nodes.size(), node_count * p.node_fields);
    EXPECT_EQ(p.edges.size(), edge_count * p.edge_fields);
    // 4 root→class edges, 5 interpreter records, 1 thread record, 1 unexplained.
    EXPECT_EQ(edge_count, h.snapshot.edge_count() + 4 + 5 + 1 + 1);
    EXPECT_EQ(stats.nodes, node_count);
    EXPECT_EQ(stats.edges, edge_count);
    EXPECT_EQ(stats.strings, p.strings.size());
    EXPECT_EQ(stats.bytes, text.size());
    EXPECT_EQ(stats.synthetic_nodes, 5u);

    uint64_t edge_sum = 0;
    std::set<uint64_t> ids;
    for (size_t n = 0; n < p.node_count(); ++n) {
        EXPECT_LT(p.field(n, 0), p.node_types.size());
        EXPECT_LT(p.field(n, 1), p.strings.size());
        EXPECT_TRUE(ids.insert(p.id_of(n)).second) << "duplicate id " << p.id_of(n);
        edge_sum += p.field(n, 4);
    }
    EXPECT_EQ(edge_sum, edge_count);
    for (size_t e = 0; e < edge_count; ++e) {
        const uint64_t type = p.edges[e * 3];
        const uint64_t name = p.edges[e * 3 + 1];
        const uint64_t to = p.edges[e * 3 + 2];
        ASSERT_LT(type, p.edge_types.size());
        EXPECT_EQ(to % p.node_fields, 0u) << "edge " << e;
        EXPECT_LT(to, p.nodes.size()) << "edge " << e;
        if (p.edge_types[type] != "element") {
            EXPECT_LT(name, p.strings.size());
        }
    }

    // Ids: the root is 1, synthetic nodes even, object n is 2n + 3.
    EXPECT_EQ(p.id_of(0), 1u);
    EXPECT_EQ(p.type_of(0), "synthetic");
    for (size_t n = 1; n < 5; ++n) EXPECT_EQ(p.id_of(n), 2 * n);
    for (uint32_t n = 0; n < h.snapshot.node_count(); ++n) {
        EXPECT_EQ(p.id_of(5 + n), 2ull * n + 3);
        EXPECT_EQ(p.field(5 + n, 3), h.snapshot.node_size[n]);
        EXPECT_EQ(p.field(5 + n, 4), 0u + [&] {
            uint32_t degree = 0;
            for (uint32_t src : h.snapshot.edge_source) degree += src == n;
            return degree;
        }());
    }

    // Every text is stored once.
    EXPECT_EQ(std::set<std::string>(p.strings.begin(), p.strings.end()).size(), p.strings.size());
}

// The hand-computed retained sizes the memlab check relies on, confirmed by
// refscope's own DominatorTree (same retaining edges, same roots), so that a
// disagreement with memlab points at the export, not at the arithmetic.
TEST(HeapsnapshotFixture, HandComputedRetainedSizesMatchTheDominatorTree) {
    const SmallHeap h = make_small_heap();
    const analysis::GraphIndex index(h.snapshot);
    const analysis::RootClasses roots(index);
    const analysis::DominatorTree tree(index, roots);
    for (const ExpectedRetained& expected : expected_retained_sizes(h)) {
        EXPECT_EQ(tree.retained_size(expected.node), expected.bytes) << "node " << expected.node;
    }
    EXPECT_EQ(tree.idom(h.leaked), analysis::kUnexplainedRoot);
    EXPECT_EQ(tree.idom(h.cyc_b), h.cyc_a);
}

TEST(HeapsnapshotFormat, SyntheticRootsHoldTheRootedObjects) {
    const SmallHeap h = make_small_heap();
    const ParsedHeapsnapshot p = parse_heapsnapshot(export_to_string(h.snapshot));
    EXPECT_EQ(p.name_of(0), "(refscope roots)");
    const std::vector<std::string> classes = {"(interpreter)", "(thread stack: MainThread)",
                                              "(extension)", "(unexplained surplus)"};
    ASSERT_EQ(p.edges_of(0).size(), classes.size());
    for (size_t i = 0; i < classes.size(); ++i) {
        const auto e = p.edges_of(0)[i];
        EXPECT_EQ(e.type, "element");
        EXPECT_EQ(e.name, std::to_string(i));
        EXPECT_EQ(e.to, i + 1);
        EXPECT_EQ(p.name_of(i + 1), classes[i]);
        EXPECT_EQ(p.type_of(i + 1), "synthetic");
        EXPECT_EQ(p.field(i + 1, 3), 0u);
    }
    EXPECT_EQ(describe_edges(p, 1),
              (std::vector<std::string>{edge_text("property", "sys.modules['app']", h.module),
                                        edge_text("property", "interned", h.name_next),
                                        edge_text("property", "interned", h.name_child),
                                        edge_text("property", "interned", h.name_peer),
                                        edge_text("property", "interned", h.name_items)}));
    EXPECT_EQ(describe_edges(p, 2),
              (std::vector<std::string>{
                  edge_text("property", "frame app.py:12 in main, local t", h.target)}));
    EXPECT_TRUE(p.edges_of(3).empty());
    EXPECT_EQ(describe_edges(p, 4),
              (std::vector<std::string>{edge_text("property", "2 unexplained", h.leaked)}));
}

TEST(HeapsnapshotFormat, PythonObjectsBecomeTheDocumentedNodeTypes) {
    const SmallHeap h = make_small_heap();
    const ParsedHeapsnapshot p = parse_heapsnapshot(export_to_string(h.snapshot));
    const auto check = [&](uint32_t node, const char* type, const char* name) {
        const size_t i = object_index(p, node);
        EXPECT_EQ(p.type_of(i), type) << name;
        EXPECT_EQ(p.name_of(i), name);
    };
    check(h.module, "object", "module");
    check(h.dict, "object", "dict");
    check(h.node1, "object", "app.Node");
    check(h.weakref, "object", "weakref.ReferenceType");
    check(h.key_head, "string", "head");
    check(h.number, "number", "42");
    check(h.list, "array", "list");

    // The alternative: one Summary row per Python type.
    HeapsnapshotOptions options;
    options.python_types_only = true;
    const ParsedHeapsnapshot q = parse_heapsnapshot(export_to_string(h.snapshot, options));
    EXPECT_EQ(q.type_of(object_index(q, h.key_head)), "object");
    EXPECT_EQ(q.name_of(object_index(q, h.key_head)), "str");
    EXPECT_EQ(q.name_of(object_index(q, h.number)), "int");
    EXPECT_EQ(q.type_of(object_index(q, h.list)), "object");
}

TEST(HeapsnapshotFormat, FunctionsCodeAndNativeNodes) {
    SnapshotBuilder b;
    const uint32_t f = b.node("function", 1, "app.handler", 136);
    const uint32_t code = b.node("code", 1, "handler", 200, 0);
    const uint32_t bare = b.node("function", 1, {}, 136);
    const uint32_t native = b.node("Engine", 1, {}, 4096, format::kNodeNative, "cpp");
    const Snapshot s = b.build();
    const ParsedHeapsnapshot p = parse_heapsnapshot(export_to_string(s));
    EXPECT_EQ(p.type_of(object_index(p, f)), "closure");
    EXPECT_EQ(p.name_of(object_index(p, f)), "app.handler");
    EXPECT_EQ(p.type_of(object_index(p, code)), "code");
    EXPECT_EQ(p.name_of(object_index(p, code)), "handler");
    EXPECT_EQ(p.name_of(object_index(p, bare)), "function");  // no preview: the type name
    EXPECT_EQ(p.type_of(object_index(p, native)), "native");
    EXPECT_EQ(p.name_of(object_index(p, native)), "Engine");
}

TEST(HeapsnapshotFormat, ReferencesBecomeTheDocumentedEdgeTypes) {
    const SmallHeap h = make_small_heap();
    const ParsedHeapsnapshot p = parse_heapsnapshot(export_to_string(h.snapshot));
    const auto edges = [&](uint32_t node) { return describe_edges(p, object_index(p, node)); };
    EXPECT_EQ(edges(h.module),
              (std::vector<std::string>{edge_text("property", "__dict__", h.dict)}));
    EXPECT_EQ(edges(h.dict), (std::vector<std::string>{
                                 edge_text("internal", "(key)", h.key_head),
                                 edge_text("property", "head", h.node1),
                                 edge_text("internal", "(key)", h.key_a),
                                 edge_text("property", "a", h.holder_a),
                                 edge_text("internal", "(key)", h.key_b),
                                 edge_text("property", "b", h.holder_b),
                                 edge_text("internal", "(key)", h.key_cyc),
                                 edge_text("property", "cyc", h.cyc_a),
                                 edge_text("internal", "(key)", h.key_ref),
                                 edge_text("property", "ref", h.weakref),
                             }));
    EXPECT_EQ(edges(h.node1), (std::vector<std::string>{edge_text("property", "next", h.node2)}));
    // Not owned: kept for reading, but weak so that it retains nothing.
    EXPECT_EQ(edges(h.node3),
              (std::vector<std::string>{edge_text("weak", "<ref #0> [not owned]", h.dict)}));
    EXPECT_EQ(edges(h.weakref), (std::vector<std::string>{edge_text("weak", "(weak)", h.target)}));
    EXPECT_EQ(edges(h.leaked),
              (std::vector<std::string>{edge_text("property", "items", h.list),
                                        edge_text("property", "cpp_member [GC-invisible]",
                                                  h.inner)}));
    EXPECT_EQ(edges(h.list), (std::vector<std::string>{edge_text("element", "0", h.number)}));
}

TEST(HeapsnapshotFormat, OtherEdgeKindsAndBadLabels) {
    SnapshotBuilder b;
    const uint32_t set = b.node("set", 1, "len 2", 216);
    const uint32_t x = b.node("app.X", 1);
    const uint32_t y = b.node("app.X", 1);
    const uint32_t frame = b.node("frame", 1, {}, 400);
    const uint32_t dict = b.node("dict", 1, {}, 200);
    const uint32_t key = b.node("int", 1, "7", 28, 0);
    b.edge(set, x, EdgeKind::SetMember);
    b.edge(set, y, EdgeKind::SetMember);
    b.edge(frame, x, EdgeKind::Local, b.string_id("self"));
    b.edge(frame, y, EdgeKind::Slot, 999999);       // bad string id
    b.edge(frame, x, EdgeKind::Attribute, 999999);  // bad node id
    b.edge(frame, y, EdgeKind::Native, 0);
    b.edge(frame, x, EdgeKind::Reference, 3);
    b.edge(frame, y, EdgeKind::Index, 5, format::kEdgeOwned);  // GC-invisible, tracked target
    b.edge(dict, y, EdgeKind::DictValue, key);                 // non-str key
    b.edge(dict, key, EdgeKind::DictKey, 0, format::kEdgeOwned);
    const ParsedHeapsnapshot p = parse_heapsnapshot(export_to_string(b.build()));
    EXPECT_EQ(describe_edges(p, object_index(p, set)),
              (std::vector<std::string>{edge_text("element", "0", x),
                                        edge_text("element", "1", y)}));
    EXPECT_EQ(describe_edges(p, object_index(p, frame)),
              (std::vector<std::string>{edge_text("property", "self", x),
                                        edge_text("property", "?", y),
                                        edge_text("property", "?", x),
                                        edge_text("property", "<native>", y),
                                        edge_text("internal", "<ref #3>", x),
                                        edge_text("property", "[5] [GC-invisible]", y)}));
    EXPECT_EQ(describe_edges(p, object_index(p, dict)),
              (std::vector<std::string>{edge_text("property", "[7]", y),
                                        edge_text("internal", "(key)", key)}));
}

TEST(HeapsnapshotFormat, EdgesNotGroupedBySourceStillComeOutPerNode) {
    Snapshot s;
    const uint32_t type = 0;
    s.types.push_back({s.strings.add("app.T"), s.strings.add("app"), 0});
    for (int i = 0; i < 3; ++i) s.add_node(0x1000 + 0x40 * i, type, 32, 1, 0, 0);
    s.add_edge(2, 0, EdgeKind::Index, format::kEdgeOwned | format::kEdgeGcVisible, 0);
    s.add_edge(0, 1, EdgeKind::Index, format::kEdgeOwned | format::kEdgeGcVisible, 0);
    s.add_edge(2, 1, EdgeKind::Index, format::kEdgeOwned | format::kEdgeGcVisible, 1);
    const ParsedHeapsnapshot p = parse_heapsnapshot(export_to_string(s));
    EXPECT_EQ(describe_edges(p, object_index(p, 0)),
              (std::vector<std::string>{edge_text("element", "0", 1)}));
    EXPECT_TRUE(describe_edges(p, object_index(p, 1)).empty());
    EXPECT_EQ(describe_edges(p, object_index(p, 2)),
              (std::vector<std::string>{edge_text("element", "0", 0),
                                        edge_text("element", "1", 1)}));
}

TEST(HeapsnapshotFormat, StringsAreEscapedToPureAscii) {
    SnapshotBuilder b;
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"quote\"back\\slash/", "quote\"back\\slash/"},
        {std::string("ctl\x01\x1f\n\t\r\b\f\x7f", 11), std::string("ctl\x01\x1f\n\t\r\b\f\x7f", 11)},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
        {"bad\xff", "bad\xef\xbf\xbd"},
        {"cut\xe2\x82", "cut\xef\xbf\xbd\xef\xbf\xbd"},
        {"sur\xed\xa0\x80", "sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},  // encoded surrogate
        {std::string("nul\0in", 6), std::string("nul\0in", 6)},
    };
    std::vector<uint32_t> nodes;
    for (const auto& c : cases) nodes.push_back(b.str(c.first));
    const std::string text = export_to_string(b.build());
    for (const char c : text) ASSERT_LT(static_cast<unsigned char>(c), 0x80u);
    EXPECT_NE(text.find("\"ctl\\u0001\\u001f\\n\\t\\r\\b\\f\x7f\""), std::string::npos);
    EXPECT_NE(text.find("\\ud83d\\ude00"), std::string::npos);
    EXPECT_NE(text.find("\"bad\\ufffd\""), std::string::npos);
    EXPECT_NE(text.find("\"nul\\u0000in\""), std::string::npos);
    const ParsedHeapsnapshot p = parse_heapsnapshot(text);
    for (size_t i = 0; i < cases.size(); ++i) {
        EXPECT_EQ(p.name_of(object_index(p, nodes[i])), cases[i].second) << i;
    }
}

TEST(HeapsnapshotFormat, PythonJsonAcceptsTheExport) {
    if (!python3_available()) GTEST_SKIP() << "python3 not found";
    TempDir dir;
    const SmallHeap h = make_small_heap();
    const std::string path = dir.file("small.heapsnapshot");
    exporting::write_heapsnapshot_file(h.snapshot, path);
    EXPECT_EQ(python_json_check(path, "d['snapshot']['node_count'] * 7 == len(d['nodes']) and "
                                      "'(unexplained surplus)' in d['strings']"),
              0);
    // And the escaping cases, decoded by Python.
    SnapshotBuilder b;
    b.str("\xf0\x9f\x98\x80\"\x01\xff");
    exporting::write_heapsnapshot_file(b.build(), path);
    EXPECT_EQ(python_json_check(path, "'\\U0001F600\"\\x01\\ufffd' in d['strings']"), 0);
}

TEST(HeapsnapshotFormat, EmptySnapshot) {
    const Snapshot empty;
    HeapsnapshotStats stats;
    const ParsedHeapsnapshot p = parse_heapsnapshot(export_to_string(empty, {}, &stats));
    EXPECT_EQ(p.node_count(), 4u);  // root, interpreter, extension, unexplained
    EXPECT_EQ(p.root["snapshot"]["edge_count"].u64(), 3u);
    EXPECT_EQ(stats.nodes, 4u);
    EXPECT_EQ(p.name_of(3), "(unexplained surplus)");
}

TEST(HeapsnapshotFile, AllOutputsWriteTheSameBytes) {
    TempDir dir;
    const SmallHeap h = make_small_heap();
    const std::string expected = export_to_string(h.snapshot);
    const std::string path = dir.file("a.heapsnapshot");
    const HeapsnapshotStats stats = exporting::write_heapsnapshot_file(h.snapshot, path);
    EXPECT_EQ(read_text_file(path), expected);
    EXPECT_EQ(stats.bytes, expected.size());

    const std::string path2 = dir.file("b.heapsnapshot");
    std::FILE* file = std::fopen(path2.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    const analysis::GraphIndex index(h.snapshot);
    const analysis::RootClasses roots(index);
    exporting::write_heapsnapshot(index, roots, file);
    std::fclose(file);
    EXPECT_EQ(read_text_file(path2), expected);
}

TEST(HeapsnapshotFile, OverwritesAtomicallyAndLeavesNoTemporaryFile) {
    TempDir dir;
    const std::string path = dir.file("out.heapsnapshot");
    { std::ofstream(path) << "old contents"; }
    exporting::write_heapsnapshot_file(make_small_heap().snapshot, path);
    EXPECT_EQ(read_text_file(path).rfind("{\"snapshot\":", 0), 0u);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.heapsnapshot"});
}

TEST(HeapsnapshotFile, UnwritablePathsThrowAndLeaveNothing) {
    TempDir dir;
    const Snapshot s = make_small_heap().snapshot;
    // The directory does not exist.
    try {
        exporting::write_heapsnapshot_file(s, dir.file("missing/out.heapsnapshot"));
        FAIL() << "no error";
    } catch (const HeapsnapshotError& e) {
        EXPECT_NE(std::string(e.what()).find("missing/out.heapsnapshot"), std::string::npos)
            << e.what();
    }
    // The "directory" is a file (fails even for root, unlike permission bits).
    { std::ofstream(dir.file("plain")) << "x"; }
    EXPECT_THROW(exporting::write_heapsnapshot_file(s, dir.file("plain/out.heapsnapshot")),
                 HeapsnapshotError);
    // The target is a directory: the rename fails after the whole file was
    // written; the temporary file must be gone and the directory intact.
    fs::create_directory(dir.file("target"));
    EXPECT_THROW(exporting::write_heapsnapshot_file(s, dir.file("target")), HeapsnapshotError);
    EXPECT_TRUE(fs::is_directory(dir.file("target")));
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"plain", "target"}));
}

TEST(HeapsnapshotFile, FailingStreamsThrow) {
    const SmallHeap h = make_small_heap();
    const analysis::GraphIndex index(h.snapshot);
    const analysis::RootClasses roots(index);
    std::ostringstream broken;
    broken.setstate(std::ios::badbit);
    EXPECT_THROW(exporting::write_heapsnapshot(index, roots, broken), HeapsnapshotError);
    std::FILE* full = std::fopen("/dev/full", "wb");
    if (full == nullptr) GTEST_SKIP() << "/dev/full not available";
    EXPECT_THROW(exporting::write_heapsnapshot(index, roots, full), HeapsnapshotError);
    std::fclose(full);
}

}  // namespace
}  // namespace refscope::testing

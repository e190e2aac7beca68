// An independent reading of the export: memlab (Meta's V8 heap snapshot
// analyser, installed from npm into tests/export/js) parses the files
// through js/memlab_dump.js, and its counts, names, edges, dominators and
// retained sizes must agree with the snapshot, with sizes computed by hand,
// and with refscope's own DominatorTree.
//
// Skipped, not failed, when node or the npm packages are missing; install
// them with:
//   npm ci --prefix tests/export/js --ignore-scripts --no-audit --no-fund
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>

#include "heapsnapshot_fixture.h"
#include "refscope/analysis/dominator_tree.h"

#ifndef REFSCOPE_NODE
#define REFSCOPE_NODE "node"
#endif

namespace refscope::testing {
namespace {

namespace fs = std::filesystem;
using exporting::heapsnapshot_object_id;
using format::EdgeKind;

const std::string kJsDir = REFSCOPE_MEMLAB_JS_DIR;
const char* const kInstall =
    "npm ci --prefix tests/export/js --ignore-scripts --no-audit --no-fund";

std::string memlab_unavailable() {
    const std::string node = REFSCOPE_NODE;
    if (node.empty() || node.ends_with("NOTFOUND")) return "node was not found at configure time";
    if (::access(node.c_str(), X_OK) != 0) return node + " is not executable";
    if (!fs::exists(kJsDir + "/node_modules/@memlab/core/package.json")) {
        return "memlab is not installed in " + kJsDir + " (run: " + kInstall + ")";
    }
    return {};
}

#define SKIP_WITHOUT_MEMLAB()                                                       \
    do {                                                                            \
        const std::string why = memlab_unavailable();                               \
        if (!why.empty()) GTEST_SKIP() << "memlab check skipped: " << why;          \
    } while (0)

class TempFile {
public:
    explicit TempFile(const std::string& stem) {
        path_ = (fs::temp_directory_path() /
                 (stem + "-" + std::to_string(::getpid()) + ".heapsnapshot"))
                    .string();
    }
    ~TempFile() {
        std::error_code ignored;
        fs::remove(path_, ignored);
    }
    const std::string& path() const { return path_; }
private:
    std::string path_;
};

// memlab_dump.js's JSON for `path`.
JsonValue memlab_dump(const std::string& path) {
    const std::string command = std::string(REFSCOPE_NODE) + " '" + kJsDir +
                                "/memlab_dump.js' '" + path + "' --max-nodes 100000";
    std::FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
    std::string text;
    char buffer[65536];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, n);
    const int status = ::pclose(pipe);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        throw std::runtime_error(command + " failed; output: " + text.substr(0, 2000));
    }
    return parse_json(text);
}

struct MemlabNode {
    std::string name, type;
    uint64_t self_size = 0, retained_size = 0, dominator_id = 0;
    std::vector<std::string> edges;  // "type name -> id"
};

std::map<uint64_t, MemlabNode> memlab_nodes(const JsonValue& dump) {
    std::map<uint64_t, MemlabNode> nodes;
    for (const JsonValue& n : dump["nodes"].items) {
        MemlabNode m;
        m.name = n["name"].text;
        m.type = n["type"].text;
        m.self_size = n["self_size"].u64();
        m.retained_size = n["retained_size"].u64();
        m.dominator_id = n["dominator_id"].u64();
        for (const JsonValue& e : n["edges"].items) {
            const std::string name = e[1].kind == JsonValue::Kind::String
                                         ? e[1].text
                                         : std::to_string(e[1].u64());
            m.edges.push_back(e[0].text + " " + name + " -> " + std::to_string(e[2].u64()));
        }
        nodes.emplace(n["id"].u64(), std::move(m));
    }
    return nodes;
}

// memlab must read exactly what the file holds (as taken apart by the test's
// own reader), node by node and edge by edge.
void expect_memlab_reads_the_file(const JsonValue& dump, const ParsedHeapsnapshot& p) {
    ASSERT_EQ(dump["node_count"].u64(), p.node_count());
    ASSERT_EQ(dump["edge_count"].u64(), p.edges.size() / p.edge_fields);
    EXPECT_EQ(dump["edges_walked"].u64(), p.edges.size() / p.edge_fields);
    const auto nodes = memlab_nodes(dump);
    ASSERT_EQ(nodes.size(), p.node_count());
    std::map<std::string, uint64_t> type_counts;
    for (size_t i = 0; i < p.node_count(); ++i) {
        ++type_counts[p.type_of(i)];
        const auto found = nodes.find(p.id_of(i));
        ASSERT_NE(found, nodes.end()) << "memlab lost node id " << p.id_of(i);
        const MemlabNode& m = found->second;
        EXPECT_EQ(m.name, p.name_of(i));
        EXPECT_EQ(m.type, p.type_of(i));
        EXPECT_EQ(m.self_size, p.field(i, 3));
        std::vector<std::string> expected;
        for (const auto& e : p.edges_of(i)) {
            expected.push_back(e.type + " " + e.name + " -> " + std::to_string(p.id_of(e.to)));
        }
        EXPECT_EQ(m.edges, expected) << "node id " << p.id_of(i);
    }
    for (const auto& [type, count] : type_counts) {
        EXPECT_EQ(dump["type_counts"][type].u64(), count) << type;
    }
}

TEST(HeapsnapshotMemlab, SmallHeapReadsBackWithHandComputedRetainedSizes) {
    SKIP_WITHOUT_MEMLAB();
    const SmallHeap h = make_small_heap();
    TempFile file("refscope-memlab-small");
    exporting::write_heapsnapshot_file(h.snapshot, file.path());
    const ParsedHeapsnapshot p = parse_heapsnapshot(read_text_file(file.path()));
    const JsonValue dump = memlab_dump(file.path());
    expect_memlab_reads_the_file(dump, p);

    const auto nodes = memlab_nodes(dump);
    const auto node = [&](uint32_t n) { return nodes.at(heapsnapshot_object_id(n)); };
    for (const ExpectedRetained& expected : expected_retained_sizes(h)) {
        EXPECT_EQ(node(expected.node).retained_size, expected.bytes)
            << node(expected.node).name << " (node " << expected.node << ")";
    }
    // Dominators: ids 2, 4, 8 are (interpreter), (thread stack: MainThread)
    // and (unexplained surplus).
    EXPECT_EQ(node(h.shared).dominator_id, heapsnapshot_object_id(h.dict));
    EXPECT_EQ(node(h.cyc_b).dominator_id, heapsnapshot_object_id(h.cyc_a));
    EXPECT_EQ(node(h.node3).dominator_id, heapsnapshot_object_id(h.node2));
    EXPECT_EQ(node(h.inner).dominator_id, heapsnapshot_object_id(h.leaked));
    EXPECT_EQ(node(h.module).dominator_id, 2u);
    EXPECT_EQ(node(h.target).dominator_id, 4u);  // not the weakref
    EXPECT_EQ(node(h.leaked).dominator_id, 8u);
    EXPECT_EQ(nodes.at(8).name, "(unexplained surplus)");
    EXPECT_EQ(nodes.at(8).retained_size, 874u);
    uint64_t total = 0;  // everything is reachable: the root retains it all
    for (const uint64_t size : h.snapshot.node_size) total += size;
    EXPECT_EQ(nodes.at(1).retained_size, total);
}

// A random heap with every edge kind and flag mix, roots of every class,
// unexplained surplus and garbage.
Snapshot make_random_heap(uint32_t node_count, uint32_t seed) {
    std::mt19937 random(seed);
    const auto below = [&](uint32_t n) { return static_cast<uint32_t>(random() % n); };
    SnapshotBuilder b;
    const std::vector<std::string> types = {"app.A", "app.B", "app.C", "dict", "list",
                                            "str", "int", "function"};
    std::vector<uint32_t> strs;
    std::vector<int64_t> refcount(node_count, 0);
    for (uint32_t n = 0; n < node_count; ++n) {
        const std::string& type = types[below(types.size())];
        const uint64_t size = 16 + below(1000);
        if (type == "str") {
            strs.push_back(b.str("s" + std::to_string(n), 0));
        } else {
            const bool native = below(50) == 0;
            b.node(type, 0, type == "int" ? std::to_string(n) : "", size,
                   native ? format::kNodeNative : format::kNodeGcTracked, "app");
        }
    }
    const uint32_t field = b.string_id("field");
    for (uint32_t n = 0; n < node_count; ++n) {
        const uint32_t degree = below(5);
        for (uint32_t k = 0; k < degree; ++k) {
            const uint32_t target = below(node_count);
            const uint32_t pick = below(10);
            uint8_t flags = SnapshotBuilder::kOwned;
            EdgeKind kind = EdgeKind::Attribute;
            uint32_t label = strs.empty() ? 0 : strs[below(strs.size())];
            switch (pick) {
                case 0: kind = EdgeKind::Index; label = k; break;
                case 1: kind = EdgeKind::DictValue; break;
                case 2: kind = EdgeKind::SetMember; label = 0; break;
                case 3: kind = EdgeKind::Weak; flags = 0; label = 0; break;
                case 4: kind = EdgeKind::Reference; flags = 0; label = k; break;  // not owned
                case 5: kind = EdgeKind::Native; flags = format::kEdgeOwned; label = field; break;
                case 6: kind = EdgeKind::Field; label = field; break;
                default: break;
            }
            b.edge(n, target, kind, label, flags);
            if (flags & format::kEdgeOwned) ++refcount[target];
        }
    }
    const uint32_t threads[2] = {b.thread("MainThread", 1, true), b.thread("worker", 2, false)};
    for (uint32_t n = 0; n < node_count; ++n) {
        const uint32_t pick = below(200);
        if (pick < 4) {
            b.root(n, format::RootKind::Interpreter, "global " + std::to_string(n));
            ++refcount[n];
        } else if (pick < 6) {
            b.root(n, format::RootKind::ThreadStack, "local", 1, threads[pick - 4]);
            ++refcount[n];
        } else if (pick < 7) {
            b.root(n, format::RootKind::Extension, "", 1);
            ++refcount[n];
        } else if (pick < 9) {
            refcount[n] += 1 + below(3);  // unexplained surplus
        }
    }
    Snapshot s = b.build();
    for (uint32_t n = 0; n < node_count; ++n) s.node_refcount[n] = refcount[n];
    return s;
}

TEST(HeapsnapshotMemlab, RandomHeapAgreesWithTheFileAndTheDominatorTree) {
    SKIP_WITHOUT_MEMLAB();
    const Snapshot s = make_random_heap(3000, 20261122);
    const analysis::GraphIndex index(s);
    const analysis::RootClasses roots(index);
    TempFile file("refscope-memlab-random");
    exporting::write_heapsnapshot_file(index, roots, file.path());
    const ParsedHeapsnapshot p = parse_heapsnapshot(read_text_file(file.path()));
    const JsonValue dump = memlab_dump(file.path());
    expect_memlab_reads_the_file(dump, p);

    // Every snapshot edge is there, to the right object, in order.
    const auto nodes = memlab_nodes(dump);
    for (uint32_t n = 0; n < s.node_count(); ++n) {
        const MemlabNode& m = nodes.at(heapsnapshot_object_id(n));
        ASSERT_EQ(m.edges.size(), index.out_degree(n));
        size_t k = 0;
        for (const uint32_t e : index.out_edges(n)) {
            const std::string to = " -> " + std::to_string(heapsnapshot_object_id(s.edge_target[e]));
            EXPECT_TRUE(m.edges[k].ends_with(to)) << m.edges[k] << " vs" << to;
            ++k;
        }
    }

    // refscope's DominatorTree (super-root → explained roots, plus the
    // "unexplained holders" vertex) against memlab's Lengauer-Tarjan over the
    // export (root → one synthetic node per root class). Retained sizes of
    // reachable objects must be equal; a dominator that is a virtual vertex
    // in refscope is a synthetic node in the export: the unexplained-surplus
    // node for kUnexplainedRoot, another synthetic node for kSuperRoot.
    const analysis::DominatorTree tree(index, roots);
    const uint64_t unexplained_id = 2ull * (p.node_count() - s.node_count() - 1);
    ASSERT_EQ(nodes.at(unexplained_id).name, "(unexplained surplus)");
    uint32_t compared = 0;
    for (uint32_t n = 0; n < s.node_count(); ++n) {
        if (!tree.reachable(n)) continue;
        ++compared;
        const MemlabNode& m = nodes.at(heapsnapshot_object_id(n));
        EXPECT_EQ(m.retained_size, tree.retained_size(n)) << "node " << n;
        const uint32_t idom = tree.idom(n);
        if (idom == analysis::kUnexplainedRoot) {
            EXPECT_EQ(m.dominator_id, unexplained_id) << "node " << n;
        } else if (idom == analysis::kSuperRoot) {
            // Synthetic ids are 1 and even numbers; objects' are odd and >= 3.
            EXPECT_TRUE((m.dominator_id == 1 || m.dominator_id % 2 == 0) &&
                        m.dominator_id != unexplained_id)
                << "node " << n << " memlab dominator " << m.dominator_id;
        } else {
            EXPECT_EQ(m.dominator_id, heapsnapshot_object_id(idom)) << "node " << n;
        }
    }
    EXPECT_GT(compared, s.node_count() / 4);  // the heap is not all garbage
}

}  // namespace
}  // namespace refscope::testing

#include "session_fixtures.h"

#include <exception>

#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "refscope/format/snapshot_io.h"
#include "snapshot_builder.h"
#include "test_support.h"

namespace refscope::testing {

Snapshot make_registry_snapshot(uint32_t sessions, uint64_t sequence, int64_t pid,
                                const std::string& executable) {
    SnapshotBuilder b;
    const uint32_t module = b.node("module", 1, "app", 64);
    const uint32_t globals = b.node("dict", 1, {}, 640);
    const uint32_t name = b.str("registry");
    const uint32_t registry = b.node("dict", 1, {}, 4096);
    const uint32_t token_name = b.str("token");  // the attribute name, interned
    b.root(module, format::RootKind::Interpreter, "sys.modules['app']");
    b.edge(module, globals, format::EdgeKind::Field, b.string_id("__dict__"));
    b.dict_item(globals, name, registry);
    // The interned-string table holds the attribute name.
    b.root(token_name, format::RootKind::Interpreter, "interned strings");
    for (uint32_t i = 0; i < sessions; ++i) {
        const uint32_t key = b.str("user-" + std::to_string(i));
        const uint32_t session = b.node("app.Session", 1, {}, 56, format::kNodeGcTracked, "app");
        const uint32_t token = b.str("token-" + std::to_string(i * 7919));
        b.dict_item(registry, key, session);
        b.edge(session, token, format::EdgeKind::Attribute, token_name);
    }
    Snapshot s = b.build();
    s.header.pid = pid;
    s.header.executable = executable;
    s.header.argv = {"app.py"};
    s.header.sequence = sequence;
    s.header.time_unix_ns = 1'700'000'000'000'000'000 + static_cast<int64_t>(sequence) * 1'000'000'000;
    s.header.label = "after " + std::to_string(sessions) + " logins";
    return s;
}

bool write_synthetic_heap(const QString& path, size_t nodes, uint64_t seed) {
    try {
        format::write_snapshot_file(make_synthetic_heap(nodes, seed), path.toStdString());
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

std::map<std::string, std::pair<uint64_t, uint64_t>> tally_types(const Snapshot& snapshot) {
    std::map<std::string, std::pair<uint64_t, uint64_t>> result;
    for (uint32_t n = 0; n < snapshot.node_count(); ++n) {
        auto& [objects, bytes] = result[std::string(analysis::type_name(snapshot, n))];
        ++objects;
        bytes += snapshot.node_size[n];
    }
    return result;
}

}  // namespace refscope::testing

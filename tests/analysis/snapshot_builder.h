// Builds small snapshots in memory for tests: types by name, nodes with
// readable defaults, edges in any order (sorted by source on build(), as the
// Snapshot contract requires), roots with text labels.
#pragma once

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/snapshot.h"

namespace refscope::testing {

class SnapshotBuilder {
public:
    static constexpr uint8_t kOwned = format::kEdgeOwned | format::kEdgeGcVisible;

    uint32_t type(const std::string& name, const std::string& module = "builtins") {
        const auto found = types_.find(name);
        if (found != types_.end()) return found->second;
        TypeInfo info;
        info.name = snapshot_.strings.add(name);
        info.module = snapshot_.strings.add(module);
        snapshot_.types.push_back(info);
        return types_[name] = static_cast<uint32_t>(snapshot_.types.size() - 1);
    }

    // A node of type `type_name` (created in `module` when new). Addresses
    // are 0x7f0000001000 + 0x40 * id, so tests can predict them.
    uint32_t node(const std::string& type_name, int64_t refcount = 1,
                  std::string_view preview = {}, uint64_t size = 32,
                  uint8_t flags = format::kNodeGcTracked, const std::string& module = "builtins") {
        const uint32_t t = type(type_name, module);
        const uint32_t p = preview.empty() ? 0 : snapshot_.strings.add(preview);
        return snapshot_.add_node(address_of(static_cast<uint32_t>(snapshot_.node_count())), t,
                                  size, refcount, flags, p);
    }
    uint32_t str(std::string_view text, int64_t refcount = 1) {
        const uint32_t t = type("str");
        return snapshot_.add_node(address_of(static_cast<uint32_t>(snapshot_.node_count())), t,
                                  49 + text.size(), refcount, 0, snapshot_.strings.add(text));
    }

    void edge(uint32_t source, uint32_t target, format::EdgeKind kind = format::EdgeKind::Reference,
              uint32_t label = 0, uint8_t flags = kOwned) {
        edges_.push_back({source, target, static_cast<uint8_t>(kind), flags, label});
    }
    // A dict entry: the value edge (labelled with the key node) and the key edge.
    void dict_item(uint32_t dict, uint32_t key, uint32_t value) {
        edge(dict, key, format::EdgeKind::DictKey);
        edge(dict, value, format::EdgeKind::DictValue, key);
    }
    uint32_t string_id(std::string_view text) { return snapshot_.strings.add(text); }

    void root(uint32_t node, format::RootKind kind, std::string_view label = {}, uint32_t count = 1,
              uint32_t thread = kNoNode) {
        RootRef r;
        r.node = node;
        r.kind = kind;
        r.label = label.empty() ? 0 : snapshot_.strings.add(label);
        r.count = count;
        r.thread = thread;
        snapshot_.roots.push_back(r);
    }
    uint32_t thread(std::string_view name, uint64_t ident, bool is_main) {
        snapshot_.threads.push_back({ident, snapshot_.strings.add(name), is_main});
        return static_cast<uint32_t>(snapshot_.threads.size() - 1);
    }

    Snapshot& snapshot() { return snapshot_; }

    Snapshot build() {
        std::stable_sort(edges_.begin(), edges_.end(),
                         [](const Edge& a, const Edge& b) { return a.source < b.source; });
        for (const Edge& e : edges_) {
            snapshot_.add_edge(e.source, e.target, static_cast<format::EdgeKind>(e.kind), e.flags,
                               e.label);
        }
        edges_.clear();
        return std::move(snapshot_);
    }

    static uint64_t address_of(uint32_t node) { return 0x7f0000001000ull + 0x40ull * node; }

private:
    struct Edge {
        uint32_t source, target;
        uint8_t kind, flags;
        uint32_t label;
    };
    Snapshot snapshot_;
    std::map<std::string, uint32_t> types_;
    std::vector<Edge> edges_;
};

}  // namespace refscope::testing

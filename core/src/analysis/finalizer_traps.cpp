// Finalizer traps (finalizer_traps.h): weak references with callbacks whose
// own state holds their referent.
#include "refscope/analysis/finalizer_traps.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "refscope/analysis/descriptions.h"

namespace refscope::analysis {
namespace {

// A weak reference W to R with callback C.
struct WeakCallback {
    uint32_t weakref;
    uint32_t callback;
    uint32_t referent;
};

// The probe writes a weakref's callback as its "__callback__" field
// (probe/src/edge_labels_runtime.cpp); a weakref without one waits for
// nothing.
uint32_t callback_of(const GraphIndex& index, uint32_t weakref) {
    const Snapshot& s = index.snapshot();
    for (const uint32_t e : index.out_edges(weakref)) {
        if (index.kind(e) == format::EdgeKind::Field && index.retains(e) &&
            s.strings.view(s.edge_label[e]) == "__callback__" && index.target(e) < index.node_count())
            return index.target(e);
    }
    return kNoNode;
}

void add_weak_callbacks(const GraphIndex& index, uint32_t weak_edge, std::vector<WeakCallback>& out) {
    const uint32_t weakref = index.source(weak_edge);
    const uint32_t referent = index.target(weak_edge);
    if (weakref >= index.node_count() || referent >= index.node_count()) return;
    const uint32_t callback = callback_of(index, weakref);
    if (callback != kNoNode) out.push_back({weakref, callback, referent});
}

// Dict values stored under each of `keys` (a DictValue edge's label is its
// key's node id), in one pass over the edges: for every weak callback of a
// heap, where a registry of thousands of finalizers is one dict, so looking
// entries up per key would be quadratic.
std::unordered_multimap<uint32_t, uint32_t> values_keyed_by(const GraphIndex& index,
                                                            const std::unordered_set<uint32_t>& keys) {
    std::unordered_multimap<uint32_t, uint32_t> values;
    if (keys.empty()) return values;
    const Snapshot& s = index.snapshot();
    for (uint32_t e = 0; e < index.edge_count(); ++e) {
        if (index.kind(e) != format::EdgeKind::DictValue || !index.retains(e)) continue;
        if (keys.contains(s.edge_label[e]) && index.target(e) < index.node_count())
            values.emplace(s.edge_label[e], index.target(e));
    }
    return values;
}

// The same for the few keys along one path (the app asks on every click):
// through each key's DictKey in-edges to the dicts holding it, scanning only
// those dicts, never the whole heap.
std::unordered_multimap<uint32_t, uint32_t> values_keyed_in_dicts(const GraphIndex& index,
                                                                  const std::unordered_set<uint32_t>& keys) {
    const Snapshot& s = index.snapshot();
    std::unordered_multimap<uint32_t, uint32_t> values;
    for (const uint32_t key : keys) {
        for (const uint32_t in : index.in_edges(key)) {
            if (index.kind(in) != format::EdgeKind::DictKey) continue;
            for (const uint32_t e : index.out_edges(index.source(in))) {
                if (index.kind(e) == format::EdgeKind::DictValue && index.retains(e) && s.edge_label[e] == key &&
                    index.target(e) < index.node_count())
                    values.emplace(key, index.target(e));
            }
        }
    }
    return values;
}

// Pre- and post-order numbers of the dominator tree's nodes, so that "a
// dominates b" is two comparisons instead of a walk up b's chain (a heap can
// hold a million weak callbacks on deep chains). Iterative: chains are deep.
struct DominatorOrder {
    std::vector<uint32_t> pre, post;  // per node; kNoNode when unreachable
    bool dominates(uint32_t a, uint32_t b) const {
        return pre[a] != kNoNode && pre[b] != kNoNode && pre[a] <= pre[b] && post[b] <= post[a];
    }
};

DominatorOrder order_of(const DominatorTree& dominators, uint32_t node_count) {
    DominatorOrder order{std::vector<uint32_t>(node_count, kNoNode), std::vector<uint32_t>(node_count, kNoNode)};
    uint32_t pre = 0, post = 0;
    std::vector<std::pair<uint32_t, uint32_t>> stack{{kSuperRoot, 0}};  // node, next child
    while (!stack.empty()) {
        auto& [node, next] = stack.back();
        const auto children = dominators.children(node);
        if (next < children.size()) {
            const uint32_t child = children[next++];
            if (child < node_count) order.pre[child] = pre++;
            stack.emplace_back(child, 0);
            continue;
        }
        if (node < node_count) order.post[node] = post++;
        stack.pop_back();
    }
    return order;
}

std::unordered_set<uint32_t> callback_keys(const std::vector<WeakCallback>& callbacks) {
    std::unordered_set<uint32_t> keys;
    for (const WeakCallback& w : callbacks) {
        keys.insert(w.weakref);
        keys.insert(w.callback);
    }
    return keys;
}

// The callback's state as (node, how it holds) pairs.
std::vector<std::pair<uint32_t, TrapHolder>> state_of(const WeakCallback& w,
                                                      const std::unordered_multimap<uint32_t, uint32_t>& keyed) {
    std::vector<std::pair<uint32_t, TrapHolder>> state{{w.callback, TrapHolder::Callback},
                                                       {w.weakref, TrapHolder::Callback}};
    const auto [c_first, c_last] = keyed.equal_range(w.callback);
    for (auto it = c_first; it != c_last; ++it) state.emplace_back(it->second, TrapHolder::FinalizerEntry);
    const auto [w_first, w_last] = keyed.equal_range(w.weakref);
    for (auto it = w_first; it != w_last; ++it) state.emplace_back(it->second, TrapHolder::WeakKeyEntry);
    return state;
}

FinalizerTrap trap_at(const WeakCallback& w, uint32_t holder, TrapHolder via) {
    return {w.referent, w.weakref, w.callback, holder, via};
}

}  // namespace

std::string_view trap_holder_name(TrapHolder via) {
    switch (via) {
    case TrapHolder::Callback: return "callback";
    case TrapHolder::FinalizerEntry: return "finalizer entry";
    case TrapHolder::WeakKeyEntry: return "weak key entry";
    }
    return "?";
}

std::vector<FinalizerTrap> find_finalizer_traps(const GraphIndex& index, const DominatorTree& dominators) {
    std::vector<WeakCallback> callbacks;
    for (uint32_t e = 0; e < index.edge_count(); ++e) {
        if (index.kind(e) == format::EdgeKind::Weak) add_weak_callbacks(index, e, callbacks);
    }
    if (callbacks.empty()) return {};
    const auto keyed = values_keyed_by(index, callback_keys(callbacks));
    const DominatorOrder order = order_of(dominators, index.node_count());
    std::vector<FinalizerTrap> traps;
    for (const WeakCallback& w : callbacks) {
        if (!dominators.reachable(w.referent)) continue;
        // The nearest dominator among the state: the one deepest in the tree.
        const std::pair<uint32_t, TrapHolder>* nearest = nullptr;
        const auto state = state_of(w, keyed);
        for (const auto& candidate : state) {
            if (candidate.first == w.referent || !order.dominates(candidate.first, w.referent)) continue;
            if (nearest == nullptr || order.pre[candidate.first] > order.pre[nearest->first]) nearest = &candidate;
        }
        if (nearest != nullptr) traps.push_back(trap_at(w, nearest->first, nearest->second));
    }
    std::stable_sort(traps.begin(), traps.end(),
                     [](const FinalizerTrap& a, const FinalizerTrap& b) { return a.referent < b.referent; });
    traps.erase(std::unique(traps.begin(), traps.end(),
                            [](const FinalizerTrap& a, const FinalizerTrap& b) { return a.referent == b.referent; }),
                traps.end());
    return traps;
}

std::optional<FinalizerTrap> finalizer_trap_on_path(const GraphIndex& index, std::span<const uint32_t> nodes) {
    std::vector<WeakCallback> callbacks;
    for (const uint32_t node : nodes) {
        if (node >= index.node_count()) continue;
        for (const uint32_t e : index.in_edges(node))
            if (index.kind(e) == format::EdgeKind::Weak) add_weak_callbacks(index, e, callbacks);
    }
    if (callbacks.empty()) return std::nullopt;
    const auto keyed = values_keyed_in_dicts(index, callback_keys(callbacks));
    for (size_t j = 1; j < nodes.size(); ++j) {
        for (const WeakCallback& w : callbacks) {
            if (w.referent != nodes[j]) continue;
            for (const auto& [node, via] : state_of(w, keyed)) {
                const auto before = nodes.begin() + static_cast<std::ptrdiff_t>(j);
                if (std::find(nodes.begin(), before, node) != before) return trap_at(w, node, via);
            }
        }
    }
    return std::nullopt;
}

std::optional<FinalizerTrap> finalizer_trap_on_path(const GraphIndex& index, const RetentionPath& path) {
    std::vector<uint32_t> nodes{path.root_node};
    for (const uint32_t e : path.edges) nodes.push_back(index.target(e));
    return finalizer_trap_on_path(index, nodes);
}

std::string describe_finalizer_trap(const Snapshot& snapshot, const FinalizerTrap& trap) {
    const std::string referent = describe_node_at(snapshot, trap.referent);
    switch (trap.via) {
    case TrapHolder::FinalizerEntry:
        return describe_node_at(snapshot, trap.holder) + ", the entry of the finalizer " +
               describe_node_at(snapshot, trap.callback) + " waiting for " + referent + " to be freed";
    case TrapHolder::WeakKeyEntry:
        return describe_node_at(snapshot, trap.holder) + ", a value stored under a weak reference to " + referent +
               " (a WeakKeyDictionary entry whose value holds its key)";
    case TrapHolder::Callback:
        break;
    }
    return "the callback " + describe_node_at(snapshot, trap.callback) + " of a weak reference to " + referent;
}

std::string finalizer_path_note(const Snapshot& snapshot, const FinalizerTrap& trap) {
    return "finalizer trap: this path runs through " + describe_finalizer_trap(snapshot, trap) +
           ": the finalizer runs only once that object is freed, and while this path holds it, it never is";
}

}  // namespace refscope::analysis

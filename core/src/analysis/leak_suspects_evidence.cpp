// Leak suspects, first stage: the evidence against each node. Type names
// grouped, interpreter types told apart, then the kind bits per node
// (unexplained surplus, uncollectable cycles, unreachable objects and their
// holders, growth, survivors, large retainers, where the growth accumulates)
// objects their own finalizer keeps, and which of them are the interpreter's
// own noise.
#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "leak_suspects_stages.h"
#include "refscope/analysis/inferred_holders.h"

namespace refscope::analysis::detail {

uint32_t module_namespace(const GraphIndex& index, uint32_t module) {
    const Snapshot& s = index.snapshot();
    for (const uint32_t e : index.out_edges(module))
        if (s.edge_kind[e] == static_cast<uint8_t>(format::EdgeKind::Field) &&
            s.strings.view(s.edge_label[e]) == "__dict__" && index.target(e) < index.node_count())
            return index.target(e);
    return kNoNode;
}

namespace {

// Module globals: the values of a loaded module's namespace (module
// --__dict__--> dict --[name]--> value). They live as long as their module
// does, so references C code holds to them (torch's dtype and layout
// registries, NumPy's table of ufuncs behind the array operators, classes
// cached by extensions) keep nothing alive that would otherwise be freed:
// static state, not a leak. A leak into a global container still shows as
// that container's growth. `is_module_type` is indexed by type id.
std::vector<uint8_t> module_globals(const GraphIndex& index, const std::vector<uint8_t>& is_module_type) {
    const Snapshot& s = index.snapshot();
    const uint32_t n_nodes = index.node_count();
    const size_t last_type = is_module_type.size() - 1;
    std::vector<uint8_t> global(n_nodes, 0);
    for (uint32_t node = 0; node < n_nodes; ++node) {
        if (!is_module_type[std::min<size_t>(s.node_type[node], last_type)]) continue;
        const uint32_t dict = module_namespace(index, node);
        if (dict == kNoNode) continue;
        for (const uint32_t v : index.out_edges(dict))
            if (s.edge_kind[v] == static_cast<uint8_t>(format::EdgeKind::DictValue) && index.target(v) < n_nodes)
                global[index.target(v)] = 1;
    }
    return global;
}

// An extension's private static type with at most this many instances is
// its own C state (Cython's five memoryview Enum constants, one NumPy
// descriptor per dtype); more is a pattern worth a look.
constexpr uint32_t kFewStaticInstances = 64;

// Which objects' unexplained surplus (and the cycles and unreachable
// objects it holds) is the interpreter's or an extension's own static
// state: the rules are listed in docs/leak-suspects.md.
struct NoiseRules {
    const Snapshot& s;
    const DominatorTree& dom;
    const SuspectOptions& options;
    const SuspectEvidence& ev;
    std::vector<uint8_t> module_global;             // per node
    std::unordered_set<uint64_t> metatype_addresses;
    std::vector<uint8_t> likely_held;               // per node: an inferred C++ holder

    // A class object is judged by the module that defines it, not by its
    // metatype (which is `type` for every class): CPython's own classes
    // (static types, and heap types such as ast.AST that interpreter state
    // holds from C) and the types extensions make in C (kiwisolver keeps
    // its Strength type in a C static) are noise; a user's class held from
    // C is not.
    bool interpreter_class(uint32_t node) const {
        if (s.node_flags[node] & (format::kNodeStaticType | format::kNodeExtensionType)) return true;
        std::string_view name = s.strings.view(s.node_preview[node]);
        if (name.empty()) return false;
        // A class name without a module part is a builtin, as for
        // type.__module__ (ExceptionGroup, made on the heap by CPython).
        const size_t dot = name.find('.');
        return dot == std::string_view::npos || is_interpreter_module(name.substr(0, dot));
    }

    bool holder(uint32_t node) const {
        if (likely_held[node]) return false;
        if (dom.retained_size(node) >= options.noise_retained_limit) return false;
        if (module_global[node]) return true;
        if (s.node_flags[node] & format::kNodeTypeObject)
            return interpreter_class(node) || metatype_addresses.contains(s.node_address[node]);
        const uint32_t t = s.node_type[node];
        return ev.interpreter_type[t < ev.type_count ? t : ev.type_count] != 0;
    }
};

// Type names: one group per distinct name; bad type ids share "?".
void group_type_names(SuspectEvidence& ev) {
    const Snapshot& s = ev.s;
    ev.type_count = static_cast<uint32_t>(s.types.size());
    const uint32_t type_count = ev.type_count;
    std::vector<uint32_t> by_name(type_count);
    for (uint32_t t = 0; t < type_count; ++t) by_name[t] = t;
    std::stable_sort(by_name.begin(), by_name.end(),
                     [&](uint32_t a, uint32_t b) { return ev.name_of(a) < ev.name_of(b); });
    std::vector<uint32_t>& group_of_type = ev.group_of_type;
    group_of_type.resize(type_count + 1);
    std::vector<uint32_t>& group_first_type = ev.group_first_type;  // a representative type id per group
    for (uint32_t i = 0; i < type_count; ++i) {
        if (i == 0 || ev.name_of(by_name[i]) != ev.name_of(by_name[i - 1])) {
            group_first_type.push_back(by_name[i]);
        }
        group_of_type[by_name[i]] = static_cast<uint32_t>(group_first_type.size() - 1);
    }
    ev.bad_group = static_cast<uint32_t>(group_first_type.size());
    const uint32_t bad_group = ev.bad_group;
    group_of_type[type_count] = bad_group;
    ev.group_count = bad_group + 1;

}

// Interpreter types, module globals and metatypes: what the noise rules
// (NoiseRules) read.
void classify_types(const SuspectInputs& in, SuspectEvidence& ev, NoiseRules& rules) {
    const GraphIndex& index = *in.index;
    const Snapshot& s = ev.s;
    const uint32_t n_nodes = index.node_count();
    const uint32_t type_count = ev.type_count;
    // --- Interpreter types: defined by a stdlib/builtin module. Static types
    // and heap types alike (ast.Add singletons in the AST state,
    // _lru_list_elem, _io objects behind sys.stdout): their instances'
    // unexplained references are CPython's own C code. This only demotes
    // unexplained-surplus evidence; growth, survivors and GC-invisible
    // cycles of such types still count. ---
    std::vector<uint8_t>& interpreter_type = ev.interpreter_type;
    interpreter_type.assign(type_count + 1, 0);
    for (uint32_t t = 0; t < type_count; ++t) {
        interpreter_type[t] = is_interpreter_module(s.strings.view(s.types[t].module)) ? 1 : 0;
    }
    // Which type ids are `module`, decided once per type, not per node.
    std::vector<uint8_t> is_module_type(type_count + 1, 0);
    for (uint32_t t = 0; t < type_count; ++t) is_module_type[t] = s.strings.view(s.types[t].name) == "module" ? 1 : 0;
    rules.module_global = module_globals(index, is_module_type);
    const std::vector<uint8_t>& module_global = rules.module_global;
    // Static types whose "module" is no module of the process are the
    // interpreter's internals named with a dot (CPython's `Token.MISSING`,
    // whose one instance is a C static): an extension's static type is
    // named after its module, which is loaded. So are the static types an
    // extension keeps to itself, which no module's namespace holds: their
    // instances are that extension's C state (Cython's memoryview `Enum`
    // constants in every module that uses typed memoryviews, NumPy 1.x's
    // builtin dtype descriptors, whose `numpy.dtype[float32]` classes no
    // module exports before `numpy.dtypes`) — as long as they have few
    // instances (kFewStaticInstances): a private iterator or result type of
    // a hand-written extension that leaks one per call has many, and stays
    // evidence. Static types are told apart by
    // the probe's kNodeStaticType flag on the type object's node. The same
    // pass notes which types have classes as instances (metatypes, below).
    std::vector<uint8_t> makes_classes(type_count + 1, 0);
    {
        std::unordered_set<std::string_view> loaded_modules;
        std::unordered_map<uint64_t, uint32_t> static_type_nodes;  // address → node
        std::vector<uint32_t> instances(type_count + 1, 0);
        for (uint32_t node = 0; node < n_nodes; ++node) {
            const uint8_t flags = s.node_flags[node];
            ++instances[std::min<size_t>(s.node_type[node], type_count)];
            if (flags & format::kNodeTypeObject) makes_classes[std::min<size_t>(s.node_type[node], type_count)] = 1;
            if ((flags & format::kNodeTypeObject) && (flags & format::kNodeStaticType)) {
                static_type_nodes.emplace(s.node_address[node], node);
            } else if (is_module_type[std::min<size_t>(s.node_type[node], type_count)] &&
                       s.node_preview[node] != 0) {
                loaded_modules.insert(s.strings.view(s.node_preview[node]));
            }
        }
        for (uint32_t t = 0; t < type_count; ++t) {
            const auto found = static_type_nodes.find(s.types[t].type_address);
            if (interpreter_type[t] || found == static_type_nodes.end()) continue;
            const std::string_view module = s.strings.view(s.types[t].module);
            if (!loaded_modules.contains(module) ||
                (!module_global[found->second] && instances[t] <= kFewStaticInstances))
                interpreter_type[t] = 1;
        }
    }
    // Metaclasses: types that classes are instances of (torch's _TensorMeta,
    // the _ReduceOpMeta torch makes for pybind11's py::metaclass, enum's
    // EnumType). Every class they made refers to them, and libraries that
    // make classes with them keep them in C statics: infrastructure, not a
    // leak (a class made per request still shows as growth).
    for (uint32_t t = 0; t < type_count; ++t)
        if (makes_classes[t]) rules.metatype_addresses.insert(s.types[t].type_address);
    // An object with surplus that probably is held by an undescribed C++
    // member nearby (inferred_holders.h) is not the interpreter's static
    // state, whatever its type: the closure of a wrapper's callback is a
    // function, and the wrapper's cycle is the program's.
    rules.likely_held.assign(n_nodes, 0);
    // Only an object no root reaches: a cycle the collector cannot see is
    // garbage but for the C++ member. A reachable object with surplus (a
    // function torch's C++ keeps, whose __globals__ lead to some bound
    // object) is alive anyway, and the static-state rules still apply.
    for (const NodeCount& c : in.roots->unexplained_nodes())
        if (!in.paths->reachable(c.node) && infer_holder(*in.index, *in.roots, c.node))
            rules.likely_held[c.node] = 1;
    ev.type_tier = type_tiers(index, ev, is_module_type);
}

// An object no root reaches whose every owner is itself static state no
// root reaches belongs to that state: NumPy 2.4 keeps its object-to-any and
// any-to-object casts in a static struct and also in the cast tables of
// every DType (dicts held from C), so the casts' surplus is the same C
// static's. One level only: a leaked reference to an object that ordinary
// program containers hold stays evidence.
bool held_only_by_static_state(const SuspectInputs& in, const NoiseRules& rules, uint32_t node) {
    if (in.paths->reachable(node)) return false;
    const Snapshot& s = rules.s;
    bool owned = false;
    for (const uint32_t e : in.index->in_edges(node)) {
        if (!(s.edge_flags[e] & format::kEdgeOwned)) continue;
        const uint32_t from = in.index->source(e);
        if (in.paths->reachable(from) || !rules.holder(from)) return false;
        owned = true;
    }
    return owned;
}

// Unexplained surplus and uncollectable cycles, and which of them are noise.
// Returns per cycle whether its only fault is a noise holder.
std::vector<uint8_t> mark_surplus_and_cycles(const SuspectInputs& in, const NoiseRules& rules, SuspectEvidence& ev,
                                             std::vector<uint8_t>& kinds) {
    const Cycles& cycles = *in.cycles;
    const uint32_t n_nodes = in.index->node_count();
    // The kind bits whose evidence is the interpreter's own, per node.
    std::vector<uint8_t>& noise = ev.noise;
    noise.assign(n_nodes, 0);
    for (const NodeCount& c : in.roots->unexplained_nodes()) {
        kinds[c.node] |= kSuspectUnexplainedSurplus;
        if (rules.holder(c.node) || held_only_by_static_state(in, rules, c.node))
            noise[c.node] |= kSuspectUnexplainedSurplus;
    }
    // A cycle the collector cannot free is evidence, unless the only reason
    // is an interpreter-owned holder: every class forms a cycle with its own
    // __dict__ and descriptors, so a CPython class held from C state makes
    // its whole cycle "held from outside". A GC-invisible edge inside the
    // cycle is always evidence (some C type forgot tp_traverse).
    std::vector<uint8_t> noise_cycle(cycles.count(), 0);
    for (uint32_t c = 0; c < cycles.count(); ++c) {
        const CycleInfo& info = cycles.info(c);
        if (!uncollectable(info.fate)) continue;
        noise_cycle[c] = info.fate == CycleFate::HeldFromOutside && info.culprit_edge == kNoEdge &&
                         info.culprit_node != kNoNode && rules.holder(info.culprit_node);
        for (const uint32_t m : cycles.members(c)) {
            kinds[m] |= kSuspectUncollectableCycle;
            noise[m] = noise_cycle[c] ? static_cast<uint8_t>(noise[m] | kSuspectUncollectableCycle) : 0;
        }
    }
    return noise_cycle;
}

// Unreachable objects kept alive by a holder.
void find_unreachable_holders(const SuspectInputs& in, const NoiseRules& rules, const std::vector<uint8_t>& noise_cycle,
                              SuspectEvidence& ev, std::vector<uint8_t>& kinds) {
    const GraphIndex& index = *in.index;
    const Cycles& cycles = *in.cycles;
    const uint32_t n_nodes = index.node_count();
    std::vector<uint8_t>& noise = ev.noise;
    const auto is_noise_source = [&](uint32_t node) {
        const uint32_t c = cycles.cycle_of(node);
        return c == kNoCycle ? rules.holder(node) : noise_cycle[c] != 0;
    };
    // Unreachable objects kept alive by a holder: a multi-source BFS from
    // every unreachable object with unexplained surplus or in an
    // uncollectable cycle, over retaining edges into unreachable objects. The
    // first source to reach an object is its nearest holder — the same object
    // RetentionPaths::explain_unreachable finds searching backwards, found for
    // all objects at once. A cycle's holder is its lowest member.
    std::vector<uint32_t>& holder = ev.holder;
    holder.assign(n_nodes, kNoNode);
    std::vector<uint32_t> queue;
    for (uint32_t n = 0; n < n_nodes; ++n) {
        if (in.paths->reachable(n)) continue;
        const uint32_t c = cycles.cycle_of(n);
        if (c != kNoCycle && uncollectable(cycles.info(c).fate)) {
            holder[n] = cycles.members(c)[0];
        } else if (kinds[n] & kSuspectUnexplainedSurplus) {
            holder[n] = n;
        } else {
            continue;
        }
        queue.push_back(n);
    }
    for (size_t head = 0; head < queue.size(); ++head) {
        const uint32_t node = queue[head];
        for (const uint32_t e : index.out_edges(node)) {
            if (!index.retains(e)) continue;
            const uint32_t target = index.target(e);
            if (holder[target] != kNoNode || in.paths->reachable(target)) continue;
            holder[target] = holder[node];
            kinds[target] |= kSuspectUnreachable;
            if (is_noise_source(holder[node])) noise[target] |= kSuspectUnreachable;
            queue.push_back(target);
        }
    }
    std::vector<uint32_t>().swap(queue);

}

// Growth, survivors, the largest retainers and finalizer traps.
void mark_growth_and_survivors(const SuspectInputs& in, const SuspectOptions& options, SuspectEvidence& ev,
                               std::vector<uint8_t>& kinds) {
    const GraphIndex& index = *in.index;
    const DominatorTree& dom = *in.dominators;
    const uint32_t n_nodes = index.node_count();
    const std::vector<uint32_t>& group_first_type = ev.group_first_type;
    // Growth: new objects of the types that grew since the baseline.
    std::vector<const TypeDelta*>& delta_of_group = ev.delta_of_group;
    delta_of_group.assign(ev.group_count, nullptr);
    if (in.diff) {
        for (const TypeDelta& d : in.diff->types) {
            const auto it = std::lower_bound(
                group_first_type.begin(), group_first_type.end(), std::string_view(d.name),
                [&](uint32_t t, std::string_view name) { return ev.name_of(t) < name; });
            if (it != group_first_type.end() && ev.name_of(*it) == d.name) {
                delta_of_group[static_cast<size_t>(it - group_first_type.begin())] = &d;
            }
        }
        for (uint32_t n = 0; n < n_nodes; ++n) {
            if (!in.diff->is_new[n]) continue;
            const TypeDelta* d = delta_of_group[ev.group_of_node(n)];
            if (d && d->object_delta() > 0 &&
                static_cast<uint64_t>(d->object_delta()) >= options.min_growth_objects) {
                kinds[n] |= kSuspectGrowth;
            }
        }
    }
    if (in.survivors) {
        for (uint32_t n = 0; n < n_nodes; ++n) {
            if (in.survivors->is_survivor[n]) kinds[n] |= kSuspectSurvivor;
        }
    }
    for (const uint32_t n : dom.top_retained(options.top_retained)) kinds[n] |= kSuspectLargeRetained;
    // Finalizer traps are proof by themselves, whatever the type: never noise.
    ev.traps = find_finalizer_traps(index, dom);
    for (const FinalizerTrap& trap : ev.traps) kinds[trap.referent] |= kSuspectOwnFinalizer;

}

// With a baseline or survivors: the growth leads and where the growth
// accumulates.
void find_accumulation(const SuspectInputs& in, const SuspectOptions& options, SuspectEvidence& ev,
                       std::vector<uint8_t>& kinds) {
    const DominatorTree& dom = *in.dominators;
    const uint32_t n_nodes = in.index->node_count();
    // Where the growth accumulates: the deepest object whose dominator
    // subtree holds more than half of the new (or surviving) objects — the
    // cache or list that keeps them. Counts per dominator subtree come from
    // one breadth-first order of the tree, summed leaves first.
    uint32_t& accumulation = ev.accumulation;
    uint64_t& accumulated = ev.accumulated;
    uint64_t& accumulated_total = ev.accumulated_total;
    if (in.diff || in.survivors) {
        const auto slot = [n_nodes](uint32_t v) {
            return v == kSuperRoot ? n_nodes : v == kUnexplainedRoot ? n_nodes + 1 : v;
        };
        std::vector<uint32_t> order = dominator_order(dom);
        find_growth_leads(in, options, order, ev, kinds);
        std::vector<uint32_t> fresh(static_cast<size_t>(n_nodes) + 2, 0);
        for (size_t i = order.size(); i-- > 1;) {
            const uint32_t v = order[i];
            if (v < n_nodes && (kinds[v] & (kSuspectGrowth | kSuspectSurvivor))) ++fresh[v];
            fresh[slot(dom.idom(v))] += fresh[slot(v)];
        }
        std::vector<uint32_t>().swap(order);
        accumulated_total = fresh[n_nodes];
        uint32_t at = kSuperRoot;
        for (bool deeper = true; deeper;) {
            deeper = false;
            for (const uint32_t child : dom.children(at)) {
                if (2ull * fresh[slot(child)] > accumulated_total) {
                    at = child;
                    deeper = true;
                    break;
                }
            }
        }
        if (at < n_nodes && fresh[at] >= options.min_accumulated_objects) {
            accumulation = at;
            accumulated = fresh[at];
            kinds[at] |= kSuspectLargeRetained;
        }
    }
}

}  // namespace

const FinalizerTrap* SuspectEvidence::trap_of(uint32_t node) const {
    const auto it = std::lower_bound(traps.begin(), traps.end(), node,
                                     [](const FinalizerTrap& t, uint32_t n) { return t.referent < n; });
    return it != traps.end() && it->referent == node ? &*it : nullptr;
}

SuspectEvidence gather_suspect_evidence(const SuspectInputs& in, const SuspectOptions& options,
                                        std::vector<uint8_t>& kinds) {
    SuspectEvidence ev(in.index->snapshot());
    group_type_names(ev);
    NoiseRules rules{ev.s, *in.dominators, options, ev, {}, {}, {}};
    classify_types(in, ev, rules);
    const std::vector<uint8_t> noise_cycle = mark_surplus_and_cycles(in, rules, ev, kinds);
    find_unreachable_holders(in, rules, noise_cycle, ev, kinds);
    mark_growth_and_survivors(in, options, ev, kinds);
    find_accumulation(in, options, ev, kinds);
    return ev;
}

}  // namespace refscope::analysis::detail

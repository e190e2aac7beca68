// Leak suspects: per-node evidence bits, then one pass that folds them into
// rows per (type name, confidence). See leak_suspects.h for the model and
// docs/leak-suspects.md for the scoring.
#include "refscope/analysis/leak_suspects.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "refscope/analysis/edge_labels.h"
#include "refscope/analysis/subgraph.h"

namespace refscope::analysis {
namespace {

// Modules whose types are the interpreter's own or the standard library's C
// parts: objects of their static types that carry unexplained surplus are
// almost always held by C statics (interned strings, type caches, module
// state). Sorted, for binary search.
constexpr std::string_view kInterpreterModules[] = {
    "",           "_abc",        "_asyncio",     "_ast",        "_bisect",      "_blake2",
    "_bz2",       "_codecs",     "_collections", "_contextvars", "_csv",        "_ctypes",
    "_datetime",  "_decimal",    "_elementtree", "_frozen_importlib", "_frozen_importlib_external",
    "_functools", "_hashlib",    "_heapq",       "_imp",        "_io",          "_json",
    "_locale",    "_lsprof",     "_lzma",        "_md5",        "_multiprocessing", "_opcode",
    "_operator",  "_pickle",     "_posixsubprocess", "_queue",  "_random",      "_sha1",
    "_sha2",      "_sha256",     "_sha3",        "_sha512",     "_signal",      "_socket",
    "_sqlite3",   "_sre",        "_ssl",         "_stat",       "_string",      "_struct",
    "_thread",    "_tokenize",   "_tracemalloc", "_typing",     "_warnings",    "_weakref",
    "abc",        "array",       "ast",          "asyncio",     "atexit",       "binascii",
    "builtins",   "cmath",       "codecs",       "collections", "contextvars",  "datetime",
    "decimal",    "enum",        "errno",        "faulthandler", "fcntl",       "functools",
    "gc",         "grp",         "importlib",    "io",          "itertools",    "marshal",
    "math",       "mmap",        "operator",     "os",          "posix",        "pwd",
    "pyexpat",    "re",          "resource",     "select",      "socket",       "ssl",
    "sys",        "termios",     "time",         "types",       "typing",       "unicodedata",
    "weakref",    "zipimport",   "zlib",         "_weakrefset", "encodings",    "_pydecimal",
};

std::string count_text(uint64_t count) {
    const std::string digits = std::to_string(count);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string objects_text(uint64_t count) {
    return count_text(count) + (count == 1 ? " object" : " objects");
}

// Added to the magnitude of the kinds that prove a defect by themselves
// (unexplained surplus, an uncollectable cycle), unlike growth, which a
// warming cache shows too.
constexpr double kProofBonus = 2.0;

double magnitude(uint64_t objects, uint64_t bytes) {
    return std::log2(1.0 + static_cast<double>(objects)) +
           std::log2(1.0 + static_cast<double>(bytes) / 1024.0);
}

// Per-row totals that only the score needs.
struct RowBytes {
    uint64_t surplus_retained = 0;
    uint64_t unreachable_shallow = 0;
    uint64_t cycle_shallow = 0;
};

// Counts the most frequent value per row in (row << 32 | value) pairs:
// sorted, then one scan. Returns per row {value, occurrences, distinct}.
struct Mode {
    uint32_t value = kNoNode;
    uint64_t occurrences = 0;
    uint32_t distinct = 0;
};
std::vector<Mode> modes_by_row(std::vector<uint64_t>& pairs, size_t rows) {
    std::sort(pairs.begin(), pairs.end());
    std::vector<Mode> modes(rows);
    size_t i = 0;
    while (i < pairs.size()) {
        size_t j = i;
        while (j < pairs.size() && pairs[j] == pairs[i]) ++j;
        Mode& m = modes[pairs[i] >> 32];
        ++m.distinct;
        // Ties keep the lowest value: pairs are sorted, so the first seen.
        if (j - i > m.occurrences) {
            m.occurrences = j - i;
            m.value = static_cast<uint32_t>(pairs[i]);
        }
        i = j;
    }
    return modes;
}

}  // namespace

std::string_view suspect_kind_name(uint8_t kind) {
    switch (kind) {
        case kSuspectUnexplainedSurplus: return "unexplained surplus";
        case kSuspectUnreachable: return "unreachable";
        case kSuspectUncollectableCycle: return "uncollectable cycle";
        case kSuspectGrowth: return "growth";
        case kSuspectSurvivor: return "survivor";
        case kSuspectLargeRetained: return "large retained";
        default: return "?";
    }
}

std::string suspect_kind_names(uint8_t kinds) {
    std::string out;
    for (int bit = 0; bit < kSuspectKindCount; ++bit) {
        const uint8_t kind = static_cast<uint8_t>(1u << bit);
        if ((kinds & kind) == 0) continue;
        if (!out.empty()) out += ", ";
        out += suspect_kind_name(kind);
    }
    return out;
}

std::string_view suspect_confidence_name(SuspectConfidence confidence) {
    return confidence == SuspectConfidence::High ? "high" : "low";
}

bool is_interpreter_module(std::string_view module) {
    // The table is short; a linear scan keeps it free of ordering mistakes.
    return std::find(std::begin(kInterpreterModules), std::end(kInterpreterModules), module) !=
           std::end(kInterpreterModules);
}

LeakSuspects::LeakSuspects(const SuspectInputs& in, const SuspectOptions& options) {
    if (!in.index || !in.roots || !in.paths || !in.dominators || !in.cycles) {
        throw std::invalid_argument("leak suspects need the index, roots, paths, dominators and cycles");
    }
    const GraphIndex& index = *in.index;
    const Snapshot& s = index.snapshot();
    const uint32_t n_nodes = index.node_count();
    if (in.diff && in.diff->is_new.size() != n_nodes) {
        throw std::invalid_argument("the diff's is_new column does not match the current snapshot");
    }
    if (in.survivors && in.survivors->is_survivor.size() != n_nodes) {
        throw std::invalid_argument(
            "the survivor report's is_survivor column does not match the current snapshot");
    }
    const DominatorTree& dom = *in.dominators;
    const Cycles& cycles = *in.cycles;

    // --- Type names: one group per distinct name; bad type ids share "?". ---
    const uint32_t type_count = static_cast<uint32_t>(s.types.size());
    std::vector<uint32_t> by_name(type_count);
    for (uint32_t t = 0; t < type_count; ++t) by_name[t] = t;
    const auto name_of = [&](uint32_t t) { return s.strings.view(s.types[t].name); };
    std::stable_sort(by_name.begin(), by_name.end(),
                     [&](uint32_t a, uint32_t b) { return name_of(a) < name_of(b); });
    std::vector<uint32_t> group_of_type(type_count + 1);
    std::vector<uint32_t> group_first_type;  // a representative type id per group
    for (uint32_t i = 0; i < type_count; ++i) {
        if (i == 0 || name_of(by_name[i]) != name_of(by_name[i - 1])) {
            group_first_type.push_back(by_name[i]);
        }
        group_of_type[by_name[i]] = static_cast<uint32_t>(group_first_type.size() - 1);
    }
    const uint32_t bad_group = static_cast<uint32_t>(group_first_type.size());
    group_of_type[type_count] = bad_group;
    const uint32_t group_count = bad_group + 1;
    const auto group_of_node = [&](uint32_t node) {
        const uint32_t t = s.node_type[node];
        return group_of_type[t < type_count ? t : type_count];
    };

    // --- Interpreter types: defined by a stdlib/builtin module. Static types
    // and heap types alike (ast.Add singletons in the AST state,
    // _lru_list_elem, _io objects behind sys.stdout): their instances'
    // unexplained references are CPython's own C code. This only demotes
    // unexplained-surplus evidence; growth, survivors and GC-invisible
    // cycles of such types still count. ---
    std::vector<uint8_t> interpreter_type(type_count + 1, 0);
    for (uint32_t t = 0; t < type_count; ++t) {
        interpreter_type[t] = is_interpreter_module(s.strings.view(s.types[t].module)) ? 1 : 0;
    }
    // Static types whose "module" is no module of the process are the
    // interpreter's internals named with a dot (CPython's `Token.MISSING`,
    // whose one instance is a C static): an extension's static type is
    // named after its module, which is loaded. Static types are told apart
    // by the probe's kNodeStaticType flag on the type object's node.
    {
        std::unordered_set<std::string_view> loaded_modules;
        std::unordered_set<uint64_t> static_type_addresses;
        // Which type ids are `module`, decided once per type, not per node.
        std::vector<uint8_t> is_module_type(type_count + 1, 0);
        for (uint32_t t = 0; t < type_count; ++t) {
            is_module_type[t] = s.strings.view(s.types[t].name) == "module" ? 1 : 0;
        }
        for (uint32_t node = 0; node < n_nodes; ++node) {
            const uint8_t flags = s.node_flags[node];
            if ((flags & format::kNodeTypeObject) && (flags & format::kNodeStaticType)) {
                static_type_addresses.insert(s.node_address[node]);
            } else if (is_module_type[std::min<size_t>(s.node_type[node], type_count)] &&
                       s.node_preview[node] != 0) {
                loaded_modules.insert(s.strings.view(s.node_preview[node]));
            }
        }
        for (uint32_t t = 0; t < type_count; ++t) {
            if (interpreter_type[t] || !static_type_addresses.contains(s.types[t].type_address)) continue;
            const std::string_view module = s.strings.view(s.types[t].module);
            if (!loaded_modules.contains(module)) interpreter_type[t] = 1;
        }
    }
    // A class object is judged by the module that defines it, not by its
    // metatype (which is `type` for every class): CPython's own classes
    // (static types, and heap types such as ast.AST that interpreter state
    // holds from C) are noise, a user's class held from C is not.
    const auto interpreter_class = [&](uint32_t node) {
        if (s.node_flags[node] & format::kNodeStaticType) return true;
        std::string_view name = s.strings.view(s.node_preview[node]);
        if (name.empty()) return false;
        // A class name without a module part is a builtin, as for
        // type.__module__ (ExceptionGroup, made on the heap by CPython).
        const size_t dot = name.find('.');
        return dot == std::string_view::npos || is_interpreter_module(name.substr(0, dot));
    };
    const auto is_noise_holder = [&](uint32_t node) {
        if (dom.retained_size(node) >= options.noise_retained_limit) return false;
        if (s.node_flags[node] & format::kNodeTypeObject) return interpreter_class(node);
        const uint32_t t = s.node_type[node];
        return interpreter_type[t < type_count ? t : type_count] != 0;
    };

    // --- Evidence per node. ---
    node_kinds_.assign(n_nodes, 0);
    std::vector<uint8_t>& kinds = node_kinds_;  // the full bits until the end
    // The kind bits whose evidence is the interpreter's own, per node.
    std::vector<uint8_t> noise(n_nodes, 0);
    for (const NodeCount& c : in.roots->unexplained_nodes()) {
        kinds[c.node] |= kSuspectUnexplainedSurplus;
        if (is_noise_holder(c.node)) noise[c.node] |= kSuspectUnexplainedSurplus;
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
                         info.culprit_node != kNoNode && is_noise_holder(info.culprit_node);
        for (const uint32_t m : cycles.members(c)) {
            kinds[m] |= kSuspectUncollectableCycle;
            noise[m] = noise_cycle[c] ? static_cast<uint8_t>(noise[m] | kSuspectUncollectableCycle) : 0;
        }
    }
    const auto is_noise_source = [&](uint32_t node) {
        const uint32_t c = cycles.cycle_of(node);
        return c == kNoCycle ? is_noise_holder(node) : noise_cycle[c] != 0;
    };

    // Unreachable objects kept alive by a holder: a multi-source BFS from
    // every unreachable object with unexplained surplus or in an
    // uncollectable cycle, over retaining edges into unreachable objects. The
    // first source to reach an object is its nearest holder — the same object
    // RetentionPaths::explain_unreachable finds searching backwards, found for
    // all objects at once. A cycle's holder is its lowest member.
    std::vector<uint32_t> holder(n_nodes, kNoNode);
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

    // Growth: new objects of the types that grew since the baseline.
    std::vector<const TypeDelta*> delta_of_group(group_count, nullptr);
    if (in.diff) {
        for (const TypeDelta& d : in.diff->types) {
            const auto it = std::lower_bound(
                group_first_type.begin(), group_first_type.end(), std::string_view(d.name),
                [&](uint32_t t, std::string_view name) { return name_of(t) < name; });
            if (it != group_first_type.end() && name_of(*it) == d.name) {
                delta_of_group[static_cast<size_t>(it - group_first_type.begin())] = &d;
            }
        }
        for (uint32_t n = 0; n < n_nodes; ++n) {
            if (!in.diff->is_new[n]) continue;
            const TypeDelta* d = delta_of_group[group_of_node(n)];
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

    // Where the growth accumulates: the deepest object whose dominator
    // subtree holds more than half of the new (or surviving) objects — the
    // cache or list that keeps them. Counts per dominator subtree come from
    // one breadth-first order of the tree, summed leaves first.
    uint32_t accumulation = kNoNode;
    uint64_t accumulated = 0;
    uint64_t accumulated_total = 0;
    if (in.diff || in.survivors) {
        const auto slot = [n_nodes](uint32_t v) {
            return v == kSuperRoot ? n_nodes : v == kUnexplainedRoot ? n_nodes + 1 : v;
        };
        std::vector<uint32_t> order;
        order.reserve(static_cast<size_t>(dom.reachable_count()) + 2);
        order.push_back(kSuperRoot);
        for (size_t i = 0; i < order.size(); ++i) {
            for (const uint32_t child : dom.children(order[i])) order.push_back(child);
        }
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

    // --- Which row each node goes to. Row = group * 2 + (low confidence). ---
    // A node is low confidence when all its evidence is noise, or when it is
    // only "large" and not where the growth accumulates: big is not leaking.
    const auto signal_bits = [&](uint32_t n) -> uint8_t {
        return static_cast<uint8_t>(kinds[n] & ~kSuspectLargeRetained & ~noise[n]);
    };
    const auto row_of = [&](uint32_t n) -> uint32_t {
        const bool low = signal_bits(n) == 0 && n != accumulation;
        return group_of_node(n) * 2 + (low ? 1u : 0u);
    };

    const size_t row_count = static_cast<size_t>(group_count) * 2;
    std::vector<SuspectGroup> rows(row_count);
    std::vector<RowBytes> row_bytes(row_count);
    std::vector<uint64_t> representative_retained(row_count, 0);
    std::vector<uint32_t> node_row(n_nodes, kNoNode);
    for (uint32_t n = 0; n < n_nodes; ++n) {
        if (kinds[n]) node_row[n] = row_of(n);
    }
    std::vector<uint64_t> holder_pairs;
    std::vector<uint64_t> cycle_pairs;
    const auto& unexplained = in.roots->unexplained_nodes();
    size_t unexplained_at = 0;
    for (uint32_t n = 0; n < n_nodes; ++n) {
        if (!kinds[n]) continue;
        const uint32_t r = node_row[n];
        SuspectGroup& row = rows[r];
        const uint8_t k = kinds[n];
        row.kinds |= k;
        ++row.objects;
        row.shallow_bytes += s.node_size[n];
        const uint32_t idom = dom.idom(n);
        const bool nested = idom < n_nodes && node_row[idom] == r;
        // Objects the dominator tree does not reach (a cycle only an
        // invisible edge keeps) retain at least themselves.
        const uint64_t retained = dom.reachable(n) ? dom.retained_size(n) : s.node_size[n];
        if (!nested) row.retained_bytes += retained;
        if (row.representative == kNoNode || retained > representative_retained[r]) {
            row.representative = n;
            representative_retained[r] = retained;
        }
        if (row.sample.size() < options.sample_size) row.sample.push_back(n);
        if (k & kSuspectUnexplainedSurplus) {
            while (unexplained_at < unexplained.size() && unexplained[unexplained_at].node < n) {
                ++unexplained_at;
            }
            ++row.surplus_objects;
            if (unexplained_at < unexplained.size() && unexplained[unexplained_at].node == n) {
                row.unexplained_references += unexplained[unexplained_at].references;
            }
            if (!nested) row_bytes[r].surplus_retained += retained;
        }
        if (k & kSuspectUnreachable) {
            ++row.unreachable_objects;
            row_bytes[r].unreachable_shallow += s.node_size[n];
            holder_pairs.push_back((static_cast<uint64_t>(r) << 32) | holder[n]);
        }
        if (k & kSuspectUncollectableCycle) {
            ++row.cycle_objects;
            row_bytes[r].cycle_shallow += s.node_size[n];
            cycle_pairs.push_back((static_cast<uint64_t>(r) << 32) | cycles.cycle_of(n));
        }
        if (k & kSuspectGrowth) ++row.new_objects;
        if (k & kSuspectSurvivor) {
            ++row.survivor_objects;
            row.survivor_bytes += s.node_size[n];
        }
        if (k & kSuspectLargeRetained) {
            ++row.large_objects;
            row.largest_retained = std::max(row.largest_retained, retained);
        }
    }
    std::vector<uint32_t>().swap(node_row);

    const std::vector<Mode> holders = modes_by_row(holder_pairs, row_count);
    // Cycles per row: distinct count, and the one with the most bytes.
    std::sort(cycle_pairs.begin(), cycle_pairs.end());
    cycle_pairs.erase(std::unique(cycle_pairs.begin(), cycle_pairs.end()), cycle_pairs.end());
    for (const uint64_t pair : cycle_pairs) {
        SuspectGroup& row = rows[pair >> 32];
        const uint32_t c = static_cast<uint32_t>(pair);
        ++row.cycle_count;
        if (row.cycle == kNoCycle || cycles.info(c).bytes > cycles.info(row.cycle).bytes) row.cycle = c;
    }

    // --- Reasons and scores. ---
    const auto group_first_type_or_bad = [&](uint32_t g) { return g == bad_group ? type_count : group_first_type[g]; };
    const uint32_t rows_of_accumulation = accumulation == kNoNode ? 0xFFFFFFFFu : row_of(accumulation);
    const uint64_t heap_retained = dom.retained_size(kSuperRoot);
    for (size_t r = 0; r < row_count; ++r) {
        SuspectGroup& row = rows[r];
        if (row.objects == 0) continue;
        const bool low = (r & 1) != 0;
        const uint32_t g = static_cast<uint32_t>(r / 2);
        if (g == bad_group) {
            row.type = "?";
        } else {
            row.type = std::string(name_of(group_first_type[g]));
            row.module = std::string(s.strings.view(s.types[group_first_type[g]].module));
        }
        row.confidence = low ? SuspectConfidence::Low : SuspectConfidence::High;
        const std::string of_type = " of type " + row.type;
        const bool noise_row = low && (row.kinds & (kSuspectUnexplainedSurplus | kSuspectUnreachable));
        double score = 0;

        if (row.kinds & kSuspectUnexplainedSurplus) {
            const uint64_t k = row.surplus_objects;
            row.reasons.push_back(
                objects_text(k) + of_type + (k == 1 ? " has " : " have ") +
                count_text(static_cast<uint64_t>(row.unexplained_references)) +
                (row.unexplained_references == 1 ? " reference" : " references") +
                " nobody in the graph accounts for (a C/C++ holder or a refcount leak); " +
                (k == 1 ? "it retains " : "they retain ") + human_bytes(row_bytes[r].surplus_retained));
            // +2: a proven defect (a reference nobody accounts for) of one
            // object outranks the statistical growth of a handful.
            score += 8 * (kProofBonus + magnitude(k, row_bytes[r].surplus_retained));
        }
        if (row.kinds & kSuspectUnreachable) {
            const Mode& m = holders[r];
            row.holder = m.value;
            row.holder_objects = m.occurrences;
            row.holder_count = m.distinct;
            const uint64_t k = row.unreachable_objects;
            std::string text = objects_text(k) + of_type + (k == 1 ? " has" : " have") +
                               " no path from any root; " + (k == 1 ? "it is" : "they are") +
                               " kept alive by ";
            if (m.distinct > 1) {
                text += count_text(m.distinct) + " holders, most (" + count_text(m.occurrences) +
                        ") by ";
            }
            const uint32_t hc = cycles.cycle_of(m.value);
            if (hc != kNoCycle && uncollectable(cycles.info(hc).fate)) {
                text += "an uncollectable cycle (" + std::string(cycle_fate_name(cycles.info(hc).fate)) +
                        ") of " + objects_text(cycles.info(hc).members) + " containing " +
                        describe_node(s, m.value);
            } else {
                const int64_t refs = in.roots->unexplained(m.value);
                text += describe_node(s, m.value) + " (unexplained refcount surplus, " +
                        count_text(static_cast<uint64_t>(refs)) + (refs == 1 ? " reference)" : " references)");
            }
            row.reasons.push_back(std::move(text));
            score += 4 * magnitude(k, row_bytes[r].unreachable_shallow);
        }
        if (row.kinds & kSuspectUncollectableCycle) {
            const uint64_t k = row.cycle_objects;
            std::string explanation = cycles.explain(row.cycle);
            constexpr std::string_view prefix = "uncollectable: ";
            if (explanation.starts_with(prefix)) explanation.erase(0, prefix.size());
            row.reasons.push_back(objects_text(k) + of_type + (k == 1 ? " is" : " are") + " in " +
                                  count_text(row.cycle_count) +
                                  (row.cycle_count == 1 ? " uncollectable cycle" : " uncollectable cycles") +
                                  " (" + human_bytes(row_bytes[r].cycle_shallow) + " of them)" +
                                  (row.cycle_count == 1 ? ": " : "; the largest: ") + explanation);
            score += 10 * (kProofBonus + magnitude(k, row_bytes[r].cycle_shallow));
        }
        if (row.kinds & kSuspectGrowth) {
            const TypeDelta& d = *delta_of_group[g];
            row.growth_objects = d.object_delta();
            row.growth_bytes = d.byte_delta();
            row.objects_before = d.objects_a;
            const std::string bytes = d.byte_delta() >= 0
                                          ? "+" + human_bytes(static_cast<uint64_t>(d.byte_delta()))
                                          : "-" + human_bytes(static_cast<uint64_t>(-d.byte_delta()));
            row.reasons.push_back(row.type + " grew by " + objects_text(static_cast<uint64_t>(d.object_delta())) +
                                  " (" + bytes + ") since the baseline (" + count_text(d.objects_a) +
                                  " → " + count_text(d.objects_b) + "); " + count_text(row.new_objects) +
                                  (row.new_objects == 1 ? " is new" : " are new"));
            // A builtin container growing is usually a symptom; the type
            // that names the leak is a class of the program.
            const double weight = interpreter_type[group_first_type_or_bad(g)] ? 2.5 : 5.0;
            score += weight * magnitude(static_cast<uint64_t>(d.object_delta()),
                                   static_cast<uint64_t>(std::max<int64_t>(d.byte_delta(), 0)));
        }
        if (row.kinds & kSuspectSurvivor) {
            const uint64_t k = row.survivor_objects;
            row.reasons.push_back(objects_text(k) + of_type + " (" + human_bytes(row.survivor_bytes) +
                                  ") allocated between snapshots 1 and 2 " +
                                  (k == 1 ? "is" : "are") + " still alive in snapshot 3");
            score += 8 * magnitude(k, row.survivor_bytes);
        }
        if (row.kinds & kSuspectLargeRetained) {
            const uint64_t k = row.large_objects;
            const bool accumulates = accumulation != kNoNode && rows_of_accumulation == r;
            const uint64_t retained = accumulates ? dom.retained_size(accumulation) : row.largest_retained;
            const double share = heap_retained == 0 ? 0.0
                                                    : 100.0 * static_cast<double>(retained) /
                                                          static_cast<double>(heap_retained);
            char percent[32];
            if (share > 0 && share < 1) {
                std::snprintf(percent, sizeof percent, "<1%%");
            } else {
                std::snprintf(percent, sizeof percent, "%.0f%%", share);
            }
            if (accumulates) {
                row.accumulation_node = accumulation;
                row.accumulated_objects = accumulated;
                row.reasons.push_back(describe_node(s, accumulation) + " holds " + count_text(accumulated) +
                                      " of the " + count_text(accumulated_total) +
                                      (in.diff ? " new" : " surviving") +
                                      " objects: the growth accumulates there; it retains " +
                                      human_bytes(retained) + " (" + percent + " of the heap)");
                // Below the grown type's own row (weight 5): the type names
                // the leak, the container says where to look.
                score += 4 * magnitude(accumulated, retained);
            } else {
                row.reasons.push_back(objects_text(k) + of_type + (k == 1 ? " is" : " are") +
                                      " among the " + count_text(options.top_retained) +
                                      " largest retainers; " + (k == 1 ? "it retains " : "the largest retains ") +
                                      human_bytes(retained) + " (" + percent + " of the heap)");
                score += magnitude(k, retained);
            }
        }
        if (noise_row) {
            row.reasons.front() += " — probably the interpreter's own C statics (interned strings, "
                                  "static types, module state)";
        }
        if (low) score *= 0.1;
        row.score = std::round(score * 100.0) / 100.0;  // stable when printed
        for (size_t i = 0; i < row.reasons.size(); ++i) {
            if (i) row.reason += "; ";
            row.reason += row.reasons[i];
        }
    }

    // --- Order, and the per-node column (high-confidence rows only). ---
    for (size_t r = 0; r < row_count; ++r) {
        if (rows[r].objects == 0) continue;
        if ((r & 1) && !options.include_low_confidence) continue;
        groups_.push_back(std::move(rows[r]));
    }
    std::sort(groups_.begin(), groups_.end(), [](const SuspectGroup& a, const SuspectGroup& b) {
        if (a.confidence != b.confidence) return a.confidence < b.confidence;
        if (a.score != b.score) return a.score > b.score;
        if (a.objects != b.objects) return a.objects > b.objects;
        if (a.type != b.type) return a.type < b.type;
        return a.representative < b.representative;
    });
    for (const SuspectGroup& g : groups_) {
        if (g.confidence == SuspectConfidence::High) ++high_count_;
    }
    for (uint32_t n = 0; n < n_nodes; ++n) {
        if (kinds[n]) kinds[n] = row_of(n) & 1 ? 0 : kinds[n];
    }
}

const SuspectGroup* LeakSuspects::find(std::string_view type) const {
    for (const SuspectGroup& g : groups_) {
        if (g.type == type) return &g;
    }
    return nullptr;
}

}  // namespace refscope::analysis

// Snapshot diff and the three-snapshot technique (snapshot_diff.h).
#include "refscope/analysis/snapshot_diff.h"

#include <algorithm>
#include <bit>
#include <string_view>
#include <unordered_map>

namespace refscope::analysis {

namespace {

// Type names shared by several snapshots: each snapshot's type ids map to one
// common numbering of names, so that "same type" is an integer compare in the
// per-node loops. One extra slot per snapshot maps out-of-range type ids to
// the name "?". The map is per type, not per node: a few thousand entries.
class SharedTypeNames {
public:
    explicit SharedTypeNames(std::initializer_list<const Snapshot*> snapshots) {
        std::unordered_map<std::string_view, uint32_t> ids;
        const auto id_of = [&](std::string_view name) {
            if (name.empty()) name = "?";
            const auto [it, added] = ids.emplace(name, static_cast<uint32_t>(names_.size()));
            if (added) names_.push_back(name);
            return it->second;
        };
        for (const Snapshot* s : snapshots) {
            std::vector<uint32_t> table;
            table.reserve(s->types.size() + 1);
            for (const TypeInfo& t : s->types) table.push_back(id_of(s->strings.view(t.name)));
            table.push_back(id_of("?"));
            of_.push_back(std::move(table));
        }
    }
    // Shared name id of node `node` of the `which`-th snapshot.
    uint32_t of(size_t which, const Snapshot& s, uint32_t node) const {
        const std::vector<uint32_t>& table = of_[which];
        const uint32_t type = s.node_type[node];
        return type + 1 < table.size() ? table[type] : table.back();
    }
    size_t size() const { return names_.size(); }
    std::string_view name(uint32_t id) const { return names_[id]; }

private:
    std::vector<std::string_view> names_;  // views into the snapshots' string tables
    std::vector<std::vector<uint32_t>> of_;
};

// Module names shared by several snapshots, per node as module_name() has
// it (descriptions.h): the type's module, except that a module object belongs
// to itself (its preview is its name). Per type id, one table entry; module
// objects, a few hundred, go through a map of their preview string ids.
class SharedModuleNames {
public:
    explicit SharedModuleNames(std::initializer_list<const Snapshot*> snapshots) {
        for (const Snapshot* s : snapshots) {
            PerSnapshot table;
            table.of_type.reserve(s->types.size() + 1);
            table.is_module_type.reserve(s->types.size() + 1);
            for (const TypeInfo& t : s->types) {
                table.of_type.push_back(id_of(s->strings.view(t.module)));
                table.is_module_type.push_back(s->strings.view(t.name) == "module" ? 1 : 0);
            }
            table.of_type.push_back(id_of({}));
            table.is_module_type.push_back(0);
            of_.push_back(std::move(table));
        }
    }
    // Module objects are named on first sight (no pass of their own over
    // millions of nodes to find a few hundred modules).
    uint32_t of(size_t which, const Snapshot& s, uint32_t node) {
        PerSnapshot& table = of_[which];
        const uint32_t type = std::min<uint32_t>(s.node_type[node], table.of_type.size() - 1);
        const uint32_t preview = s.node_preview[node];
        if (!table.is_module_type[type] || preview == 0) return table.of_type[type];
        const auto found = table.of_module_object.find(preview);
        if (found != table.of_module_object.end()) return found->second;
        const uint32_t id = id_of(s.strings.view(preview));
        table.of_module_object.emplace(preview, id);
        return id;
    }
    size_t size() const { return names_.size(); }
    std::string_view name(uint32_t id) const { return names_[id]; }

private:
    struct PerSnapshot {
        std::vector<uint32_t> of_type;
        std::vector<uint8_t> is_module_type;
        std::unordered_map<uint32_t, uint32_t> of_module_object;
    };
    uint32_t id_of(std::string_view name) {
        const auto [it, added] = ids_.emplace(name, static_cast<uint32_t>(names_.size()));
        if (added) names_.push_back(name);
        return it->second;
    }
    std::unordered_map<std::string_view, uint32_t> ids_;
    std::vector<std::string_view> names_;  // views into the snapshots' string tables
    std::vector<PerSnapshot> of_;
};

// The changed entries of `deltas` named by `names`, sorted as SnapshotDiff
// lists them: largest byte growth first, then object growth, then name.
template <typename Names>
std::vector<TypeDelta> changed_deltas(std::vector<TypeDelta>& deltas, const Names& names) {
    std::vector<TypeDelta> out;
    for (uint32_t id = 0; id < deltas.size(); ++id) {
        TypeDelta& t = deltas[id];
        if (t.objects_a == t.objects_b && t.bytes_a == t.bytes_b && t.new_objects == 0 &&
            t.freed_objects == 0) {
            continue;
        }
        t.name = std::string(names.name(id));
        out.push_back(std::move(t));
    }
    std::sort(out.begin(), out.end(), [](const TypeDelta& x, const TypeDelta& y) {
        if (x.byte_delta() != y.byte_delta()) return x.byte_delta() > y.byte_delta();
        if (x.object_delta() != y.object_delta()) return x.object_delta() > y.object_delta();
        return x.name < y.name;
    });
    return out;
}

// How far ahead inserts and lookups prefetch their home slot: enough to cover a memory
// latency at a few nanoseconds of work per node.
constexpr uint32_t kPrefetchAhead = 16;

// Open addressing (linear probing) over the nodes of one snapshot, hashed by
// address. A slot carries the key itself (address and shared type-name id) so
// that a lookup touches one cache line, not three columns; lookups over a whole
// snapshot also prefetch a few nodes ahead. 16 bytes a slot at a load of at
// most 0.75: about 270 MB for 10M nodes, freed as soon as the match is done.
//
// A matched slot is claimed (top bit of its type word) and never matches
// again, so duplicate keys (a corrupt snapshot) pair up one to one, in node
// order, instead of one old object matching two new ones.
class AddressTable {
public:
    AddressTable(const Snapshot& s, const SharedTypeNames& names, size_t which) {
        const size_t n = s.node_count();
        const size_t capacity = std::bit_ceil(std::max<size_t>(16, n + n / 3 + 1));
        shift_ = 64 - std::countr_zero(capacity);
        mask_ = capacity - 1;
        slots_.assign(capacity, Slot{});
        for (uint32_t node = 0; node < n; ++node) {
            if (node + kPrefetchAhead < n) prefetch(s.node_address[node + kPrefetchAhead]);
            const uint64_t address = s.node_address[node];
            size_t slot = home(address);
            while (slots_[slot].node != kNoNode) slot = (slot + 1) & mask_;
            slots_[slot] = {address, node, names.of(which, s, node)};
        }
    }

    void prefetch(uint64_t address) const { __builtin_prefetch(&slots_[home(address)]); }

    // Claims and returns the first unclaimed node with this address and
    // shared type-name id, or kNoNode.
    uint32_t claim(uint64_t address, uint32_t type_name) {
        for (size_t slot = home(address);; slot = (slot + 1) & mask_) {
            Slot& s = slots_[slot];
            if (s.node == kNoNode) return kNoNode;
            if (s.address == address && s.type_name == type_name) {
                s.type_name |= kClaimed;
                return s.node;
            }
        }
    }

private:
    static constexpr uint32_t kClaimed = 0x80000000u;
    struct Slot {
        uint64_t address = 0;
        uint32_t node = kNoNode;
        uint32_t type_name = 0;  // shared name id; kClaimed once matched
    };

    size_t home(uint64_t address) const {
        // Fibonacci hashing: objects are 8- or 16-byte aligned and allocated
        // in runs, so the low bits alone would cluster badly.
        return static_cast<size_t>((address * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
    }

    int shift_ = 0;
    size_t mask_ = 0;
    std::vector<Slot> slots_;
};

// The shared type-name id of "tuple", or kNoNode when no snapshot has one.
uint32_t tuple_name(const SharedTypeNames& names) {
    for (uint32_t id = 0; id < names.size(); ++id)
        if (names.name(id) == "tuple") return id;
    return kNoNode;
}

// Edges are grouped by source: node i's are [first[i], first[i + 1]). Empty
// when `wanted` is false (no tuples to compare).
std::vector<uint32_t> first_edges(const Snapshot& s, bool wanted) {
    if (!wanted) return {};
    if (!s.edge_first.empty()) return s.edge_first;  // read, walked or analysed: the same, counted
    std::vector<uint32_t> first(s.node_count() + 1, 0);
    for (const uint32_t source : s.edge_source)
        if (source < s.node_count()) ++first[source + 1];
    for (size_t i = 1; i < first.size(); ++i) first[i] += first[i - 1];
    return first;
}

// Tuples cannot change: a tuple at an address a tuple of the older snapshot
// had, holding other objects, is another tuple (CPython's free lists hand the
// same addresses out again and again: an lru_cache's keys, *args). Reads
// each snapshot's first_edges, built once per snapshot by the caller.
class TupleContents {
public:
    TupleContents(const Snapshot& older, const std::vector<uint32_t>& older_first, const Snapshot& newer,
                  const std::vector<uint32_t>& newer_first, uint32_t tuple)
        : older_(older), newer_(newer), older_first_(older_first), newer_first_(newer_first), tuple_(tuple) {}

    // Node `o` of the older snapshot and node `n` of the newer one, of the
    // shared type-name id `type`, hold different objects.
    bool differ(uint32_t o, uint32_t n, uint32_t type) const {
        if (type != tuple_) return false;
        const uint32_t ob = older_first_[o], oe = older_first_[o + 1];
        const uint32_t nb = newer_first_[n], ne = newer_first_[n + 1];
        if (oe - ob != ne - nb) return true;
        for (uint32_t i = 0; i < oe - ob; ++i) {
            const uint32_t ot = older_.edge_target[ob + i], nt = newer_.edge_target[nb + i];
            if (ot >= older_.node_count() || nt >= newer_.node_count() ||
                older_.node_address[ot] != newer_.node_address[nt])
                return true;
        }
        return false;
    }

private:
    const Snapshot& older_;
    const Snapshot& newer_;
    const std::vector<uint32_t>& older_first_;
    const std::vector<uint32_t>& newer_first_;
    uint32_t tuple_;
};

std::string join_argv(const std::vector<std::string>& argv) {
    std::string out;
    for (const std::string& arg : argv) {
        if (!out.empty()) out += ' ';
        out += arg;
    }
    return out;
}

}  // namespace

std::string describe_process(const Snapshot& s) {
    std::string what = join_argv(s.header.argv);
    if (what.empty()) what = s.header.executable;
    if (what.empty()) what = "unknown program";
    return "pid " + std::to_string(s.header.pid) + " (" + what + ")";
}

void check_snapshot_order(const Snapshot& older, const Snapshot& newer) {
    const SnapshotHeader& a = older.header;
    const SnapshotHeader& b = newer.header;
    if (a.pid != b.pid || a.executable != b.executable) {
        throw SnapshotMismatchError(SnapshotMismatchError::Reason::DifferentProcesses,
                                    "snapshots come from different processes: " +
                                        describe_process(older) + " vs " + describe_process(newer));
    }
    if (a.sequence != 0 && b.sequence != 0) {
        if (a.sequence == b.sequence) {
            throw SnapshotMismatchError(
                SnapshotMismatchError::Reason::WrongOrder,
                "both files are snapshot #" + std::to_string(a.sequence) + " of " + describe_process(older) +
                    ": the same snapshot given twice? give two different snapshots, the older first");
        }
        if (a.sequence > b.sequence) {
            throw SnapshotMismatchError(
                SnapshotMismatchError::Reason::WrongOrder,
                "snapshots are out of order: snapshot #" + std::to_string(a.sequence) +
                    " is given before snapshot #" + std::to_string(b.sequence) + " of " +
                    describe_process(older) + "; give the older snapshot first");
        }
    } else if (a.sequence == 0 && b.sequence == 0 && a.time_unix_ns != 0 && b.time_unix_ns != 0 &&
               a.time_unix_ns > b.time_unix_ns) {
        throw SnapshotMismatchError(SnapshotMismatchError::Reason::WrongOrder,
                                    "snapshots are out of order: the first was taken after the "
                                    "second (" +
                                        describe_process(older) +
                                        "); give the older snapshot first");
    }
}

SnapshotDiff diff_snapshots(const Snapshot& a, const Snapshot& b, const DiffOptions& options) {
    if (!options.allow_mismatch) check_snapshot_order(a, b);
    const SharedTypeNames names{&a, &b};
    SharedModuleNames modules{&a, &b};
    const uint32_t na = static_cast<uint32_t>(a.node_count());
    const uint32_t nb = static_cast<uint32_t>(b.node_count());

    std::vector<TypeDelta> per_type(names.size());
    std::vector<TypeDelta> per_module(modules.size());
    const auto module_delta = [&](size_t which, const Snapshot& s, uint32_t node) -> TypeDelta& {
        const uint32_t id = modules.of(which, s, node);
        if (id >= per_module.size()) per_module.resize(id + 1);  // a module object seen first
        return per_module[id];
    };
    SnapshotDiff diff;
    DiffTotals& totals = diff.totals;
    for (uint32_t n = 0; n < na; ++n) {
        for (TypeDelta* t : {&per_type[names.of(0, a, n)], &module_delta(0, a, n)}) {
            ++t->objects_a;
            t->bytes_a += a.node_size[n];
        }
        totals.bytes_a += a.node_size[n];
    }
    totals.objects_a = na;
    totals.objects_b = nb;

    std::vector<uint8_t> matched(na, 0);
    diff.is_new.assign(nb, 0);
    {
        AddressTable table(a, names, 0);
        const uint32_t tuple = tuple_name(names);
        const std::vector<uint32_t> edges_of_a = first_edges(a, tuple != kNoNode);
        const std::vector<uint32_t> edges_of_b = first_edges(b, tuple != kNoNode);
        const TupleContents tuples(a, edges_of_a, b, edges_of_b, tuple);
        for (uint32_t n = 0; n < nb; ++n) {
            if (n + kPrefetchAhead < nb) table.prefetch(b.node_address[n + kPrefetchAhead]);
            const uint32_t type = names.of(1, b, n);
            uint32_t m = table.claim(b.node_address[n], type);
            if (m != kNoNode && tuples.differ(m, n, type)) m = kNoNode;  // the old one was freed
            const bool is_new = m == kNoNode;
            for (TypeDelta* t : {&per_type[type], &module_delta(1, b, n)}) {
                ++t->objects_b;
                t->bytes_b += b.node_size[n];
                if (is_new) {
                    ++t->new_objects;
                    t->new_bytes += b.node_size[n];
                }
            }
            totals.bytes_b += b.node_size[n];
            if (!is_new) {
                matched[m] = 1;
                ++totals.matched;
            } else {
                diff.is_new[n] = 1;
                diff.new_nodes.push_back(n);
                ++totals.new_objects;
                totals.new_bytes += b.node_size[n];
            }
        }
    }
    for (uint32_t n = 0; n < na; ++n) {
        if (matched[n]) continue;
        for (TypeDelta* t : {&per_type[names.of(0, a, n)], &module_delta(0, a, n)}) {
            ++t->freed_objects;
            t->freed_bytes += a.node_size[n];
        }
        diff.freed_nodes.push_back(n);
        ++totals.freed_objects;
        totals.freed_bytes += a.node_size[n];
    }

    diff.types = changed_deltas(per_type, names);
    diff.modules = changed_deltas(per_module, modules);
    return diff;
}

SurvivorReport find_survivors(const Snapshot& first, const Snapshot& second, const Snapshot& third,
                              const DiffOptions& options) {
    if (!options.allow_mismatch) {
        check_snapshot_order(first, second);
        check_snapshot_order(second, third);
    }
    const SharedTypeNames names{&first, &second, &third};
    const uint32_t n2 = static_cast<uint32_t>(second.node_count());
    const uint32_t n3 = static_cast<uint32_t>(third.node_count());

    SurvivorReport report;
    const uint32_t tuple = tuple_name(names);
    const std::vector<uint32_t> edges_of_1 = first_edges(first, tuple != kNoNode);
    const std::vector<uint32_t> edges_of_2 = first_edges(second, tuple != kNoNode);
    const std::vector<uint32_t> edges_of_3 = first_edges(third, tuple != kNoNode);
    // new_in_second[n]: node n of snapshot 2 has no match in snapshot 1.
    std::vector<uint8_t> new_in_second(n2, 0);
    {
        AddressTable table(first, names, 0);
        const TupleContents tuples(first, edges_of_1, second, edges_of_2, tuple);
        for (uint32_t n = 0; n < n2; ++n) {
            if (n + kPrefetchAhead < n2) table.prefetch(second.node_address[n + kPrefetchAhead]);
            const uint32_t type = names.of(1, second, n);
            const uint32_t m = table.claim(second.node_address[n], type);
            if (m == kNoNode || tuples.differ(m, n, type)) {
                new_in_second[n] = 1;
                ++report.allocated_between;
            }
        }
    }

    std::vector<SurvivorGroup> per_type(names.size());
    report.is_survivor.assign(n3, 0);
    {
        AddressTable table(second, names, 1);
        const TupleContents tuples(second, edges_of_2, third, edges_of_3, tuple);
        for (uint32_t n = 0; n < n3; ++n) {
            if (n + kPrefetchAhead < n3) table.prefetch(third.node_address[n + kPrefetchAhead]);
            const uint32_t type = names.of(2, third, n);
            const uint32_t m = table.claim(third.node_address[n], type);
            if (m == kNoNode || !new_in_second[m] || tuples.differ(m, n, type)) continue;
            report.is_survivor[n] = 1;
            report.survivors.push_back(n);
            report.survivor_bytes += third.node_size[n];
            ++per_type[type].objects;
            per_type[type].bytes += third.node_size[n];
        }
    }
    report.freed_again = report.allocated_between - report.survivors.size();

    for (uint32_t id = 0; id < per_type.size(); ++id) {
        if (per_type[id].objects == 0) continue;
        per_type[id].type = std::string(names.name(id));
        report.groups.push_back(std::move(per_type[id]));
    }
    std::sort(report.groups.begin(), report.groups.end(),
              [](const SurvivorGroup& x, const SurvivorGroup& y) {
                  if (x.bytes != y.bytes) return x.bytes > y.bytes;
                  if (x.objects != y.objects) return x.objects > y.objects;
                  return x.type < y.type;
              });
    return report;
}

}  // namespace refscope::analysis

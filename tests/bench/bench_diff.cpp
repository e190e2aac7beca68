// Speed check for the snapshot diff, the three-snapshot survivors and the
// filter (not a test): three snapshots of one simulated process, 10M objects
// each by default, with objects freed, allocated, resized and addresses
// reused by other types between them; then filter queries over the second.
//
//   bench_diff [NODES]      (default 10000000)
//
// Prints wall times and peak RSS (VmHWM); there is no pass or fail.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "bench_measure.h"
#include "refscope/analysis/filter_query.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/analysis/snapshot_diff.h"

namespace {

using namespace refscope;
using namespace refscope::bench;



// A small deterministic generator (splitmix64).
struct Random {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
};

constexpr const char* kTypeNames[] = {"dict",     "list",      "str",      "tuple",  "int",
                                      "app.Node", "app.Leaky", "function", "module", "bytes"};
constexpr uint32_t kTypes = 10;

Snapshot empty_snapshot(uint64_t sequence, bool shuffle_types) {
    Snapshot s;
    s.header.pid = 4242;
    s.header.executable = "/usr/bin/python3";
    s.header.argv = {"python3", "app.py"};
    s.header.sequence = sequence;
    // Type ids differ between snapshots (the second lists types backwards), as
    // they do for real: the diff must go through names.
    for (uint32_t i = 0; i < kTypes; ++i) {
        const uint32_t t = shuffle_types ? kTypes - 1 - i : i;
        s.types.push_back({s.strings.add(kTypeNames[t]), s.strings.add("app"), 0});
    }
    return s;
}

uint32_t type_id(const Snapshot& s, uint32_t name_index) {
    return s.types.size() == kTypes && s.strings.view(s.types[0].name) == kTypeNames[0]
               ? name_index
               : kTypes - 1 - name_index;
}

void reserve(Snapshot& s, size_t n) {
    s.node_address.reserve(n);
    s.node_type.reserve(n);
    s.node_size.reserve(n);
    s.node_refcount.reserve(n);
    s.node_flags.reserve(n);
    s.node_preview.reserve(n);
}

// Addresses: slot k at 0x7f0000000000 + 64 k. The first snapshot uses a
// scrambled order of slots so that node order and address order disagree.
Snapshot first_snapshot(uint32_t nodes) {
    Snapshot s = empty_snapshot(1, false);
    reserve(s, nodes);
    for (uint32_t n = 0; n < nodes; ++n) {
        const uint64_t slot = (uint64_t{n} * 2654435761u) & 0xFFFFFFu;  // bijection below 2^24
        const uint32_t name = n % kTypes;
        s.add_node(0x7f0000000000ull + 64 * slot, type_id(s, name), 32 + (n % 13) * 8, 1,
                   format::kNodeGcTracked, 0);
    }
    return s;
}

// The next snapshot: 5% of objects freed, 2% resized, 5% allocated at fresh
// addresses, and half a percent of the freed addresses reused by another type.
Snapshot next_snapshot(const Snapshot& prev, uint64_t sequence, uint64_t& fresh_slot,
                       Random& random) {
    Snapshot s = empty_snapshot(sequence, sequence % 2 == 0);
    const uint32_t n_prev = static_cast<uint32_t>(prev.node_count());
    reserve(s, n_prev + n_prev / 10);
    // prev's type id -> index in kTypeNames.
    std::vector<uint32_t> name_of(prev.types.size(), 0);
    for (size_t t = 0; t < prev.types.size(); ++t) {
        for (uint32_t k = 0; k < kTypes; ++k) {
            if (prev.strings.view(prev.types[t].name) == kTypeNames[k]) name_of[t] = k;
        }
    }
    for (uint32_t n = 0; n < n_prev; ++n) {
        const uint32_t roll = random.below(1000);
        const uint32_t prev_name = name_of[prev.node_type[n]];
        if (roll < 50) {
            if (roll < 5) {  // reused by another type
                s.add_node(prev.node_address[n], type_id(s, (prev_name + 1) % kTypes), 64, 1,
                           format::kNodeGcTracked, 0);
            }
            continue;
        }
        const uint64_t size = roll < 70 ? prev.node_size[n] + 16 : prev.node_size[n];
        s.add_node(prev.node_address[n], type_id(s, prev_name), size, 1, prev.node_flags[n], 0);
    }
    for (uint32_t k = 0; k < n_prev / 20; ++k) {
        const uint32_t name = random.below(kTypes);
        s.add_node(0x7f0000000000ull + 64 * fresh_slot++, type_id(s, name), 48, 1,
                   random.below(4) == 0 ? 0 : format::kNodeGcTracked, 0);
    }
    return s;
}

// Edges for the filter's analysis columns: chains of 1000 and a random
// reference per object; refcounts set to owned in-edges plus, for one object
// in 500, one unexplained reference.
void add_edges(Snapshot& s, Random& random) {
    const uint32_t nodes = static_cast<uint32_t>(s.node_count());
    constexpr uint8_t kOwned = format::kEdgeOwned | format::kEdgeGcVisible;
    std::vector<int64_t> refcount(nodes, 0);
    for (uint32_t n = 0; n < nodes; ++n) {
        if (n % 1000 != 999 && n + 1 < nodes) {
            s.add_edge(n, n + 1, format::EdgeKind::Attribute, kOwned, 0);
            ++refcount[n + 1];
        }
        const uint32_t target = random.below(nodes);
        s.add_edge(n, target, format::EdgeKind::Reference, kOwned, 0);
        ++refcount[target];
    }
    for (uint32_t n = 0; n < nodes; ++n) {
        s.node_refcount[n] = refcount[n] + (n % 500 == 0 ? 1 : 0);
    }
    for (uint32_t n = 0; n < nodes; n += 1000) {
        if (n % 3000 != 0) s.roots.push_back({n, format::RootKind::Interpreter, kNoNode, 0, 1});
    }
}

}  // namespace

int main(int argc, char** argv) {
    const uint32_t nodes =
        argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 10'000'000;
    Random random{7};
    uint64_t fresh_slot = 1ull << 24;

    auto start = Clock::now();
    const Snapshot s1 = first_snapshot(nodes);
    Snapshot s2 = next_snapshot(s1, 2, fresh_slot, random);
    const Snapshot s3 = next_snapshot(s2, 3, fresh_slot, random);
    std::printf("build three snapshots: %zu / %zu / %zu nodes  %.2f s\n", s1.node_count(),
                s2.node_count(), s3.node_count(), seconds_since(start));

    start = Clock::now();
    const analysis::SnapshotDiff diff = analysis::diff_snapshots(s1, s2);
    std::printf("diff 1 -> 2: %.3f s  (matched %llu, new %llu, freed %llu, %zu changed types)\n",
                seconds_since(start), static_cast<unsigned long long>(diff.totals.matched),
                static_cast<unsigned long long>(diff.totals.new_objects),
                static_cast<unsigned long long>(diff.totals.freed_objects), diff.types.size());

    start = Clock::now();
    const analysis::SurvivorReport survivors = analysis::find_survivors(s1, s2, s3);
    std::printf(
        "survivors 1,2,3: %.3f s  (allocated between %llu, survivors %zu, freed again %llu)\n",
        seconds_since(start), static_cast<unsigned long long>(survivors.allocated_between),
        survivors.survivors.size(), static_cast<unsigned long long>(survivors.freed_again));

    start = Clock::now();
    add_edges(s2, random);
    std::printf("edges for snapshot 2: %zu  %.2f s\n", s2.edge_count(), seconds_since(start));
    start = Clock::now();
    const analysis::GraphIndex index(s2);
    const analysis::RootClasses roots(index);
    const analysis::RetentionPaths paths(index, roots);
    std::printf("index + roots + paths (not this work): %.2f s\n", seconds_since(start));

    analysis::FilterContext context;
    context.snapshot = &s2;
    context.index = &index;
    context.roots = &roots;
    context.paths = &paths;
    context.is_new = diff.is_new;
    const char* queries[] = {
        "type:app.Leaky",
        "type:app.* size>100",
        "size>=1KiB OR refcount>3",
        "new -tracked",
        "unexplained>0",
        "surplus>0 unreachable",
        "type:app.* (new OR distance>5) -type:app.Node referrers>=2",
        "module:app -(type:dict OR type:list) size<100 refcount!=1",
    };
    for (const char* text : queries) {
        start = Clock::now();
        const analysis::CompiledFilter filter(analysis::parse_filter(text), context);
        const double compile = seconds_since(start);
        start = Clock::now();
        const uint64_t count = filter.count();
        const double evaluate = seconds_since(start);
        start = Clock::now();
        const std::vector<uint32_t> selected = filter.select();
        const double select = seconds_since(start);
        std::printf("filter %-60s compile %.4f s  count %.3f s  select %.3f s  -> %llu\n", text,
                    compile, evaluate, select, static_cast<unsigned long long>(count));
        if (selected.size() != count) std::printf("  MISMATCH select %zu\n", selected.size());
    }
    std::printf("peak RSS: %ld MiB\n", peak_rss_mib());
    return 0;
}

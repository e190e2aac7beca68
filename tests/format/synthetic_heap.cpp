// A synthetic heap-shaped snapshot for size and speed measurements. The
// numbers mimic what a CPython walk of an application heap produces; they
// are guesses until real probe output replaces them (tests/bench).
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>

#include "test_support.h"

namespace refscope::testing {

namespace {

// Kinds of objects with their typical shallow size and out-degree shape.
enum class Shape { Str, Int, Tuple, List, Dict, Instance, Function, Type, Other };

struct TypeModel {
    const char* name;
    Shape shape;
    double weight;  // share of the heap (skewed: a handful dominate)
};

constexpr std::array<TypeModel, 12> kTypes = {{
    {"str", Shape::Str, 0.24},
    {"dict", Shape::Dict, 0.12},
    {"tuple", Shape::Tuple, 0.14},
    {"int", Shape::Int, 0.08},
    {"app.Record", Shape::Instance, 0.18},
    {"list", Shape::List, 0.06},
    {"function", Shape::Function, 0.05},
    {"code", Shape::Other, 0.04},
    {"cell", Shape::Other, 0.03},
    {"float", Shape::Int, 0.03},
    {"type", Shape::Type, 0.005},
    {"weakref", Shape::Other, 0.025},
}};

}  // namespace

// A fresh arena may land on an earlier one, and then objects on objects;
// readers refuse two objects at one address (docs/format.md). The few that
// collide move by 8 bytes until they are alone, so the heap's shape (and the
// format's measurements on it) stays what it was.
static void make_addresses_unique(std::vector<uint64_t>& addresses) {
    std::vector<std::pair<uint64_t, size_t>> sorted(addresses.size());
    for (size_t i = 0; i < addresses.size(); ++i) sorted[i] = {addresses[i], i};
    std::sort(sorted.begin(), sorted.end());
    std::vector<size_t> moved;
    for (size_t i = 1; i < sorted.size(); ++i)
        if (sorted[i].first == sorted[i - 1].first) moved.push_back(sorted[i].second);
    if (moved.empty()) return;
    std::vector<uint64_t> taken;
    taken.reserve(sorted.size());
    for (const auto& entry : sorted) taken.push_back(entry.first);
    for (const size_t i : moved) {
        uint64_t address = addresses[i];
        while (std::binary_search(taken.begin(), taken.end(), address)) address += 8;
        addresses[i] = address;
        taken.insert(std::upper_bound(taken.begin(), taken.end(), address), address);
    }
}

Snapshot make_synthetic_heap(size_t nodes, uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto uniform = [&](uint64_t n) { return n ? rng() % n : 0; };
    auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
    std::geometric_distribution<int> small_count(0.35);

    Snapshot s;
    s.header.probe_version = "0.1.0";
    s.header.python_version = "3.12.1";
    s.header.python_hexversion = 0x030C01F0;
    s.header.platform = "linux x86_64";
    s.header.pid = 1234;
    s.header.argv = {"bench.py"};

    // Types: the common ones plus a long tail of application classes.
    const uint32_t builtins = s.strings.add("builtins");
    const uint32_t app = s.strings.add("app");
    std::vector<double> weights;
    for (const auto& t : kTypes) {
        s.types.push_back(
            {s.strings.add(t.name), builtins, 0x7f00'0000'0000 + 0x1000 * s.types.size()});
        weights.push_back(t.weight);
    }
    for (int i = 0; i < 300; ++i) {
        s.types.push_back({s.strings.add("app.Class" + std::to_string(i)), app,
                           0x5555'0000'0000 + 0x400 * static_cast<uint64_t>(i)});
        weights.push_back(0.02 / (1 + i));  // Zipf-like tail
    }
    std::discrete_distribution<uint32_t> pick_type(weights.begin(), weights.end());

    // Attribute names: a few hundred interned strs that many objects share.
    std::vector<uint32_t> attr_names;

    // Addresses: 1 MiB arenas of 16 KiB pools; the walk visits objects in
    // gc-list and referent order, which mostly stays within a pool for a
    // while and then jumps to another arena.
    std::vector<uint64_t> cursors;
    for (int i = 0; i < 64; ++i) cursors.push_back(0x7f3a'0000'0000 + (uniform(4096) << 20));
    size_t cursor = 0;

    s.node_address.reserve(nodes);
    std::vector<Shape> shapes;
    shapes.reserve(nodes);
    for (size_t i = 0; i < nodes; ++i) {
        const uint32_t type = pick_type(rng);
        const Shape shape = type < kTypes.size() ? kTypes[type].shape : Shape::Instance;
        uint64_t size = 48;
        uint32_t preview = 0;
        uint8_t flags = format::kNodeGcTracked;
        switch (shape) {
            case Shape::Str: {
                flags = 0;
                const std::string v = "rec-" + std::to_string(uniform(100000));
                size = 41 + v.size();
                if (chance(0.9)) preview = s.strings.add(v);
                if (attr_names.size() < 400 && chance(0.01))
                    attr_names.push_back(static_cast<uint32_t>(i));
                break;
            }
            case Shape::Int:
                flags = 0;
                size = 28;
                if (chance(0.8)) preview = s.strings.add(std::to_string(uniform(1u << 20)));
                break;
            case Shape::Tuple: size = 40 + 8 * static_cast<uint64_t>(small_count(rng)); break;
            case Shape::List:
                size = 56;
                if (chance(0.5))
                    preview = s.strings.add("list[" + std::to_string(small_count(rng)) + "]");
                break;
            case Shape::Dict:
                size = chance(0.7) ? 184 : 360;
                if (chance(0.4))
                    preview = s.strings.add("dict[" + std::to_string(small_count(rng)) + "]");
                break;
            case Shape::Instance: size = 48 + 8 * uniform(4); break;
            case Shape::Function:
                size = 152;
                preview = s.strings.add("handler_" + std::to_string(uniform(5000)));
                break;
            case Shape::Type:
                size = 920;
                flags |= format::kNodeTypeObject;
                break;
            case Shape::Other: size = 16 * (2 + uniform(10)); break;
        }
        if (!chance(0.7)) cursor = uniform(cursors.size());
        if (chance(0.02))
            cursors[cursor] = 0x7f3a'0000'0000 + (uniform(4096) << 20);  // a fresh arena
        const uint64_t address = cursors[cursor];
        cursors[cursor] += (size + 15) & ~uint64_t{15};
        int64_t refcount = 1;
        const double r = std::uniform_real_distribution<double>(0, 1)(rng);
        if (r > 0.60) refcount = 2;
        if (r > 0.80) refcount = 3;
        if (r > 0.90) refcount = 4 + small_count(rng) * 3;
        if (r > 0.995) {
            refcount = 0xFFFFFFFFll;
            flags |= format::kNodeImmortal;
        }
        s.add_node(address, type, size, refcount, flags, preview);
        shapes.push_back(shape);
    }
    if (attr_names.empty()) attr_names.push_back(0);
    make_addresses_unique(s.node_address);

    // Edges: containers point mostly at objects walked just after them
    // (their referents), often at shared popular objects (types, interned
    // strings, modules), sometimes anywhere.
    const uint32_t n = static_cast<uint32_t>(nodes);
    const uint32_t field_names[] = {s.strings.add("__globals__"), s.strings.add("__closure__"),
                                    s.strings.add("__defaults__"), s.strings.add("__code__")};
    auto target_near = [&](uint32_t src) -> uint32_t {
        const double r = std::uniform_real_distribution<double>(0, 1)(rng);
        if (r < 0.55) {
            const int64_t t = int64_t{src} + 1 + static_cast<int64_t>(uniform(64));
            return static_cast<uint32_t>(t < n ? t : uniform(n));
        }
        if (r < 0.85) return static_cast<uint32_t>(uniform(std::min<uint64_t>(n, 2000)));
        return static_cast<uint32_t>(uniform(n));
    };
    for (uint32_t src = 0; src < n; ++src) {
        const uint8_t owned = format::kEdgeOwned | format::kEdgeGcVisible;
        switch (shapes[src]) {
            case Shape::Str:
            case Shape::Int: break;
            case Shape::Tuple:
            case Shape::List: {
                const int items = 1 + small_count(rng);
                for (int k = 0; k < items; ++k)
                    s.add_edge(src, target_near(src), format::EdgeKind::Index, owned,
                               static_cast<uint32_t>(k));
                break;
            }
            case Shape::Dict: {
                const int items = 1 + small_count(rng) * 2;
                for (int k = 0; k < items; ++k) {
                    const uint32_t key = attr_names[uniform(attr_names.size())];
                    s.add_edge(src, key, format::EdgeKind::DictKey, owned, 0);
                    s.add_edge(src, target_near(src), format::EdgeKind::DictValue, owned, key);
                }
                break;
            }
            case Shape::Instance: {
                s.add_edge(src, static_cast<uint32_t>(uniform(std::min<uint64_t>(n, 2000))),
                           format::EdgeKind::Reference, owned, 0);  // its type
                const int attrs = 1 + static_cast<int>(uniform(3));
                for (int k = 0; k < attrs; ++k)
                    s.add_edge(src, target_near(src), format::EdgeKind::Attribute,
                               format::kEdgeOwned,
                               attr_names[uniform(std::min<size_t>(attr_names.size(), 12))]);
                break;
            }
            case Shape::Function:
                for (uint32_t f : field_names)
                    s.add_edge(src, target_near(src), format::EdgeKind::Field, owned, f);
                break;
            case Shape::Type:
                for (int k = 0; k < 3; ++k)
                    s.add_edge(src, target_near(src), format::EdgeKind::Reference, owned,
                               static_cast<uint32_t>(k));
                break;
            case Shape::Other: {
                const int items = small_count(rng);
                for (int k = 0; k < items; ++k)
                    s.add_edge(src, target_near(src), format::EdgeKind::Reference, owned,
                               static_cast<uint32_t>(k));
                break;
            }
        }
    }

    const uint32_t main_name = s.strings.add("MainThread");
    s.threads.push_back({140'000'000'001, main_name, true});
    const uint32_t modules = s.strings.add("sys.modules");
    for (uint32_t i = 0; i < std::min<uint32_t>(n, 500); ++i)
        s.roots.push_back({i * 7 % n, format::RootKind::Interpreter, kNoNode, modules, 1});
    return s;
}

}  // namespace refscope::testing

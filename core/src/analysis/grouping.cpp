#include "refscope/analysis/grouping.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "refscope/analysis/descriptions.h"

namespace refscope::analysis {

namespace {

void sort_groups(std::vector<GroupTotal>& groups) {
    std::sort(groups.begin(), groups.end(), [](const GroupTotal& a, const GroupTotal& b) {
        if (a.bytes != b.bytes) return a.bytes > b.bytes;
        if (a.objects != b.objects) return a.objects > b.objects;
        return a.name < b.name;
    });
}

std::string cycle_group_name(const Cycles& cycles, const Snapshot& s, uint32_t cycle) {
    const CycleFate fate = cycles.info(cycle).fate;
    std::string name = "cycle #" + std::to_string(cycle) + " (";
    if (uncollectable(fate)) name += "uncollectable: ";
    name += cycle_fate_name(fate);
    name += "): ";
    constexpr size_t kShownTypes = 3;
    const std::vector<TypeTally> types = cycles.top_types(cycle, kShownTypes + 1);
    for (size_t i = 0; i < types.size() && i < kShownTypes; ++i) {
        if (i > 0) name += ", ";
        name += std::to_string(types[i].objects) + " × ";
        const std::string_view type =
            types[i].type < s.types.size() ? s.strings.view(s.types[types[i].type].name) : std::string_view{};
        name += type.empty() ? std::string_view("(unknown type)") : type;
    }
    if (types.size() > kShownTypes) name += ", …";
    return name;
}

}  // namespace

std::string_view group_by_name(GroupBy by) {
    switch (by) {
        case GroupBy::Type: return "type";
        case GroupBy::Module: return "module";
        case GroupBy::Cycle: return "cycle";
        case GroupBy::Dominator: return "dominator";
    }
    return "type";
}

std::vector<GroupTotal> group_objects(const Snapshot& s, GroupBy by) {
    if (by != GroupBy::Type && by != GroupBy::Module) {
        throw std::invalid_argument("group_objects groups by type or module only");
    }
    // Accumulate per type id first (one array index per object, no hashing),
    // then merge types by name. Module objects are the exception when grouping
    // by module: each belongs to the module it is, so they go by preview.
    const size_t type_count = s.types.size();
    std::vector<uint64_t> objects(type_count + 1, 0);
    std::vector<uint64_t> bytes(type_count + 1, 0);
    std::vector<uint8_t> is_module_type(type_count + 1, 0);
    for (size_t t = 0; t < type_count; ++t) {
        is_module_type[t] = by == GroupBy::Module && s.strings.view(s.types[t].name) == "module";
    }
    std::unordered_map<std::string_view, GroupTotal> modules;
    for (size_t n = 0; n < s.node_count(); ++n) {
        const size_t type = std::min<size_t>(s.node_type[n], type_count);
        if (is_module_type[type] && s.node_preview[n] != 0) {
            GroupTotal& total = modules[s.strings.view(s.node_preview[n])];
            ++total.objects;
            total.bytes += s.node_size[n];
            continue;
        }
        ++objects[type];
        bytes[type] += s.node_size[n];
    }

    std::unordered_map<std::string_view, GroupTotal> groups = std::move(modules);
    for (size_t t = 0; t <= type_count; ++t) {
        if (objects[t] == 0) continue;
        std::string_view name;
        if (t < type_count) {
            name = s.strings.view(by == GroupBy::Type ? s.types[t].name : s.types[t].module);
        }
        if (name.empty()) name = by == GroupBy::Type ? "(unknown type)" : "(no module)";
        GroupTotal& total = groups[name];
        total.objects += objects[t];
        total.bytes += bytes[t];
    }

    std::vector<GroupTotal> result;
    result.reserve(groups.size());
    for (auto& [name, total] : groups) {
        total.name = std::string(name);
        result.push_back(std::move(total));
    }
    sort_groups(result);
    return result;
}

std::vector<GroupTotal> group_by_cycle(const Cycles& cycles, const Snapshot& s,
                                       const std::vector<uint32_t>* selected) {
    // Slot c for cycle c, the last slot for objects on no cycle.
    const uint32_t count = cycles.count();
    std::vector<uint64_t> objects(size_t{count} + 1, 0);
    std::vector<uint64_t> bytes(size_t{count} + 1, 0);
    if (selected == nullptr) {
        uint64_t all_bytes = 0;
        uint64_t in_cycles = 0, cycle_bytes = 0;
        for (size_t n = 0; n < s.node_count(); ++n) all_bytes += s.node_size[n];
        for (uint32_t c = 0; c < count; ++c) {
            objects[c] = cycles.info(c).members;
            bytes[c] = cycles.info(c).bytes;
            in_cycles += objects[c];
            cycle_bytes += bytes[c];
        }
        objects[count] = s.node_count() - in_cycles;
        bytes[count] = all_bytes - cycle_bytes;
    } else {
        for (uint32_t n : *selected) {
            const uint32_t c = cycles.cycle_of(n);
            const size_t slot = c == kNoCycle ? count : c;
            ++objects[slot];
            bytes[slot] += s.node_size[n];
        }
    }
    std::vector<GroupTotal> result;
    for (uint32_t c = 0; c <= count; ++c) {
        if (objects[c] == 0) continue;
        GroupTotal total;
        total.name = c == count ? std::string("(not in a cycle)") : cycle_group_name(cycles, s, c);
        total.objects = objects[c];
        total.bytes = bytes[c];
        result.push_back(std::move(total));
    }
    sort_groups(result);
    return result;
}

std::vector<GroupTotal> group_by_dominator(const DominatorTree& tree, const Snapshot& s,
                                           const std::vector<uint32_t>* selected) {
    // Top-level retainers: children of the super-root, then of the
    // unexplained-holders root (itself a child of the super-root).
    std::vector<uint32_t> tops;
    std::vector<uint8_t> unexplained_holder;
    for (uint32_t child : tree.children(kSuperRoot)) {
        if (child == kUnexplainedRoot) continue;
        tops.push_back(child);
        unexplained_holder.push_back(0);
    }
    if (tree.mode() == DominatorRoots::ExplainedAndUnexplained) {
        for (uint32_t child : tree.children(kUnexplainedRoot)) {
            tops.push_back(child);
            unexplained_holder.push_back(1);
        }
    }
    const uint32_t top_count = static_cast<uint32_t>(tops.size());
    // Slot i for tops[i], the last slot for unreachable objects.
    std::vector<uint64_t> objects(size_t{top_count} + 1, 0);
    std::vector<uint64_t> bytes(size_t{top_count} + 1, 0);
    const uint32_t node_count = static_cast<uint32_t>(s.node_count());
    if (selected == nullptr) {
        uint64_t reachable_objects = 0, reachable_bytes = 0;
        for (uint32_t i = 0; i < top_count; ++i) {
            objects[i] = tree.retained_count(tops[i]);
            bytes[i] = tree.retained_size(tops[i]);
            reachable_objects += objects[i];
            reachable_bytes += bytes[i];
        }
        uint64_t all_bytes = 0;
        for (uint32_t n = 0; n < node_count; ++n) all_bytes += s.node_size[n];
        objects[top_count] = node_count - reachable_objects;
        bytes[top_count] = all_bytes - reachable_bytes;
    } else {
        // slot_of[n]: the group of node n, found by walking idom up to a
        // top-level retainer. Every node on a walk gets its slot when the
        // walk ends, so each node is walked once: O(n) however deep the tree.
        constexpr uint32_t kUnknown = 0xFFFFFFFFu;
        std::vector<uint32_t> slot_of(node_count, kUnknown);
        for (uint32_t i = 0; i < top_count; ++i) slot_of[tops[i]] = i;
        std::vector<uint32_t> walk;
        for (uint32_t n : *selected) {
            if (slot_of[n] != kUnknown) continue;
            uint32_t at = n;
            while (at < node_count && slot_of[at] == kUnknown && tree.reachable(at)) {
                walk.push_back(at);
                at = tree.idom(at);
            }
            // Ended at a known node, or at an unreachable one (its own group).
            const uint32_t slot = at < node_count && slot_of[at] != kUnknown ? slot_of[at] : top_count;
            for (uint32_t w : walk) slot_of[w] = slot;
            if (walk.empty()) slot_of[n] = slot;
            walk.clear();
        }
        for (uint32_t n : *selected) {
            ++objects[slot_of[n]];
            bytes[slot_of[n]] += s.node_size[n];
        }
    }
    std::vector<GroupTotal> result;
    for (uint32_t i = 0; i <= top_count; ++i) {
        if (objects[i] == 0) continue;
        GroupTotal total;
        if (i == top_count) {
            total.name = "(unreachable)";
        } else {
            // Two top-level `dict (len=1)` must stay apart: with the address.
            total.name = describe_node_at(s, tops[i]);
            total.name += unexplained_holder[i] ? " (unexplained holder)" : " (held by roots)";
        }
        total.objects = objects[i];
        total.bytes = bytes[i];
        result.push_back(std::move(total));
    }
    sort_groups(result);
    return result;
}

}  // namespace refscope::analysis

#include "refscope/analysis/grouping.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "refscope/analysis/edge_labels.h"

namespace refscope::analysis {

std::vector<GroupTotal> group_objects(const Snapshot& s, GroupBy by) {
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
    std::sort(result.begin(), result.end(), [](const GroupTotal& a, const GroupTotal& b) {
        if (a.bytes != b.bytes) return a.bytes > b.bytes;
        if (a.objects != b.objects) return a.objects > b.objects;
        return a.name < b.name;
    });
    return result;
}

}  // namespace refscope::analysis

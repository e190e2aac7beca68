#include "window/object_sets.h"

#include <span>

namespace refscope::app {

std::vector<uint32_t> objects_of_type(const Snapshot& snapshot, std::string_view type_name,
                                      const std::function<bool(uint32_t)>& keep) {
    std::vector<uint8_t> matches(snapshot.types.size(), 0);
    bool any = false;
    for (size_t t = 0; t < snapshot.types.size(); ++t) {
        matches[t] = snapshot.strings.view(snapshot.types[t].name) == type_name;
        any = any || matches[t];
    }
    std::vector<uint32_t> result;
    if (!any) return result;
    const uint32_t count = static_cast<uint32_t>(snapshot.node_count());
    for (uint32_t n = 0; n < count; ++n) {
        const uint32_t type = snapshot.node_type[n];
        if (type < matches.size() && matches[type] && (!keep || keep(n))) result.push_back(n);
    }
    return result;
}

std::vector<uint32_t> objects_of_suspect(const Snapshot& snapshot, const analysis::LeakSuspects& suspects,
                                         const analysis::SuspectGroup& row) {
    if (row.confidence == analysis::SuspectConfidence::High) {
        const std::span<const uint8_t> kinds = suspects.node_column();
        return objects_of_type(snapshot, row.type, [&](uint32_t n) { return n < kinds.size() && kinds[n] != 0; });
    }
    return objects_of_type(snapshot, row.type, [&](uint32_t n) { return suspects.in_low_confidence_row(n); });
}

}  // namespace refscope::app

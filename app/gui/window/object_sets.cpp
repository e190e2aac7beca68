#include "window/object_sets.h"

namespace refscope::app {

std::vector<uint32_t> objects_of_type(const Snapshot& snapshot, std::string_view type_name,
                                      std::span<const uint8_t> mark) {
    std::vector<uint8_t> matches(snapshot.types.size(), 0);
    bool any = false;
    for (size_t t = 0; t < snapshot.types.size(); ++t) {
        matches[t] = snapshot.strings.view(snapshot.types[t].name) == type_name;
        any = any || matches[t];
    }
    std::vector<uint32_t> result;
    if (!any) return result;
    const bool use_mark = mark.size() == snapshot.node_count();
    const uint32_t count = static_cast<uint32_t>(snapshot.node_count());
    for (uint32_t n = 0; n < count; ++n) {
        const uint32_t type = snapshot.node_type[n];
        if (type < matches.size() && matches[type] && (!use_mark || mark[n] != 0)) result.push_back(n);
    }
    return result;
}

std::vector<uint32_t> objects_of_suspect(const Snapshot& snapshot, const analysis::LeakSuspects& suspects,
                                         const analysis::SuspectGroup& row) {
    if (row.confidence == analysis::SuspectConfidence::High) {
        std::vector<uint32_t> accused = objects_of_type(snapshot, row.type, suspects.node_column());
        if (!accused.empty()) return accused;
    }
    return objects_of_type(snapshot, row.type);
}

}  // namespace refscope::app

#include "refscope/analysis/allocation_sites.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "refscope/analysis/display_text.h"

namespace refscope::analysis {

std::string frame_text(const Snapshot& s, uint32_t frame) {
    const std::vector<AllocationFrame>& frames = s.allocations.frames;
    if (frame >= frames.size()) return "?";
    const AllocationFrame& f = frames[frame];
    std::string text(s.strings.view(f.file));
    text += ":" + std::to_string(f.line);
    if (f.function != 0) {
        text += " in ";
        text += s.strings.view(f.function);
    }
    return text;
}

std::vector<uint32_t> allocation_frames(const Snapshot& s, uint32_t node) {
    const uint32_t t = s.allocations.traceback_of(node);
    if (t == AllocationSites::kNone) return {};
    return {s.allocations.frames_begin(t), s.allocations.frames_end(t)};
}

bool is_program_frame(const Snapshot& s, uint32_t frame) {
    if (frame >= s.allocations.frames.size()) return false;
    const std::string_view file = s.strings.view(s.allocations.frames[frame].file);
    if (file.empty() || file.front() == '<') return false;  // <frozen importlib._bootstrap>, <string>
    for (const std::string_view library : {"/site-packages/", "/dist-packages/", "/lib/python3"})
        if (file.find(library) != std::string_view::npos) return false;
    return true;
}

uint32_t allocation_site(const Snapshot& s, uint32_t node) {
    const uint32_t t = s.allocations.traceback_of(node);
    if (t == AllocationSites::kNone) return kNoFrame;
    const uint32_t* begin = s.allocations.frames_begin(t);
    const uint32_t* end = s.allocations.frames_end(t);
    for (const uint32_t* f = begin; f != end; ++f)
        if (is_program_frame(s, *f)) return *f;
    return *begin;
}

SiteBreakdown count_allocation_sites(const Snapshot& s, std::span<const uint32_t> nodes, size_t top) {
    SiteBreakdown b;
    std::unordered_map<uint32_t, uint64_t> counts;
    for (const uint32_t node : nodes) {
        ++b.objects;
        const uint32_t site = allocation_site(s, node);
        if (site == kNoFrame) continue;
        ++b.traced;
        ++counts[site];
    }
    for (const auto& [frame, objects] : counts) b.sites.push_back({frame, objects});
    std::sort(b.sites.begin(), b.sites.end(), [](const SiteCount& x, const SiteCount& y) {
        return x.objects != y.objects ? x.objects > y.objects : x.frame < y.frame;
    });
    if (b.sites.size() > top) b.sites.resize(top);
    return b;
}

std::string describe_sites(const Snapshot& s, const SiteBreakdown& b) {
    if (b.sites.empty()) return {};
    std::string text;
    for (size_t i = 0; i < b.sites.size(); ++i) {
        if (i > 0) text += ", ";
        text += with_thousands(b.sites[i].objects);
        if (i == 0) text += " of " + with_thousands(b.objects);
        text += " from " + frame_text(s, b.sites[i].frame);
    }
    return text;
}

}  // namespace refscope::analysis

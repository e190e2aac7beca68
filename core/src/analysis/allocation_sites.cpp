#include "refscope/analysis/allocation_sites.h"

#include <algorithm>
#include <string_view>

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

namespace {

// The site of traceback `t`: its most recent program frame, else its most
// recent frame.
uint32_t traceback_site(const Snapshot& s, uint32_t t) {
    const uint32_t* begin = s.allocations.frames_begin(t);
    const uint32_t* end = s.allocations.frames_end(t);
    for (const uint32_t* f = begin; f != end; ++f)
        if (is_program_frame(s, *f)) return *f;
    return *begin;
}

}  // namespace

uint32_t allocation_site(const Snapshot& s, uint32_t node) {
    const uint32_t t = s.allocations.traceback_of(node);
    return t == AllocationSites::kNone ? kNoFrame : traceback_site(s, t);
}

std::vector<uint32_t> sites_by_traceback(const Snapshot& s) {
    std::vector<uint32_t> sites(s.allocations.traceback_count());
    for (uint32_t t = 0; t < sites.size(); ++t) sites[t] = traceback_site(s, t);
    return sites;
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

#include "refscope/analysis/frame_roots.h"

#include <algorithm>
#include <array>
#include <utility>

namespace refscope::analysis {

using format::RootKind;

std::optional<FrameRootLabel> parse_frame_root_label(std::string_view label) {
    constexpr std::string_view kFrame = "frame ";
    if (!label.starts_with(kFrame)) return std::nullopt;
    label.remove_prefix(kFrame.size());
    FrameRootLabel out;
    static constexpr std::array<std::pair<std::string_view, FramePart>, 5> kParts{{
        {", code", FramePart::Code},
        {", function", FramePart::Function},
        {", f_locals", FramePart::FLocals},
        {", frame object", FramePart::FrameObject},
        {", stack", FramePart::Stack},
    }};
    for (const auto& [suffix, part] : kParts) {
        if (!label.ends_with(suffix)) continue;
        out.frame = label.substr(0, label.size() - suffix.size());
        out.part = part;
        return out;
    }
    // A local's name is an identifier (or its slot number): the last
    // ", local " starts it. A 3.9/3.10 frame's label has no part.
    const size_t local = label.rfind(", local ");
    if (local != std::string_view::npos) {
        out.frame = label.substr(0, local);
        out.part = FramePart::Local;
        out.local = label.substr(local + 8);
        return out;
    }
    out.frame = label;
    return out;
}

namespace {

// The frame's records come in this order (frame_roots.h); a record of an
// earlier part than the one after it belongs to the same frame.
int rank(FramePart part) { return static_cast<int>(part); }

}  // namespace

RunningFrame running_frame(const Snapshot& s, const RootClasses& roots, uint32_t node) {
    RunningFrame frame;
    if (node >= s.node_count()) return frame;
    // The frame object's own record: 3.11+ ", frame object"; 3.9/3.10 the
    // whole frame. Others naming it (another frame's local) are skipped.
    for (const uint32_t record : roots.roots_of(node)) {
        const RootRef& root = s.roots[record];
        if (root.kind != RootKind::ThreadStack) continue;
        const auto label = parse_frame_root_label(s.strings.view(root.label));
        if (!label || (label->part != FramePart::FrameObject && label->part != FramePart::Whole)) continue;
        frame.record = record;
        frame.location = label->frame;
        if (label->part == FramePart::Whole) return frame;  // its locals are its edges
        break;
    }
    if (frame.record == kNoRootRecord) return frame;

    // Back from the frame object's record over the same frame's f_locals,
    // function, code and locals, each part no later than the one after it.
    const uint32_t thread = s.roots[frame.record].thread;
    auto same_frame = [&](const RootRef& root) -> std::optional<FrameRootLabel> {
        if (root.kind != RootKind::ThreadStack || root.thread != thread) return std::nullopt;
        auto label = parse_frame_root_label(s.strings.view(root.label));
        if (!label || label->frame != frame.location) return std::nullopt;
        return label;
    };
    int after = rank(FramePart::FrameObject);
    bool separated = false;  // a code or function record precedes the locals
    uint32_t first = frame.record;
    while (first > 0) {
        const auto label = same_frame(s.roots[first - 1]);
        if (!label) break;
        const int r = rank(label->part);
        if (r > after || (r == after && label->part != FramePart::Local)) break;
        if (label->part == FramePart::Local) frame.locals.push_back(first - 1);
        if (label->part == FramePart::Code || label->part == FramePart::Function) separated = true;
        after = r;
        --first;
    }
    std::reverse(frame.locals.begin(), frame.locals.end());

    // The same code's other activations have the same code record (or the
    // same lack of one), which ends the walk above before their locals.
    // Without one, locals written just before this frame's may be another
    // activation's: that is so when another activation is on the thread, or
    // when a name comes twice.
    if (separated || frame.locals.empty()) return frame;
    bool ambiguous = false;
    for (size_t i = 0; i < frame.locals.size() && !ambiguous; ++i) {
        const std::string_view name = parse_frame_root_label(s.strings.view(s.roots[frame.locals[i]].label))->local;
        for (size_t j = 0; j < i && !ambiguous; ++j)
            ambiguous = parse_frame_root_label(s.strings.view(s.roots[frame.locals[j]].label))->local == name;
    }
    // This frame's records end with its value stack's.
    uint32_t last = frame.record;
    while (last + 1 < s.roots.size()) {
        const auto label = same_frame(s.roots[last + 1]);
        if (!label || label->part != FramePart::Stack) break;
        ++last;
    }
    for (uint32_t r = 0; r < s.roots.size() && !ambiguous; ++r) {
        if (r < first || r > last) ambiguous = same_frame(s.roots[r]).has_value();
    }
    if (ambiguous) {
        frame.locals.clear();
        frame.ambiguous = true;
    }
    return frame;
}

}  // namespace refscope::analysis

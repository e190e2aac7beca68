// A running frame as its thread's root records say it (the probe's
// roots_threads.cpp).
//
// 3.9/3.10: a running frame is an object the thread's stack holds; its one
// ThreadStack record is labelled "frame app.py:12 in main" and the frame
// object owns its locals (Local edges).
//
// 3.11+: a running frame is a struct in the thread's data stack, not an
// object, so each reference it holds is a ThreadStack record of its own:
// "frame app.py:12 in main" followed by what the reference is. The probe
// writes a frame's records together, frames from the top of the stack
// down, each frame's in this order:
//
//   , local NAME     each local, in the code's slot order
//   , code           , function        , f_locals
//   , frame object   the materialised frame object, if any
//   , stack          each value-stack slot, when its depth is known
//
// The frame object owns nothing of that (its data belongs to the thread),
// so its locals are found from its own ", frame object" record: the locals
// written just before it. Recursion writes the same "app.py:12 in main"
// twice on one thread; the code and function records written between two
// activations' locals tell them apart. Only when an activation has neither
// (3.14+ borrowed or immortal references are not recorded) can the records
// not say where its locals start: then the frame's locals are "ambiguous"
// and none are given, rather than another activation's.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "refscope/analysis/root_classes.h"

namespace refscope::analysis {

// What one record of a frame holds (the label's last part).
enum class FramePart : uint8_t { Local, Code, Function, FLocals, FrameObject, Stack, Whole };

struct FrameRootLabel {
    std::string_view frame;  // "app.py:12 in main"
    FramePart part = FramePart::Whole;
    std::string_view local;  // FramePart::Local: the variable's name
};

// The parts of a ThreadStack record's label; nullopt when it is not a
// frame's ("thread state dict").
std::optional<FrameRootLabel> parse_frame_root_label(std::string_view label);

inline constexpr uint32_t kNoRootRecord = 0xFFFFFFFFu;

struct RunningFrame {
    // The frame object's own record (", frame object", or the whole frame
    // on 3.9/3.10); kNoRootRecord when `node` is no running frame.
    uint32_t record = kNoRootRecord;
    std::string_view location;       // "app.py:12 in main"
    std::vector<uint32_t> locals;    // records of its locals, in slot order
    // Another activation of the same location on the thread, and nothing in
    // the records to separate its locals from this one's: `locals` is empty.
    bool ambiguous = false;
};

// The running frame whose frame object is `node`, from the root records.
RunningFrame running_frame(const Snapshot& s, const RootClasses& roots, uint32_t node);

}  // namespace refscope::analysis

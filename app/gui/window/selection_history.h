// Back and forward over the objects selected in one snapshot, as in a web
// browser: every selection change is a step, going back and then choosing
// something else drops the steps ahead. Node ids mean nothing in another
// snapshot, so the workspace clears the history when its analysis changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace refscope::app {

class SelectionHistory {
public:
    // The newest steps kept; older ones are forgotten.
    static constexpr size_t kLimit = 500;

    void clear();
    // A new selection (the same one twice is one step).
    void visit(uint32_t node);
    bool canGoBack() const { return at_ > 0; }
    bool canGoForward() const { return at_ + 1 < steps_.size(); }
    // The selection to show, or nothing at either end.
    std::optional<uint32_t> back();
    std::optional<uint32_t> forward();

private:
    std::vector<uint32_t> steps_;
    size_t at_ = 0;  // index of the current step (meaningless when empty)
};

}  // namespace refscope::app

#include "window/selection_history.h"

namespace refscope::app {

void SelectionHistory::clear() {
    steps_.clear();
    at_ = 0;
}

void SelectionHistory::visit(uint32_t node) {
    if (!steps_.empty() && steps_[at_] == node) return;
    if (!steps_.empty()) steps_.resize(at_ + 1);  // the steps ahead are gone
    steps_.push_back(node);
    if (steps_.size() > kLimit) steps_.erase(steps_.begin());
    at_ = steps_.size() - 1;
}

std::optional<uint32_t> SelectionHistory::back() {
    if (!canGoBack()) return std::nullopt;
    return steps_[--at_];
}

std::optional<uint32_t> SelectionHistory::forward() {
    if (!canGoForward()) return std::nullopt;
    return steps_[++at_];
}

}  // namespace refscope::app

#include "refscope/analysis/comparison.h"

#include <stdexcept>
#include <utility>

namespace refscope::analysis {

namespace {

void check_cancel(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw AnalysisCancelled();
}

}  // namespace

std::shared_ptr<const Comparison> Comparison::compute(SharedAnalysis baseline, SharedAnalysis middle,
                                                      SharedAnalysis current, const std::atomic<bool>* cancel,
                                                      const SuspectOptions& options) {
    if (!baseline || !current) throw std::invalid_argument("a comparison needs a baseline and a current snapshot");
    if (!current->dominators() || !current->cycles()) {
        throw std::invalid_argument("the current snapshot was analysed without retained sizes or cycles, "
                                    "which leak suspects need");
    }
    std::shared_ptr<Comparison> c(new Comparison());
    c->baseline_ = std::move(baseline);
    c->middle_ = std::move(middle);
    c->current_ = std::move(current);
    check_cancel(cancel);
    c->diff_ = diff_snapshots(c->baseline_->snapshot(), c->current_->snapshot());
    if (c->middle_) {
        check_cancel(cancel);
        c->survivors_ = find_survivors(c->baseline_->snapshot(), c->middle_->snapshot(), c->current_->snapshot());
    }
    check_cancel(cancel);
    SuspectInputs inputs = c->current_->suspect_inputs();
    inputs.diff = &c->diff_;
    inputs.survivors = c->survivors_ ? &*c->survivors_ : nullptr;
    c->suspects_ = std::make_unique<LeakSuspects>(inputs, options);
    return c;
}

const std::vector<uint8_t>& Comparison::new_column() const {
    if (survivors_) return survivors_->is_survivor;
    return diff_.is_new;
}

}  // namespace refscope::analysis

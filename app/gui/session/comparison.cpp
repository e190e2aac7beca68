#include "session/comparison.h"

#include <exception>
#include <new>
#include <stdexcept>
#include <utility>

#include "session/snapshot_timeline.h"

namespace refscope::app {

namespace {

void check_cancel(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw analysis::AnalysisCancelled();
}

}  // namespace

std::shared_ptr<const Comparison> Comparison::compute(AnalysisPtr baseline, AnalysisPtr middle,
                                                      AnalysisPtr current, const std::atomic<bool>* cancel) {
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
    c->diff_ = analysis::diff_snapshots(c->baseline_->snapshot(), c->current_->snapshot());
    if (c->middle_) {
        check_cancel(cancel);
        c->survivors_ = analysis::find_survivors(c->baseline_->snapshot(), c->middle_->snapshot(),
                                                 c->current_->snapshot());
    }
    check_cancel(cancel);
    analysis::SuspectInputs inputs = c->current_->suspect_inputs();
    inputs.diff = &c->diff_;
    inputs.survivors = c->survivors_ ? &*c->survivors_ : nullptr;
    c->suspects_ = std::make_unique<analysis::LeakSuspects>(inputs);
    return c;
}

const std::vector<uint8_t>& Comparison::newColumn() const {
    if (survivors_) return survivors_->is_survivor;
    return diff_.is_new;
}

std::shared_ptr<const analysis::SnapshotDiff> shared_diff(const ComparisonPtr& comparison) {
    if (!comparison) return nullptr;
    return {comparison, &comparison->diff()};
}

std::shared_ptr<const std::vector<uint8_t>> shared_new_column(const ComparisonPtr& comparison) {
    if (!comparison) return nullptr;
    return {comparison, &comparison->newColumn()};
}

QString Comparison::description() const {
    QString text = SnapshotTimeline::snapshotLabel(*current_);
    if (middle_) text += QObject::tr(", allocated since %1").arg(SnapshotTimeline::snapshotLabel(*middle_));
    return text + QObject::tr(" against %1").arg(SnapshotTimeline::snapshotLabel(*baseline_));
}

ComparisonJob::ComparisonJob(QObject* parent)
    : QObject(parent), worker_(LatestRequestWorker::Priority::Background) {}

ComparisonJob::~ComparisonJob() = default;

void ComparisonJob::start(const AnalysisPtr& baseline, const AnalysisPtr& middle, const AnalysisPtr& current) {
    if (!baseline || !current) {
        clear();
        return;
    }
    worker_.start([this, baseline, middle, current](const std::atomic<bool>& cancel) mutable
                   -> LatestRequestWorker::Delivery {
        ComparisonPtr result;
        QString error;
        try {
            result = Comparison::compute(std::move(baseline), std::move(middle), std::move(current), &cancel);
        } catch (const analysis::AnalysisCancelled&) {
            return {};  // a newer request (or clear) replaced it
        } catch (const analysis::SnapshotMismatchError& e) {
            error = QString::fromUtf8(e.what());
        } catch (const std::bad_alloc&) {
            error = tr("not enough memory to compare these snapshots");
        } catch (const std::exception& e) {
            error = tr("the comparison failed: %1").arg(QString::fromUtf8(e.what()));
        }
        return [this, result, error] { deliver(result, error); };
    });
    emit started();
}

void ComparisonJob::clear() {
    worker_.cancel();
    const bool had_result = result_ != nullptr;
    result_.reset();
    if (had_result) emit cleared();
}

void ComparisonJob::deliver(const ComparisonPtr& result, const QString& error) {
    result_ = result;
    if (result) {
        emit finished(result);
    } else {
        emit failed(error);
    }
}

}  // namespace refscope::app

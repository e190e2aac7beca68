#include "session/comparison.h"

#include <exception>
#include <new>
#include <stdexcept>
#include <utility>

#include <QMetaObject>

#include "session/background_priority.h"

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

ComparisonJob::ComparisonJob(QObject* parent) : QObject(parent) {
    worker_ = std::thread([this] { runWorker(); });
}

ComparisonJob::~ComparisonJob() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        pending_.reset();
        if (running_cancel_) running_cancel_->store(true);
    }
    wake_.notify_all();
    worker_.join();
}

void ComparisonJob::start(const AnalysisPtr& baseline, const AnalysisPtr& middle, const AnalysisPtr& current) {
    if (!baseline || !current) {
        clear();
        return;
    }
    const uint64_t id = next_request_++;
    {
        std::lock_guard lock(mutex_);
        pending_ = Request{id, baseline, middle, current};
        if (running_cancel_) running_cancel_->store(true);
    }
    running_request_ = id;
    wake_.notify_one();
    emit started();
}

void ComparisonJob::clear() {
    {
        std::lock_guard lock(mutex_);
        pending_.reset();
        if (running_cancel_) running_cancel_->store(true);
    }
    running_request_ = 0;
    const bool had_result = result_ != nullptr;
    result_.reset();
    if (had_result) emit cleared();
}

void ComparisonJob::runWorker() {
    lower_current_thread_priority();
    for (;;) {
        Request request;
        std::shared_ptr<std::atomic<bool>> cancel;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || pending_.has_value(); });
            if (stopping_) return;
            request = std::move(*pending_);
            pending_.reset();
            cancel = std::make_shared<std::atomic<bool>>(false);
            running_cancel_ = cancel;
        }
        ComparisonPtr result;
        QString error;
        bool was_cancelled = false;
        try {
            result = Comparison::compute(std::move(request.baseline), std::move(request.middle),
                                         std::move(request.current), cancel.get());
        } catch (const analysis::AnalysisCancelled&) {
            was_cancelled = true;
        } catch (const analysis::SnapshotMismatchError& e) {
            error = QString::fromUtf8(e.what());
        } catch (const std::bad_alloc&) {
            error = tr("not enough memory to compare these snapshots");
        } catch (const std::exception& e) {
            error = tr("the comparison failed: %1").arg(QString::fromUtf8(e.what()));
        }
        {
            std::lock_guard lock(mutex_);
            running_cancel_.reset();
        }
        if (was_cancelled) continue;  // a newer request (or clear) replaced it
        QMetaObject::invokeMethod(this, [this, id = request.id, result, error] { deliver(id, result, error); },
                                  Qt::QueuedConnection);
    }
}

void ComparisonJob::deliver(uint64_t id, const ComparisonPtr& result, const QString& error) {
    if (id != running_request_) return;  // stale: a newer request or clear() came since
    running_request_ = 0;
    result_ = result;
    if (result) {
        emit finished(result);
    } else {
        emit failed(error);
    }
}

}  // namespace refscope::app

#include "models/filter_job.h"

#include <QMetaObject>

namespace refscope::app {

FilterJob::FilterJob(QObject* parent) : QObject(parent) {
    worker_ = std::thread([this] { work(); });
}

FilterJob::~FilterJob() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        pending_.reset();
    }
    wake_.notify_one();
    worker_.join();
}

void FilterJob::start(AnalysisPtr analysis, const QString& text, std::shared_ptr<const std::vector<uint8_t>> is_new) {
    {
        std::lock_guard lock(mutex_);
        pending_ = Request{++generation_, std::move(analysis), text, std::move(is_new)};
    }
    wake_.notify_one();
}

void FilterJob::cancel() {
    std::lock_guard lock(mutex_);
    pending_.reset();
    delivered_ = generation_;
}

bool FilterJob::busy() const {
    std::lock_guard lock(mutex_);
    return delivered_ != generation_;
}

void FilterJob::work() {
    for (;;) {
        Request request;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || pending_.has_value(); });
            if (stopping_) return;
            request = std::move(*pending_);
            pending_.reset();
        }
        FilterResult result;
        if (request.analysis) {
            std::span<const uint8_t> is_new;
            if (request.is_new) is_new = *request.is_new;
            result = run_filter(*request.analysis, request.text, is_new);
        } else {
            result.error = QStringLiteral("No snapshot to filter");
        }
        // Delivered on the job's own thread; dropped there if a newer request
        // came meanwhile (and dropped by Qt if the job is gone).
        QMetaObject::invokeMethod(
            this,
            [this, done = request.generation, found = std::move(result), query = request.text] {
                {
                    std::lock_guard lock(mutex_);
                    if (done != generation_ || delivered_ == generation_) return;
                    delivered_ = done;
                }
                emit finished(found, query);
            },
            Qt::QueuedConnection);
    }
}

}  // namespace refscope::app

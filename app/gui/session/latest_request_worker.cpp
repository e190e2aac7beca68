#include "session/latest_request_worker.h"

#include <utility>

#include <QMetaObject>

#include "session/background_priority.h"

namespace refscope::app {

LatestRequestWorker::LatestRequestWorker(Priority priority) : context_(std::make_unique<QObject>()) {
    thread_ = std::thread([this, priority] { run(priority); });
}

LatestRequestWorker::~LatestRequestWorker() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        pending_.reset();
        if (running_stale_) running_stale_->store(true);
    }
    wake_.notify_all();
    thread_.join();
}

void LatestRequestWorker::start(Task task) {
    const uint64_t id = next_id_++;
    {
        std::lock_guard lock(mutex_);
        pending_ = Request{id, std::move(task), std::make_shared<std::atomic<bool>>(false)};
        if (running_stale_) running_stale_->store(true);
    }
    waiting_for_ = id;
    wake_.notify_one();
}

void LatestRequestWorker::cancel() {
    {
        std::lock_guard lock(mutex_);
        pending_.reset();
        if (running_stale_) running_stale_->store(true);
    }
    waiting_for_ = 0;
}

void LatestRequestWorker::run(Priority priority) {
    if (priority == Priority::Background) lower_current_thread_priority();
    for (;;) {
        Request request;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || pending_.has_value(); });
            if (stopping_) return;
            request = std::move(*pending_);
            pending_.reset();
            running_stale_ = request.stale;
        }
        Delivery delivery = request.task(*request.stale);
        request.task = nullptr;  // what it captured goes now, not with the next request
        {
            std::lock_guard lock(mutex_);
            running_stale_.reset();
        }
        // The posted call owns the delivery: whatever it holds is freed on
        // the creating thread, delivered or not (or with the worker).
        QMetaObject::invokeMethod(
            context_.get(), [this, id = request.id, delivery = std::move(delivery)] { deliver(id, delivery); },
            Qt::QueuedConnection);
    }
}

void LatestRequestWorker::deliver(uint64_t id, const Delivery& delivery) {
    if (id != waiting_for_) return;  // stale: a newer request or cancel() came since
    waiting_for_ = 0;
    if (delivery) delivery();
}

}  // namespace refscope::app

#include "window/model_build_job.h"

#include <exception>

#include <QMetaObject>
#include <QThread>

#include "session/background_priority.h"

namespace refscope::app {

ModelBuildJob::ModelBuildJob(QObject* parent) : QObject(parent), home_(thread()) {
    worker_ = std::thread([this] { runWorker(); });
}

ModelBuildJob::~ModelBuildJob() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        pending_.reset();
    }
    wake_.notify_all();
    worker_.join();
}

void ModelBuildJob::start(Build build) {
    const quint64 id = next_id_++;
    {
        std::lock_guard lock(mutex_);
        pending_.emplace(id, std::move(build));
    }
    waiting_for_ = id;
    wake_.notify_one();
}

void ModelBuildJob::cancel() {
    {
        std::lock_guard lock(mutex_);
        pending_.reset();
    }
    waiting_for_ = 0;
}

void ModelBuildJob::runWorker() {
    lower_current_thread_priority();
    for (;;) {
        std::pair<quint64, Build> request;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || pending_.has_value(); });
            if (stopping_) return;
            request = std::move(*pending_);
            pending_.reset();
        }
        std::unique_ptr<QAbstractItemModel> model;
        try {
            model.reset(request.second());
        } catch (const std::exception&) {
            // Out of memory while building: the view stays empty rather
            // than the app ending; a later request may succeed.
        }
        if (!model) {
            // Nothing to hand over, but the request is over: busy() must
            // not stay true (the window would never count as settled).
            QMetaObject::invokeMethod(this, [this, id = request.first] {
                if (id == waiting_for_) waiting_for_ = 0;
            }, Qt::QueuedConnection);
            continue;
        }
        model->moveToThread(home_);
        // Owned by the posted call: if it is never delivered (the job is
        // destroyed first), destroying the call deletes the model.
        auto holder = std::make_shared<std::unique_ptr<QAbstractItemModel>>(std::move(model));
        QMetaObject::invokeMethod(this, [this, id = request.first, holder] {
            if (id != waiting_for_) return;  // stale: the holder deletes it
            waiting_for_ = 0;
            emit built(holder->release());
        }, Qt::QueuedConnection);
    }
}

}  // namespace refscope::app

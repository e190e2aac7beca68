#include "window/model_build_job.h"

#include <exception>
#include <memory>
#include <utility>

#include <QThread>

namespace refscope::app {

ModelBuildJob::ModelBuildJob(QObject* parent)
    : QObject(parent), home_(thread()), worker_(LatestRequestWorker::Priority::Background) {}

ModelBuildJob::~ModelBuildJob() = default;

void ModelBuildJob::start(Build build) {
    worker_.start([this, build = std::move(build)](const std::atomic<bool>&) -> LatestRequestWorker::Delivery {
        std::unique_ptr<QAbstractItemModel> model;
        try {
            model.reset(build());
        } catch (const std::exception&) {
            // Out of memory while building: the view stays empty rather
            // than the app ending; a later request may succeed.
        }
        if (!model) return {};
        model->moveToThread(home_);
        // Owned by the delivery: if it is never run (stale, or the job is
        // destroyed first), destroying the delivery deletes the model.
        auto holder = std::make_shared<std::unique_ptr<QAbstractItemModel>>(std::move(model));
        return [this, holder] { emit built(holder->release()); };
    });
}

void ModelBuildJob::cancel() { worker_.cancel(); }

}  // namespace refscope::app

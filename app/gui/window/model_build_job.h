// Builds an item model on a worker thread and hands it to the GUI thread.
//
// Some models cost tens of milliseconds per million objects to set up (the
// summary walks every object and the dominator tree once); a 10M-object heap
// would freeze the window for a good part of a second. A model is a QObject
// like any other: it can be created and filled on a worker thread, as long
// as no view is attached yet, then moved to the GUI thread and given to the
// view there. That is what this job does.
//
// Only the newest request counts (LatestRequestWorker): a model built for an
// older one is deleted on arrival. The destructor waits for a build in
// flight; a built model that was never delivered is deleted with the job.
#pragma once

#include <functional>

#include <QAbstractItemModel>
#include <QObject>

#include "session/latest_request_worker.h"

namespace refscope::app {

class ModelBuildJob : public QObject {
    Q_OBJECT

public:
    // Runs on the worker thread; returns a new model without a parent (or
    // null, or throws: nothing is delivered). It must only read data that
    // stays alive and unchanged (the analyses are immutable).
    using Build = std::function<QAbstractItemModel*()>;

    explicit ModelBuildJob(QObject* parent = nullptr);
    ~ModelBuildJob() override;

    ModelBuildJob(const ModelBuildJob&) = delete;
    ModelBuildJob& operator=(const ModelBuildJob&) = delete;

    // Supersedes any earlier request.
    void start(Build build);
    // Forgets the request in flight: nothing is delivered for it.
    void cancel();
    // From start() until `built` (or cancel(), or the build gave no model).
    bool busy() const { return worker_.busy(); }

signals:
    // The model, now living on the job's thread; the receiver takes it.
    void built(QAbstractItemModel* model);

private:
    QThread* home_;  // where built models are moved to
    LatestRequestWorker worker_;
};

}  // namespace refscope::app

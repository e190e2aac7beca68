// run_filter off the GUI thread, for heaps where a query takes longer than a
// frame (filters are a few milliseconds per million objects, a preview
// substring search tens: docs/performance-app.md, "Desktop app: models"; a 10M
// object heap is ten times that). One worker thread (LatestRequestWorker); a
// newer start() supersedes older requests: only the newest request's result
// is delivered (a request already running finishes, and its result is
// dropped).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <QObject>
#include <QString>

#include "models/filter_runner.h"
#include "session/analysis_ptr.h"
#include "session/latest_request_worker.h"

namespace refscope::app {

class FilterJob : public QObject {
    Q_OBJECT
public:
    explicit FilterJob(QObject* parent = nullptr);
    // Drops what is pending and joins the worker (after the query it is
    // running, if any).
    ~FilterJob() override;

    // `is_new`: as run_filter's, kept alive by the job while it runs.
    void start(AnalysisPtr analysis, const QString& text,
               std::shared_ptr<const std::vector<uint8_t>> is_new = nullptr);
    // Forgets the pending request and any result not delivered yet.
    void cancel();
    // A request is pending or running, or its result is on its way.
    bool busy() const;

signals:
    // On the job's thread (the GUI thread), for the newest request only.
    void finished(const refscope::app::FilterResult& result, const QString& text);

private:
    LatestRequestWorker worker_;
};

}  // namespace refscope::app

Q_DECLARE_METATYPE(refscope::app::FilterResult)

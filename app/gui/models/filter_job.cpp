#include "models/filter_job.h"

#include <span>
#include <utility>

namespace refscope::app {

// Normal priority: FilterJob has always run at the GUI thread's priority,
// unlike the comparison and model-building jobs.
FilterJob::FilterJob(QObject* parent) : QObject(parent), worker_(LatestRequestWorker::Priority::Normal) {}

FilterJob::~FilterJob() = default;

void FilterJob::start(AnalysisPtr analysis, const QString& text, std::shared_ptr<const std::vector<uint8_t>> is_new) {
    worker_.start([this, analysis = std::move(analysis), text, is_new = std::move(is_new)](const std::atomic<bool>&) {
        FilterResult result;
        if (analysis) {
            std::span<const uint8_t> new_column;
            if (is_new) new_column = *is_new;
            result = run_filter(*analysis, text, new_column);
        } else {
            result.error = QStringLiteral("No snapshot to filter");
        }
        return LatestRequestWorker::Delivery([this, result = std::move(result), text] { emit finished(result, text); });
    });
}

void FilterJob::cancel() { worker_.cancel(); }

bool FilterJob::busy() const { return worker_.busy(); }

}  // namespace refscope::app

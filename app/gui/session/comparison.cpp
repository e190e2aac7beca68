#include "session/comparison.h"

#include <exception>
#include <new>
#include <stdexcept>
#include <utility>

#include "session/snapshot_timeline.h"

namespace refscope::app {

std::shared_ptr<const analysis::SnapshotDiff> shared_diff(const ComparisonPtr& comparison) {
    if (!comparison) return nullptr;
    return {comparison, &comparison->diff()};
}

std::shared_ptr<const std::vector<uint8_t>> shared_new_column(const ComparisonPtr& comparison) {
    if (!comparison) return nullptr;
    return {comparison, &comparison->new_column()};
}

QString comparisonDescription(const analysis::Comparison& comparison) {
    QString text = SnapshotTimeline::snapshotLabel(*comparison.current());
    if (comparison.middle()) {
        text += QObject::tr(", allocated since %1").arg(SnapshotTimeline::snapshotLabel(*comparison.middle()));
    }
    return text + QObject::tr(" against %1").arg(SnapshotTimeline::snapshotLabel(*comparison.baseline()));
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
            result = analysis::Comparison::compute(std::move(baseline), std::move(middle), std::move(current), &cancel);
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

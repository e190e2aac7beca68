#include "session/snapshot_timeline.h"

#include <algorithm>
#include <tuple>

#include <QDateTime>
#include <QFileInfo>

#include "refscope/analysis/snapshot_diff.h"

namespace refscope::app {

namespace {

// Timeline order: process, then sequence, then time, then file path (ties
// among hand-built snapshots without sequence or time).
bool comes_before(const AnalysisPtr& a, const AnalysisPtr& b) {
    const SnapshotHeader& ha = a->snapshot().header;
    const SnapshotHeader& hb = b->snapshot().header;
    const QString ka = SnapshotTimeline::processKey(a->snapshot());
    const QString kb = SnapshotTimeline::processKey(b->snapshot());
    if (ka != kb) return ka < kb;
    return std::tie(ha.sequence, ha.time_unix_ns, a->path()) <
           std::tie(hb.sequence, hb.time_unix_ns, b->path());
}

}  // namespace

QString SnapshotTimeline::canonicalPath(const QString& path) {
    const QFileInfo info(path);
    const QString resolved = info.canonicalFilePath();
    return resolved.isEmpty() ? info.absoluteFilePath() : resolved;
}

SnapshotTimeline::SnapshotTimeline(QObject* parent) : QObject(parent) {}

QString SnapshotTimeline::processKey(const Snapshot& snapshot) {
    return QString::number(snapshot.header.pid) + QLatin1Char('|') +
           QString::fromStdString(snapshot.header.executable);
}

QString SnapshotTimeline::processLabel(const Snapshot& snapshot) {
    return QString::fromStdString(analysis::describe_process(snapshot));
}

QString SnapshotTimeline::snapshotLabel(const analysis::SnapshotAnalysis& analysis) {
    const SnapshotHeader& header = analysis.snapshot().header;
    QStringList parts;
    if (header.sequence > 0) parts << QStringLiteral("#%1").arg(header.sequence);
    if (!header.label.empty()) parts << QString::fromStdString(header.label);
    QString text = parts.join(QLatin1Char(' '));
    if (header.time_unix_ns > 0) {
        const QDateTime when = QDateTime::fromMSecsSinceEpoch(header.time_unix_ns / 1'000'000);
        if (!text.isEmpty()) text += QStringLiteral(", ");
        text += when.toString(QStringLiteral("HH:mm:ss"));
    }
    const QString file = analysis.path().empty() ? tr("in memory")
                                                 : QFileInfo(QString::fromStdString(analysis.path())).fileName();
    return text.isEmpty() ? file : text + QStringLiteral(" (") + file + QLatin1Char(')');
}

void SnapshotTimeline::add(const AnalysisPtr& analysis) {
    if (!analysis || indexOf(analysis) >= 0) return;
    const auto position = std::upper_bound(snapshots_.begin(), snapshots_.end(), analysis, comes_before);
    snapshots_.insert(position, analysis);
    current_ = analysis;
    if (auto_baseline_ && !baseline_) {
        const std::vector<AnalysisPtr> process = sameProcess(analysis);
        if (process.size() >= 2) {
            baseline_ = process.front();
            current_ = process.back();
        }
    }
    normaliseRoles();
    emit snapshotsChanged();
    emit currentChanged(current_);
    emit comparisonChanged();
}

void SnapshotTimeline::remove(const AnalysisPtr& closing, CloseReason reason) {
    // A copy: `closing` may be an element of snapshots_, erased below.
    const AnalysisPtr analysis = closing;
    const int index = indexOf(analysis);
    if (index < 0) return;
    // The neighbour in the same process, computed before removal.
    AnalysisPtr next_current = current_;
    if (current_ == analysis) {
        next_current = nullptr;
        std::vector<AnalysisPtr> process = sameProcess(analysis);
        process.erase(std::find(process.begin(), process.end(), analysis));
        if (!process.empty()) {
            next_current = process.back();
        }
    }
    snapshots_.erase(snapshots_.begin() + index);
    if (!next_current && !snapshots_.empty()) next_current = snapshots_.front();
    const bool current_changed = next_current != current_;
    current_ = next_current;
    if (baseline_ == analysis) baseline_.reset();
    if (middle_ == analysis) middle_.reset();
    normaliseRoles();
    emit snapshotClosed(analysis, reason);
    emit snapshotsChanged();
    if (current_changed) emit currentChanged(current_);
    emit comparisonChanged();
}

void SnapshotTimeline::clear() {
    if (snapshots_.empty()) return;
    const std::vector<AnalysisPtr> closed = std::move(snapshots_);
    snapshots_.clear();
    current_.reset();
    baseline_.reset();
    middle_.reset();
    for (const AnalysisPtr& analysis : closed) emit snapshotClosed(analysis, CloseReason::Closed);
    emit snapshotsChanged();
    emit currentChanged(current_);
    emit comparisonChanged();
}

AnalysisPtr SnapshotTimeline::at(int index) const {
    if (index < 0 || index >= count()) return nullptr;
    return snapshots_[static_cast<size_t>(index)];
}

int SnapshotTimeline::indexOf(const AnalysisPtr& analysis) const {
    const auto found = std::find(snapshots_.begin(), snapshots_.end(), analysis);
    return found == snapshots_.end() ? -1 : static_cast<int>(found - snapshots_.begin());
}

AnalysisPtr SnapshotTimeline::findByPath(const QString& path) const {
    const QString wanted = canonicalPath(path);
    for (const AnalysisPtr& analysis : snapshots_) {
        if (!analysis->path().empty() && canonicalPath(QString::fromStdString(analysis->path())) == wanted) {
            return analysis;
        }
    }
    return nullptr;
}

std::vector<AnalysisPtr> SnapshotTimeline::sameProcess(const AnalysisPtr& analysis) const {
    std::vector<AnalysisPtr> result;
    if (!analysis) return result;
    const QString key = processKey(analysis->snapshot());
    for (const AnalysisPtr& other : snapshots_) {
        if (processKey(other->snapshot()) == key) result.push_back(other);
    }
    return result;
}

void SnapshotTimeline::setCurrent(const AnalysisPtr& analysis) {
    if (!analysis || indexOf(analysis) < 0 || analysis == current_) return;
    current_ = analysis;
    normaliseRoles();
    emit currentChanged(current_);
    emit comparisonChanged();
}

void SnapshotTimeline::setBaseline(const AnalysisPtr& analysis) {
    if (analysis && indexOf(analysis) < 0) return;
    if (analysis == baseline_) return;
    baseline_ = analysis;
    normaliseRoles();
    emit comparisonChanged();
}

void SnapshotTimeline::setMiddle(const AnalysisPtr& analysis) {
    if (analysis && indexOf(analysis) < 0) return;
    if (analysis == middle_) return;
    middle_ = analysis;
    normaliseRoles();
    emit comparisonChanged();
}

bool SnapshotTimeline::normaliseRoles() {
    bool changed = false;
    if (baseline_ && baseline_ == current_) {
        baseline_.reset();
        changed = true;
    }
    if (middle_ && (middle_ == current_ || middle_ == baseline_ || !baseline_)) {
        middle_.reset();
        changed = true;
    }
    return changed;
}

}  // namespace refscope::app

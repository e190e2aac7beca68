#include "session/growth_history.h"

#include <algorithm>
#include <tuple>

namespace refscope::app {

bool sample_before(const GrowthSample& a, const GrowthSample& b) {
    return std::tie(a.sequence, a.time_unix_ns, a.path) < std::tie(b.sequence, b.time_unix_ns, b.path);
}

std::vector<GrowthSample> merge_samples(const std::vector<GrowthSample>& retained, std::vector<GrowthSample> open) {
    std::vector<GrowthSample> samples = std::move(open);
    samples.reserve(samples.size() + retained.size());
    const size_t open_count = samples.size();
    for (const GrowthSample& point : retained) {
        // In-memory snapshots ("" path) are never retained, but were one, it
        // could not be told from another: it is kept.
        const auto end = samples.begin() + static_cast<std::ptrdiff_t>(open_count);
        const bool reread = !point.path.isEmpty() && std::any_of(samples.begin(), end, [&](const GrowthSample& s) {
                                return s.path == point.path;
                            });
        if (!reread) samples.push_back(point);
    }
    std::stable_sort(samples.begin(), samples.end(), sample_before);
    return samples;
}

void GrowthHistory::retain(const QString& process, GrowthSample sample) {
    if (!sample.totals) return;
    std::vector<GrowthSample>& points = points_[process];
    if (!sample.path.isEmpty()) {
        std::erase_if(points, [&](const GrowthSample& p) { return p.path == sample.path; });
    }
    points.insert(std::upper_bound(points.begin(), points.end(), sample, sample_before), std::move(sample));
    if (points.size() > limit_) points.erase(points.begin(), points.end() - static_cast<std::ptrdiff_t>(limit_));
}

void GrowthHistory::forget(const QString& process, const QString& path) {
    const auto found = points_.find(process);
    if (found == points_.end() || path.isEmpty()) return;
    std::erase_if(found->second, [&](const GrowthSample& p) { return p.path == path; });
    if (found->second.empty()) points_.erase(found);
}

void GrowthHistory::forget(const QString& process) { points_.erase(process); }

const std::vector<GrowthSample>& GrowthHistory::samples(const QString& process) const {
    static const std::vector<GrowthSample> none;
    const auto found = points_.find(process);
    return found == points_.end() ? none : found->second;
}

}  // namespace refscope::app

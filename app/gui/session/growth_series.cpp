#include "session/growth_series.h"

#include <algorithm>
#include <tuple>

namespace refscope::app {

namespace {

bool by_name(const analysis::GroupTotal& a, std::string_view name) { return a.name < name; }

const analysis::GroupTotal* find_type(const TypeTotals& totals, std::string_view name) {
    const auto found = std::lower_bound(totals.begin(), totals.end(), name, by_name);
    return found != totals.end() && found->name == name ? &*found : nullptr;
}

uint64_t measured(const analysis::GroupTotal* total, GrowthMeasure measure) {
    if (!total) return 0;
    return measure == GrowthMeasure::Objects ? total->objects : total->bytes;
}

struct Candidate {
    std::string_view type;
    int64_t growth = 0;
    uint64_t last = 0;
};

// Types that grew from the first snapshot to the last, most first. Only the
// two ends matter, so this merges two sorted lists: no per-sample work.
std::vector<Candidate> grown_types(const TypeTotals& first, const TypeTotals& last, GrowthMeasure measure) {
    std::vector<Candidate> grown;
    for (const analysis::GroupTotal& total : last) {
        const uint64_t before = measured(find_type(first, total.name), measure);
        const uint64_t after = measured(&total, measure);
        if (after > before) grown.push_back({total.name, static_cast<int64_t>(after - before), after});
    }
    // Most growth, then the bigger type, then by name: a stable order that
    // does not shuffle the legend between two runs.
    std::sort(grown.begin(), grown.end(), [](const Candidate& a, const Candidate& b) {
        return std::tie(b.growth, b.last, a.type) < std::tie(a.growth, a.last, b.type);
    });
    return grown;
}

GrowthLine line_of(std::string_view type, const std::vector<GrowthSample>& samples) {
    GrowthLine line;
    line.type = std::string(type);
    line.objects.reserve(samples.size());
    line.bytes.reserve(samples.size());
    for (const GrowthSample& sample : samples) {
        const analysis::GroupTotal* total = find_type(*sample.totals, type);
        line.objects.push_back(total ? total->objects : 0);
        line.bytes.push_back(total ? total->bytes : 0);
    }
    return line;
}

}  // namespace

TypeTotalsPtr count_types(const Snapshot& snapshot) {
    TypeTotals totals = analysis::group_objects(snapshot, analysis::GroupBy::Type);
    std::sort(totals.begin(), totals.end(),
              [](const analysis::GroupTotal& a, const analysis::GroupTotal& b) { return a.name < b.name; });
    return std::make_shared<const TypeTotals>(std::move(totals));
}

int64_t GrowthLine::growth(GrowthMeasure measure) const {
    const std::vector<uint64_t>& v = values(measure);
    if (v.empty()) return 0;
    return static_cast<int64_t>(v.back()) - static_cast<int64_t>(v.front());
}

double GrowthSeries::x(size_t sample) const {
    if (sample >= samples.size()) return 0;
    if (!timed) return static_cast<double>(sample);
    return static_cast<double>(samples[sample].time_unix_ns - samples.front().time_unix_ns) / 1e9;
}

QString GrowthSeries::shortLabel(size_t sample) const {
    if (sample >= samples.size()) return {};
    const uint64_t sequence = samples[sample].sequence;
    return QStringLiteral("#%1").arg(sequence > 0 ? sequence : sample + 1);
}

const GrowthLine* GrowthSeries::chosenLine() const {
    for (const GrowthLine& line : lines) {
        if (line.chosen) return &line;
    }
    return nullptr;
}

GrowthSeries build_growth_series(std::vector<GrowthSample> samples, GrowthMeasure measure,
                                 std::string_view chosen_type, size_t top) {
    GrowthSeries series;
    series.measure = measure;
    std::erase_if(samples, [](const GrowthSample& s) { return !s.totals; });
    series.samples = std::move(samples);
    const std::vector<GrowthSample>& s = series.samples;
    series.timed = !s.empty();
    for (size_t i = 0; i < s.size() && series.timed; ++i) {
        series.timed = s[i].time_unix_ns > 0 && (i == 0 || s[i].time_unix_ns > s[i - 1].time_unix_ns);
    }
    if (s.size() < 2) return series;

    const std::vector<Candidate> grown = grown_types(*s.front().totals, *s.back().totals, measure);
    for (size_t i = 0; i < grown.size() && i < top; ++i) {
        series.lines.push_back(line_of(grown[i].type, s));
        series.lines.back().chosen = grown[i].type == chosen_type && !chosen_type.empty();
    }
    if (!chosen_type.empty() && !series.chosenLine()) {
        // Shown even if it shrank or held still: that is the answer too.
        const bool present = std::any_of(s.begin(), s.end(), [&](const GrowthSample& sample) {
            return find_type(*sample.totals, chosen_type) != nullptr;
        });
        if (present) {
            series.lines.push_back(line_of(chosen_type, s));
            series.lines.back().chosen = true;
        }
    }
    return series;
}

}  // namespace refscope::app

// GrowthSeries (app/gui/session/growth_series.h): per-type totals of real
// snapshots (built with the session fixtures, and the checked-in scenario
// files made by the probe), the top growing types in order, their values per
// snapshot, the top-K limit and the chosen type's line, the x axis.
#include <QtTest>

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "session/growth_history.h"
#include "session/growth_series.h"
#include "session_fixtures.h"

using namespace refscope;
using namespace refscope::app;

namespace {


GrowthSample sample_of(const Snapshot& s) {
    return {s.header.sequence, s.header.time_unix_ns, QString::fromStdString(s.header.label), count_types(s), {}};
}

std::vector<GrowthSample> registry_samples(const std::vector<Snapshot>& snapshots) {
    std::vector<GrowthSample> samples;
    for (const Snapshot& s : snapshots) samples.push_back(sample_of(s));
    return samples;
}

}  // namespace

class GrowthSeriesTest : public QObject {
    Q_OBJECT
private slots:
    void countsEveryTypeOfTheSnapshot();
    void topGrowingTypesComeFirstWithTheirValuesPerSnapshot();
    void topLimitsTheLinesAndKeepsTheChosenType();
    void fewerThanTwoSnapshotsDrawNothing();
    void snapshotsWithoutTimesAreEvenlySpaced();
    void checkedInScenarioShowsTheRegistryGrowing();
    void historyJoinsTheOpenSnapshotsInTimelineOrder();
    void historyIsBoundedAndForgetsWhatAPersonCloses();
};

void GrowthSeriesTest::countsEveryTypeOfTheSnapshot() {
    const Snapshot s = testing::make_registry_snapshot(25, 1);
    const TypeTotalsPtr totals = count_types(s);
    const auto expected = testing::tally_types(s);
    QCOMPARE(totals->size(), expected.size());
    QVERIFY(std::is_sorted(totals->begin(), totals->end(),
                           [](const auto& a, const auto& b) { return a.name < b.name; }));
    for (const analysis::GroupTotal& total : *totals) {
        const auto found = expected.find(total.name);
        QVERIFY2(found != expected.end(), total.name.c_str());
        QCOMPARE(total.objects, found->second.first);
        QCOMPARE(total.bytes, found->second.second);
    }
    QCOMPARE(expected.at("app.Session").first, uint64_t{25});
}

void GrowthSeriesTest::topGrowingTypesComeFirstWithTheirValuesPerSnapshot() {
    std::vector<Snapshot> snapshots;
    for (const uint32_t sessions : {10u, 60u, 160u}) {
        snapshots.push_back(testing::make_registry_snapshot(sessions, snapshots.size() + 1));
    }
    for (const GrowthMeasure measure : {GrowthMeasure::Objects, GrowthMeasure::Bytes}) {
        const GrowthSeries series = build_growth_series(registry_samples(snapshots), measure);
        QCOMPARE(series.samples.size(), size_t{3});
        // Only str (a key and a token per session) and app.Session grow; the
        // module, its dict and the registry dict keep their sizes.
        QCOMPARE(series.lines.size(), size_t{2});
        std::vector<std::string> types;
        for (const GrowthLine& line : series.lines) types.push_back(line.type);
        std::sort(types.begin(), types.end());
        QCOMPARE(types, (std::vector<std::string>{"app.Session", "str"}));
        QVERIFY(series.lines[0].growth(measure) >= series.lines[1].growth(measure));
        for (const GrowthLine& line : series.lines) {
            QVERIFY(!line.chosen);
            QCOMPARE(line.objects.size(), size_t{3});
            for (size_t i = 0; i < snapshots.size(); ++i) {
                const auto counted = testing::tally_types(snapshots[i]).at(line.type);
                QCOMPARE(line.objects[i], counted.first);
                QCOMPARE(line.bytes[i], counted.second);
            }
        }
    }
    const GrowthSeries objects = build_growth_series(registry_samples(snapshots), GrowthMeasure::Objects);
    QCOMPARE(objects.lines[0].type, std::string("str"));  // two per session
    QCOMPARE(objects.lines[0].growth(GrowthMeasure::Objects), int64_t{300});
    QCOMPARE(objects.lines[1].objects, (std::vector<uint64_t>{10, 60, 160}));
    QCOMPARE(objects.lines[1].bytes, (std::vector<uint64_t>{560, 3360, 8960}));
    // The fixture's snapshots are a second apart: x is time.
    QVERIFY(objects.timed);
    QCOMPARE(objects.x(0), 0.0);
    QCOMPARE(objects.x(2), 2.0);
    QCOMPARE(objects.shortLabel(1), QStringLiteral("#2"));
    QCOMPARE(objects.samples[2].label, QStringLiteral("after 160 logins"));
}

void GrowthSeriesTest::topLimitsTheLinesAndKeepsTheChosenType() {
    std::vector<Snapshot> snapshots{testing::make_registry_snapshot(10, 1), testing::make_registry_snapshot(40, 2)};
    const GrowthMeasure measure = GrowthMeasure::Objects;

    GrowthSeries top1 = build_growth_series(registry_samples(snapshots), measure, {}, 1);
    QCOMPARE(top1.lines.size(), size_t{1});
    QCOMPARE(top1.lines[0].type, std::string("str"));
    QVERIFY(!top1.chosenLine());

    // The chosen suspect's type below the cut: added after the top ones.
    top1 = build_growth_series(registry_samples(snapshots), measure, "app.Session", 1);
    QCOMPARE(top1.lines.size(), size_t{2});
    QCOMPARE(top1.lines[1].type, std::string("app.Session"));
    QVERIFY(top1.lines[1].chosen && !top1.lines[0].chosen);
    QCOMPARE(top1.chosenLine(), &top1.lines[1]);

    // Among the top ones: marked where it is, not repeated.
    const GrowthSeries top8 = build_growth_series(registry_samples(snapshots), measure, "app.Session");
    QCOMPARE(top8.lines.size(), size_t{2});
    QCOMPARE(top8.chosenLine()->type, std::string("app.Session"));

    // A type that did not grow is shown when chosen: flat is an answer too.
    const GrowthSeries flat = build_growth_series(registry_samples(snapshots), measure, "dict", 1);
    QCOMPARE(flat.lines.size(), size_t{2});
    QCOMPARE(flat.lines[1].type, std::string("dict"));
    QCOMPARE(flat.lines[1].objects, (std::vector<uint64_t>{2, 2}));
    QCOMPARE(flat.lines[1].growth(measure), int64_t{0});

    // A type no snapshot has: nothing to draw for it.
    const GrowthSeries missing = build_growth_series(registry_samples(snapshots), measure, "app.Nothing", 1);
    QCOMPARE(missing.lines.size(), size_t{1});
    QVERIFY(!missing.chosenLine());
}

void GrowthSeriesTest::fewerThanTwoSnapshotsDrawNothing() {
    std::vector<Snapshot> one{testing::make_registry_snapshot(10, 1)};
    const GrowthSeries series = build_growth_series(registry_samples(one), GrowthMeasure::Bytes, "app.Session");
    QCOMPARE(series.samples.size(), size_t{1});
    QVERIFY(series.lines.empty());
    // Samples without totals (not counted yet) are left out.
    std::vector<GrowthSample> samples = registry_samples(one);
    samples.push_back({2, 0, QStringLiteral("pending"), nullptr, {}});
    QCOMPARE(build_growth_series(std::move(samples), GrowthMeasure::Bytes).samples.size(), size_t{1});
}

void GrowthSeriesTest::snapshotsWithoutTimesAreEvenlySpaced() {
    std::vector<Snapshot> snapshots;
    for (uint32_t i = 0; i < 3; ++i) {
        snapshots.push_back(testing::make_registry_snapshot(10 + 10 * i, 0));
        snapshots.back().header.time_unix_ns = 0;
    }
    const GrowthSeries series = build_growth_series(registry_samples(snapshots), GrowthMeasure::Objects);
    QVERIFY(!series.timed);
    QCOMPARE(series.x(2), 2.0);
    QCOMPARE(series.shortLabel(2), QStringLiteral("#3"));  // no sequence numbers: the position
    QCOMPARE(series.lines.size(), size_t{2});
}

void GrowthSeriesTest::checkedInScenarioShowsTheRegistryGrowing() {
    // A real process (tests/gui_window/scenario): 50 logins, then 200 more.
    std::vector<std::unique_ptr<analysis::SnapshotAnalysis>> loaded;
    std::vector<GrowthSample> samples;
    for (const char* name : {"app-registry-1.rscope", "app-registry-2.rscope"}) {
        loaded.push_back(analysis::SnapshotAnalysis::load(std::string(REFSCOPE_TEST_DATA_DIR "/") + name,
                                                          analysis::AnalysisOptions::snapshot_only()));
        samples.push_back(sample_of(loaded.back()->snapshot()));
    }
    const GrowthSeries series = build_growth_series(std::move(samples), GrowthMeasure::Objects);
    // The Session objects and their strs grow (no other type gains objects).
    QVERIFY(series.lines.size() >= 2 && series.lines.size() <= kGrowthTopTypes);
    for (size_t i = 1; i < series.lines.size(); ++i) {
        QVERIFY(series.lines[i - 1].growth(GrowthMeasure::Objects) >= series.lines[i].growth(GrowthMeasure::Objects));
        QVERIFY(series.lines[i].growth(GrowthMeasure::Objects) > 0);
    }
    const auto session = std::find_if(series.lines.begin(), series.lines.end(),
                                      [](const GrowthLine& line) { return line.type == "leaky_registry.Session"; });
    QVERIFY(session != series.lines.end());
    QCOMPARE(session->objects, (std::vector<uint64_t>{50, 250}));
    // Every line's values are the snapshots' own counts.
    for (const GrowthLine& line : series.lines) {
        for (size_t i = 0; i < loaded.size(); ++i) {
            QCOMPARE(line.objects[i], testing::tally_types(loaded[i]->snapshot()).at(line.type).first);
        }
    }
}

namespace {

// Snapshot `sequence` of a registry process, as the file `s<sequence>.rscope`.
GrowthSample registry_point(uint64_t sequence) {
    GrowthSample sample = sample_of(testing::make_registry_snapshot(static_cast<uint32_t>(10 * sequence), sequence));
    sample.path = QStringLiteral("/session/s%1.rscope").arg(sequence);
    return sample;
}

}  // namespace

void GrowthSeriesTest::historyJoinsTheOpenSnapshotsInTimelineOrder() {
    // Retained #1, #3, #4 (closed by the live limit), open #2 and #5; #3 was
    // opened again (its open reading replaces the retained point).
    GrowthHistory history;
    const QString process = QStringLiteral("5150|/usr/bin/python3");
    for (const uint64_t sequence : std::initializer_list<uint64_t>{4, 1, 3}) history.retain(process, registry_point(sequence));
    QCOMPARE(history.count(process), size_t{3});
    QCOMPARE(history.count(QStringLiteral("other")), size_t{0});
    const GrowthSample reopened = registry_point(3);
    const std::vector<GrowthSample> merged = merge_samples(history.samples(process),
                                                           {registry_point(5), reopened, registry_point(2)});
    QCOMPARE(merged.size(), size_t{5});
    for (size_t i = 0; i < merged.size(); ++i) QCOMPARE(merged[i].sequence, i + 1);
    QCOMPARE(merged[2].totals, reopened.totals);
    // One series over them: the x axis is their own times, the values theirs.
    const GrowthSeries series = build_growth_series(merged, GrowthMeasure::Objects);
    QVERIFY(series.timed);
    QCOMPARE(series.x(4), 4.0);  // the fixture's snapshots are 1 s apart
    QCOMPARE(series.shortLabel(3), QStringLiteral("#4"));
    const auto session = std::find_if(series.lines.begin(), series.lines.end(),
                                      [](const GrowthLine& line) { return line.type == "app.Session"; });
    QVERIFY(session != series.lines.end());
    QCOMPARE(session->objects, (std::vector<uint64_t>{10, 20, 30, 40, 50}));
}

void GrowthSeriesTest::historyIsBoundedAndForgetsWhatAPersonCloses() {
    GrowthHistory history(3);
    const QString process = QStringLiteral("5150|/usr/bin/python3");
    for (uint64_t sequence = 1; sequence <= 5; ++sequence) history.retain(process, registry_point(sequence));
    // The newest 3 are kept.
    QCOMPARE(history.count(process), size_t{3});
    QCOMPARE(history.samples(process).front().sequence, uint64_t{3});
    QCOMPARE(history.samples(process).back().sequence, uint64_t{5});
    // The same file again replaces its point.
    history.retain(process, registry_point(4));
    QCOMPARE(history.count(process), size_t{3});
    // Without totals, nothing is kept.
    GrowthSample uncounted = registry_point(6);
    uncounted.totals = nullptr;
    history.retain(process, uncounted);
    QCOMPARE(history.count(process), size_t{3});
    history.forget(process, QStringLiteral("/session/s4.rscope"));
    QCOMPARE(history.count(process), size_t{2});
    history.forget(process);
    QCOMPARE(history.count(process), size_t{0});
    QCOMPARE(GrowthHistory().limit(), GrowthHistory::kDefaultLimit);
}

QTEST_GUILESS_MAIN(GrowthSeriesTest)
#include "growth_series_test.moc"

// The staged pipeline: every analysis is built, progress runs 0 → 1 in stage
// order, cancel stops it with AnalysisCancelled, the parallel and serial runs
// agree, a bad file is the reader's ReadError, the CLI's presets (snapshot
// only, graph only, what a filter reads) build just those stages, and a
// Comparison ranks with growth evidence.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <vector>

#include "refscope/analysis/comparison.h"
#include "refscope/analysis/filter_columns.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "refscope/format/snapshot_io.h"
#include "snapshot_builder.h"

namespace {

using namespace refscope;
using namespace refscope::analysis;
using refscope::testing::SnapshotBuilder;

// module dict → two Leaky objects in a cycle; one Orphan held by unexplained surplus.
Snapshot small_heap() {
    SnapshotBuilder b;
    const uint32_t module_dict = b.node("dict", 1);
    const uint32_t a = b.node("Leaky", 2, {}, 64, format::kNodeGcTracked, "app");
    const uint32_t c = b.node("Leaky", 1, {}, 64, format::kNodeGcTracked, "app");
    const uint32_t orphan = b.node("Orphan", 1, {}, 100, format::kNodeGcTracked, "app");
    b.edge(module_dict, a);
    b.edge(a, c);
    b.edge(c, a);
    (void)orphan;
    b.root(module_dict, format::RootKind::Interpreter, "sys.modules");
    return b.build();
}

// Records the stages and fractions an analysis reports.
struct ProgressLog {
    std::vector<AnalysisStage> stages;
    std::vector<double> fractions;
    // `options` with its progress callback recording here.
    AnalysisOptions into(AnalysisOptions options = {}) {
        options.progress = [this](AnalysisStage stage, double fraction) {
            stages.push_back(stage);
            fractions.push_back(fraction);
        };
        return options;
    }
};

TEST(SnapshotAnalysis, BuildsEveryStageAndReportsProgressInOrder) {
    ProgressLog log;
    const auto result = SnapshotAnalysis::analyse(small_heap(), log.into());
    const auto& stages = log.stages;
    const auto& fractions = log.fractions;
    ASSERT_NE(result->dominators(), nullptr);
    ASSERT_NE(result->cycles(), nullptr);
    ASSERT_NE(result->suspects(), nullptr);
    EXPECT_EQ(result->snapshot().node_count(), 4u);
    EXPECT_EQ(result->cycles()->count(), 1u);
    EXPECT_EQ(result->roots().unexplained(3), 1);
    EXPECT_FALSE(result->paths().reachable(3));
    EXPECT_EQ(result->dominators()->retained_size(1), 128u);
    ASSERT_FALSE(stages.empty());
    EXPECT_EQ(stages.front(), AnalysisStage::Index);
    EXPECT_EQ(stages.back(), AnalysisStage::Done);
    EXPECT_DOUBLE_EQ(fractions.front(), 0.0);
    EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
    for (size_t i = 1; i < stages.size(); ++i) {
        EXPECT_LT(stages[i - 1], stages[i]);
        EXPECT_LE(fractions[i - 1], fractions[i]);
    }
    // The suspects name the orphan: unexplained surplus.
    const SuspectGroup* orphan = result->suspects()->find("Orphan");
    ASSERT_NE(orphan, nullptr);
    EXPECT_TRUE(orphan->kinds & kSuspectUnexplainedSurplus);
}

TEST(SnapshotAnalysis, ParallelAndSerialAgree) {
    AnalysisOptions serial;
    serial.parallel = false;
    const auto one = SnapshotAnalysis::analyse(small_heap(), serial);
    const auto two = SnapshotAnalysis::analyse(small_heap(), {});
    for (uint32_t n = 0; n < 4; ++n) {
        EXPECT_EQ(one->dominators()->idom(n), two->dominators()->idom(n));
        EXPECT_EQ(one->dominators()->retained_size(n), two->dominators()->retained_size(n));
        EXPECT_EQ(one->cycles()->cycle_of(n), two->cycles()->cycle_of(n));
    }
    EXPECT_EQ(one->suspects()->groups().size(), two->suspects()->groups().size());
}

TEST(SnapshotAnalysis, StagesCanBeLeftOut) {
    AnalysisOptions options;
    options.suspects = false;
    options.dominators = false;
    const auto result = SnapshotAnalysis::analyse(small_heap(), options);
    EXPECT_EQ(result->dominators(), nullptr);
    EXPECT_EQ(result->suspects(), nullptr);
    ASSERT_NE(result->cycles(), nullptr);
}

TEST(SnapshotAnalysis, CancelStopsAtTheNextStage) {
    std::atomic<bool> cancel{false};
    std::vector<AnalysisStage> stages;
    AnalysisOptions options;
    options.cancel = &cancel;
    options.progress = [&](AnalysisStage stage, double) {
        stages.push_back(stage);
        if (stage == AnalysisStage::Roots) cancel = true;
    };
    EXPECT_THROW(SnapshotAnalysis::analyse(small_heap(), options), AnalysisCancelled);
    ASSERT_FALSE(stages.empty());
    EXPECT_EQ(stages.back(), AnalysisStage::Roots);
}

TEST(SnapshotAnalysis, LoadsAFileAndRefusesABadOne) {
    const auto dir = std::filesystem::temp_directory_path() / "refscope_analysis_test";
    std::filesystem::create_directories(dir);
    const auto good = (dir / "good.rscope").string();
    format::write_snapshot_file(small_heap(), good);
    ProgressLog log;
    const auto result = SnapshotAnalysis::load(good, log.into());
    const auto& stages = log.stages;
    EXPECT_EQ(result->path(), good);
    EXPECT_EQ(result->snapshot().node_count(), 4u);
    ASSERT_FALSE(stages.empty());
    EXPECT_EQ(stages.front(), AnalysisStage::Read);
    EXPECT_GT(result->stage_seconds(AnalysisStage::Read), 0.0);

    EXPECT_THROW(SnapshotAnalysis::load((dir / "missing.rscope").string()), format::ReadError);
    std::filesystem::remove_all(dir);
}

TEST(SnapshotAnalysis, SnapshotOnlyReadsAndStops) {
    ProgressLog log;
    const auto result = SnapshotAnalysis::analyse(small_heap(), log.into(AnalysisOptions::snapshot_only()));
    const auto& stages = log.stages;
    EXPECT_FALSE(result->has_graph());
    EXPECT_EQ(result->dominators(), nullptr);
    EXPECT_EQ(result->cycles(), nullptr);
    EXPECT_EQ(result->suspects(), nullptr);
    EXPECT_EQ(result->snapshot().node_count(), 4u);
    EXPECT_EQ(stages, std::vector<AnalysisStage>{AnalysisStage::Done});
}

TEST(SnapshotAnalysis, AnalyseReadSharesTheSnapshotReadAndContinuesItsProgress) {
    // The app's two steps: read alone (the summary shows it), then the rest
    // on the same snapshot in memory.
    const auto dir = std::filesystem::temp_directory_path() / "refscope_analysis_read_test";
    std::filesystem::create_directories(dir);
    const auto file = (dir / "heap.rscope").string();
    format::write_snapshot_file(small_heap(), file);
    const auto read = SnapshotAnalysis::load(file, AnalysisOptions::snapshot_only());
    ASSERT_FALSE(read->has_graph());
    ProgressLog log;
    const auto full = SnapshotAnalysis::analyse_read(*read, log.into());
    const auto& stages = log.stages;
    const auto& fractions = log.fractions;
    EXPECT_EQ(&full->snapshot(), &read->snapshot());
    EXPECT_EQ(full->path(), file);
    ASSERT_NE(full->suspects(), nullptr);
    EXPECT_EQ(full->dominators()->retained_size(1), 128u);
    ASSERT_FALSE(stages.empty());
    EXPECT_EQ(stages.front(), AnalysisStage::Index);
    EXPECT_GT(fractions.front(), 0.0);  // the read is done: the bar does not start again
    EXPECT_DOUBLE_EQ(fractions.back(), 1.0);
    std::filesystem::remove_all(dir);
}

TEST(SnapshotAnalysis, GraphOnlyStopsAfterTheRetentionPaths) {
    const auto result = SnapshotAnalysis::analyse(small_heap(), AnalysisOptions::graph_only());
    ASSERT_TRUE(result->has_graph());
    EXPECT_EQ(result->paths().reachable_count(), 3u);
    EXPECT_EQ(result->dominators(), nullptr);
    EXPECT_EQ(result->cycles(), nullptr);
}

TEST(SnapshotAnalysis, AFilterLoadsOnlyTheStagesItReads) {
    const auto stages_of = [](const char* text) { return analysis_options_for(filter_needs(parse_filter(text))); };
    const AnalysisOptions size = stages_of("size>10");
    EXPECT_FALSE(size.graph || size.dominators || size.cycles || size.suspects);
    const AnalysisOptions reachable = stages_of("unreachable");
    EXPECT_TRUE(reachable.graph);
    EXPECT_FALSE(reachable.dominators || reachable.cycles || reachable.suspects);
    const AnalysisOptions retained = stages_of("retained>10");
    EXPECT_TRUE(retained.dominators);
    EXPECT_FALSE(retained.cycles || retained.suspects);

    // A column the analysis lacks is refused, not read as zero.
    const auto bare = SnapshotAnalysis::analyse(small_heap(), size);
    const FilterColumns columns(*bare, filter_needs(parse_filter("retained>10")));
    EXPECT_THROW(select_nodes(parse_filter("retained>10"), columns.context()), FilterContextError);
    const auto full = SnapshotAnalysis::analyse(small_heap(), retained);
    const FilterColumns with_tree(*full, filter_needs(parse_filter("retained>100")));
    EXPECT_EQ(select_nodes(parse_filter("retained>100"), with_tree.context()).size(), 2u);  // dict, first Leaky
}

// Snapshots of one process; later ones have `extra` more Leaky objects, held
// by unexplained references.
Snapshot grown_heap(uint64_t sequence, int extra) {
    SnapshotBuilder b;
    const uint32_t module_dict = b.node("dict", 1);
    const uint32_t a = b.node("Leaky", 2, {}, 64, format::kNodeGcTracked, "app");
    b.edge(module_dict, a);
    for (int i = 0; i < extra; ++i) b.node("Leaky", 1, {}, 64, format::kNodeGcTracked, "app");
    b.root(module_dict, format::RootKind::Interpreter, "sys.modules");
    Snapshot s = b.build();
    s.header.pid = 42;
    s.header.sequence = sequence;
    return s;
}

TEST(Comparison, RanksTheCurrentSnapshotWithGrowthEvidence) {
    const SharedAnalysis before = SnapshotAnalysis::analyse(grown_heap(1, 0), AnalysisOptions::snapshot_only());
    const SharedAnalysis after = SnapshotAnalysis::analyse(grown_heap(2, 50));
    const auto c = Comparison::compute(before, nullptr, after);
    EXPECT_EQ(c->new_column().size(), after->snapshot().node_count());
    EXPECT_EQ(c->diff().totals.new_objects, 50u);
    const SuspectGroup* leaky = c->suspects().find("Leaky");
    ASSERT_NE(leaky, nullptr);
    EXPECT_TRUE(leaky->kinds & kSuspectGrowth);
    EXPECT_EQ(leaky->growth_objects, 50);
    // In the wrong order, or without the stages suspects need, it refuses.
    EXPECT_THROW(Comparison::compute(after, nullptr, before), std::invalid_argument);
    EXPECT_THROW(Comparison::compute(SnapshotAnalysis::analyse(grown_heap(2, 0)), nullptr,
                                     SnapshotAnalysis::analyse(grown_heap(1, 0))),
                 SnapshotMismatchError);
}

}  // namespace

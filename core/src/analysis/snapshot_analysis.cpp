#include "refscope/analysis/snapshot_analysis.h"

#include <chrono>
#include <utility>

#include "background_job.h"
#include "refscope/format/snapshot_io.h"

namespace refscope::analysis {

namespace {

// Each stage's share of the pipeline, in seconds on the 10M-node benchmark
// (docs/performance-analysis-cuts.md). One after the other: read 0.64, index 0.19, roots
// 0.04, BFS 0.47, dominators 1.4, cycles 0.9, suspects 0.5 (of which 0.2
// build the in-edges). With the dominator tree on its own thread (beside BFS
// and cycles) its report comes after the BFS, when about 0.95 s remain before
// the suspects, and Cycles is not reported. Only the bar's smoothness depends
// on these.
constexpr double kSerialWeight[] = {0.64, 0.19, 0.04, 0.47, 1.4, 0.9, 0.5};
constexpr double kParallelWeight[] = {0.64, 0.19, 0.04, 0.47, 0.95, 0.0, 0.5};

// Whether run() puts the dominator tree on a second thread.
bool dominators_in_parallel(const AnalysisOptions& options) {
    return options.parallel && (options.dominators || options.suspects);
}

double weight_before(const AnalysisOptions& options, AnalysisStage stage) {
    const double* weight = dominators_in_parallel(options) ? kParallelWeight : kSerialWeight;
    double sum = 0;
    for (int s = 0; s < static_cast<int>(stage); ++s) sum += weight[s];
    return sum;
}

double total_weight(const AnalysisOptions& options) {
    return weight_before(options, AnalysisStage::Done);
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

void check_cancel(const AnalysisOptions& options) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) throw AnalysisCancelled();
}

// The index's out-offsets say each edge's source: the per-edge column (12
// bytes per node at 3 edges per node) goes before the snapshot is shared, so
// every later stage's peak is that much lower, and no thread reading a
// shared (const) snapshot sees it change.
std::shared_ptr<const Snapshot> shared_for_analysis(Snapshot snapshot) {
    snapshot.drop_edge_sources();
    return std::make_shared<const Snapshot>(std::move(snapshot));
}

}  // namespace

std::string_view analysis_stage_name(AnalysisStage stage) {
    switch (stage) {
    case AnalysisStage::Read: return "reading";
    case AnalysisStage::Index: return "indexing";
    case AnalysisStage::Roots: return "classifying roots";
    case AnalysisStage::Paths: return "finding retention paths";
    case AnalysisStage::Dominators: return "building the dominator tree";
    case AnalysisStage::Cycles: return "finding cycles";
    case AnalysisStage::Suspects: return "ranking leak suspects";
    case AnalysisStage::Done: return "done";
    }
    return "?";
}

SnapshotAnalysis::~SnapshotAnalysis() = default;

std::unique_ptr<SnapshotAnalysis> SnapshotAnalysis::load(const std::string& path,
                                                         const AnalysisOptions& options) {
    check_cancel(options);
    if (options.progress) options.progress(AnalysisStage::Read, 0.0);
    const auto start = Clock::now();
    std::unique_ptr<SnapshotAnalysis> result(new SnapshotAnalysis());
    result->path_ = path;
    result->snapshot_ = shared_for_analysis(format::read_snapshot_file(path));
    result->stage_seconds_[static_cast<int>(AnalysisStage::Read)] = seconds_since(start);
    result->run(options, weight_before(options, AnalysisStage::Index) / total_weight(options));
    return result;
}

std::unique_ptr<SnapshotAnalysis> SnapshotAnalysis::analyse(Snapshot snapshot,
                                                            const AnalysisOptions& options) {
    std::unique_ptr<SnapshotAnalysis> result(new SnapshotAnalysis());
    result->snapshot_ = shared_for_analysis(std::move(snapshot));
    result->run(options, 0.0);
    return result;
}

std::unique_ptr<SnapshotAnalysis> SnapshotAnalysis::analyse_read(const SnapshotAnalysis& read,
                                                                 const AnalysisOptions& options) {
    std::unique_ptr<SnapshotAnalysis> result(new SnapshotAnalysis());
    result->path_ = read.path_;
    result->snapshot_ = read.snapshot_;
    result->stage_seconds_[static_cast<int>(AnalysisStage::Read)] = read.stage_seconds(AnalysisStage::Read);
    result->run(options, weight_before(options, AnalysisStage::Index) / total_weight(options));
    return result;
}

SuspectInputs SnapshotAnalysis::suspect_inputs() const {
    SuspectInputs inputs;
    inputs.index = index_.get();
    inputs.roots = roots_.get();
    inputs.paths = paths_.get();
    inputs.dominators = dominators_.get();
    inputs.cycles = cycles_.get();
    return inputs;
}

void SnapshotAnalysis::run(const AnalysisOptions& options, double done_before) {
    const bool want_suspects = options.suspects;
    const bool want_dominators = options.dominators || want_suspects;
    const bool want_cycles = options.cycles || want_suspects;
    // Progress fractions are rescaled so that a pipeline without the read
    // stage still runs from 0 to 1.
    const double skipped = done_before > 0 ? 0.0 : weight_before(options, AnalysisStage::Index);
    const double span = total_weight(options) - skipped;
    auto report = [&](AnalysisStage stage) {
        check_cancel(options);
        if (!options.progress) return;
        double fraction = (weight_before(options, stage) - skipped) / span;
        if (stage == AnalysisStage::Done) fraction = 1.0;
        options.progress(stage, fraction);
    };
    if (!options.graph && !want_dominators && !want_cycles) {
        report(AnalysisStage::Done);
        return;
    }
    // Times one stage into stage_seconds_ (the dominator tree's on its own
    // thread when parallel).
    auto timed = [&](AnalysisStage stage, auto&& build) {
        const auto start = Clock::now();
        build();
        stage_seconds_[static_cast<int>(stage)] = seconds_since(start);
    };
    auto build_paths = [&] {
        timed(AnalysisStage::Paths, [&] { paths_ = std::make_unique<RetentionPaths>(*index_, *roots_); });
    };
    auto build_dominators = [&] {
        timed(AnalysisStage::Dominators, [&] {
            dominators_ = std::make_unique<DominatorTree>(*index_, *roots_, options.dominator_roots);
        });
    };
    auto build_cycles = [&] {
        timed(AnalysisStage::Cycles, [&] { cycles_ = std::make_unique<Cycles>(*index_, *roots_, *paths_); });
    };

    report(AnalysisStage::Index);
    timed(AnalysisStage::Index, [&] { index_ = std::make_unique<GraphIndex>(*snapshot_); });
    report(AnalysisStage::Roots);
    timed(AnalysisStage::Roots, [&] { roots_ = std::make_unique<RootClasses>(*index_); });
    report(AnalysisStage::Paths);
    if (dominators_in_parallel(options)) {
        // The dominator tree needs only the index and the root classes, so
        // it starts now on a second thread while this one runs the BFS and
        // then the cycle finder (which needs the BFS): the two sides take
        // about as long. Its exception (bad_alloc) is carried back and
        // rethrown here once it has finished; a cancel waits for it too.
        BackgroundJob dominators_job;
        dominators_job.start(build_dominators);
        build_paths();
        // From here on the report means "dominators and cycles".
        report(AnalysisStage::Dominators);
        if (want_cycles) build_cycles();
        dominators_job.finish();
    } else {
        build_paths();
        if (want_dominators) {
            report(AnalysisStage::Dominators);
            build_dominators();
        }
        if (want_cycles) {
            report(AnalysisStage::Cycles);
            build_cycles();
        }
    }
    if (want_suspects) {
        report(AnalysisStage::Suspects);
        timed(AnalysisStage::Suspects, [&] {
            // The suspects (and the app's queries after them) read in-edges:
            // built here, once the dominator tree and the cycle finder have
            // freed their scratch, so their size adds to no earlier peak.
            index_->build_in_edges();
            suspects_ = std::make_unique<LeakSuspects>(suspect_inputs(), options.suspect_options);
        });
    }
    report(AnalysisStage::Done);
}

}  // namespace refscope::analysis

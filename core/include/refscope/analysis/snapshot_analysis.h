// SnapshotAnalysis: one snapshot and every analysis over it, built stage by
// stage with progress and cancellation. The desktop app's loader, the CLI's
// verbs, the tests and the benchmarks share this one pipeline, so "how long
// does opening a 10M-object snapshot take" has one answer. The options choose
// the stages: the CLI builds only what a verb needs (`info` reads the file and
// stops; `retained` stops after the dominator tree).
//
//   read ─▶ index ─▶ root classes ─┬─▶ retention BFS ─▶ cycles (SCCs) ─┬─▶ leak suspects
//                                   └─▶ dominator tree ──────────────────┘
//
// The dominator tree needs only the index and the root classes; the cycle
// finder needs the BFS too. With `parallel` the dominator tree runs on a
// second thread while the calling thread runs the BFS and then the cycle
// finder (the machine this targets has two cores; the two sides take about
// as long).
//
// Cancellation is checked between stages (and between the two parallel
// stages' completion): a cancelled pipeline throws AnalysisCancelled and
// frees what it built. Progress is reported as each stage starts, with the
// stage's share of the whole pipeline (measured on the 10M-object benchmark,
// so the bar moves roughly evenly on big heaps).
//
// The pipeline can also run in two steps over one snapshot in memory: load()
// with snapshot_only() reads the file, and analyse_read() runs the rest on
// the snapshot it read, shared rather than copied (the desktop app shows the
// type census from the first while the second runs).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "refscope/analysis/cycles.h"
#include "refscope/analysis/dominator_tree.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/leak_suspects.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/snapshot.h"

namespace refscope::analysis {

enum class AnalysisStage : uint8_t {
    Read,
    Index,
    Roots,
    Paths,
    Dominators,  // with `parallel`, reported (after Paths) for Dominators and Cycles
    Cycles,
    Suspects,
    Done,
};

// "reading", "indexing", "classifying roots", "finding retention paths",
// "building the dominator tree", "finding cycles", "ranking leak suspects",
// "done": what a progress bar shows.
std::string_view analysis_stage_name(AnalysisStage stage);

class AnalysisCancelled : public std::runtime_error {
public:
    AnalysisCancelled() : std::runtime_error("analysis cancelled") {}
};

struct AnalysisOptions {
    // The index, root classes and retention BFS. Off (with the three below)
    // the pipeline reads the snapshot and stops; any of the three turns it on.
    bool graph = true;
    bool dominators = true;  // retained sizes; suspects need them
    bool cycles = true;      // suspects need them
    bool suspects = true;    // needs dominators and cycles (forced on if asked)
    bool parallel = true;    // dominators ∥ (BFS, cycles) on two threads
    DominatorRoots dominator_roots = DominatorRoots::ExplainedAndUnexplained;
    SuspectOptions suspect_options;
    // Called (on the calling thread) as each stage starts, with the fraction
    // of the whole pipeline already done (0 ≤ fraction < 1), and once with
    // Done and 1.0. May be empty.
    std::function<void(AnalysisStage stage, double fraction)> progress;
    // When set and true, the pipeline stops at the next stage boundary and
    // throws AnalysisCancelled.
    const std::atomic<bool>* cancel = nullptr;

    // Reads the snapshot and builds nothing more.
    static AnalysisOptions snapshot_only() {
        AnalysisOptions options = graph_only();
        options.graph = false;
        return options;
    }
    // The index, root classes and retention BFS, and nothing after them.
    static AnalysisOptions graph_only() {
        AnalysisOptions options;
        options.dominators = options.cycles = options.suspects = false;
        return options;
    }
};

class SnapshotAnalysis {
public:
    // Reads `path` (format::ReadError on a bad file), then analyses it.
    static std::unique_ptr<SnapshotAnalysis> load(const std::string& path,
                                                  const AnalysisOptions& options = {});
    // Analyses a snapshot already in memory (taken over; it lives as long as
    // the analysis). The Read stage is skipped.
    static std::unique_ptr<SnapshotAnalysis> analyse(Snapshot snapshot,
                                                     const AnalysisOptions& options = {});
    // Analyses the snapshot `read` holds (usually a load() with
    // snapshot_only()), sharing it: both analyses' snapshot() are the same
    // object. Same path; the Read stage is not run again and its progress
    // fractions continue from where a whole load() would be after reading.
    static std::unique_ptr<SnapshotAnalysis> analyse_read(const SnapshotAnalysis& read,
                                                          const AnalysisOptions& options = {});

    SnapshotAnalysis(const SnapshotAnalysis&) = delete;
    SnapshotAnalysis& operator=(const SnapshotAnalysis&) = delete;
    ~SnapshotAnalysis();

    // Where it was read from; empty when analysed from memory.
    const std::string& path() const { return path_; }
    const Snapshot& snapshot() const { return *snapshot_; }
    // Only when has_graph() (the options asked for the graph, or for a stage
    // that needs it).
    const GraphIndex& index() const { return *index_; }
    const RootClasses& roots() const { return *roots_; }
    const RetentionPaths& paths() const { return *paths_; }
    // Null when the options left them out.
    bool has_graph() const { return index_ != nullptr; }
    const DominatorTree* dominators() const { return dominators_.get(); }
    const Cycles* cycles() const { return cycles_.get(); }
    // Suspects of this snapshot alone (no baseline). With a baseline, build a
    // LeakSuspects from suspect_inputs() plus the diff.
    const LeakSuspects* suspects() const { return suspects_.get(); }
    SuspectInputs suspect_inputs() const;

    // Seconds each stage took (0 for stages that did not run); with
    // `parallel`, Dominators overlaps Paths and Cycles.
    double stage_seconds(AnalysisStage stage) const {
        return stage_seconds_[static_cast<int>(stage)];
    }

private:
    SnapshotAnalysis() = default;
    void run(const AnalysisOptions& options, double done_before);

    std::string path_;
    // Shared by the analyses analyse_read() made from one read.
    std::shared_ptr<const Snapshot> snapshot_;
    std::unique_ptr<GraphIndex> index_;
    std::unique_ptr<RootClasses> roots_;
    std::unique_ptr<RetentionPaths> paths_;
    std::unique_ptr<DominatorTree> dominators_;
    std::unique_ptr<Cycles> cycles_;
    std::unique_ptr<LeakSuspects> suspects_;
    double stage_seconds_[static_cast<int>(AnalysisStage::Done) + 1] = {};
};

}  // namespace refscope::analysis

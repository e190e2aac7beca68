// SnapshotLoader: reads and analyses snapshot files on one worker thread it
// owns, so that the window stays responsive while a 10M-object heap loads.
//
// Files are queued (`load`) and handled one at a time, in order, each through
// core's staged pipeline with its progress and cancel hooks, in two steps:
// the file is read (SnapshotAnalysis::load with snapshot_only()) and handed
// over at once as `read`, so the window can show what the node columns
// alone say (the type census) while the rest of the analysis
// (SnapshotAnalysis::analyse_read: index, roots, dominators, cycles,
// suspects) runs on the same snapshot in memory. Every file ends in exactly
// one of `loaded`, `failed` or `cancelled`; `idle` follows the last of them
// once nothing is queued or running.
//
// Threading: the worker never emits a signal itself. It posts each event to
// the loader's own thread (QMetaObject::invokeMethod with the loader as
// context), where the signal is emitted. So receivers always run on the
// loader's thread, a direct connection is safe, and events the worker posted
// before the loader was destroyed are simply dropped with it. The destructor
// cancels the running load, drops the queue and joins the worker: no thread
// outlives the loader. The worker runs at a lower priority than the GUI
// thread (background_priority.h), and so do the threads the pipeline starts.
//
// Paths that are not regular files are refused before they are opened: a
// named pipe would block the reader's open() (and the loader with it) until
// someone writes to it.
//
// Progress is throttled to one signal per `kProgressInterval` (about 20 per
// second) per loader, and the percentage of one file never goes down.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include <QObject>
#include <QString>
#include <QStringList>

#include "session/analysis_ptr.h"

namespace refscope::app {

class SnapshotLoader : public QObject {
    Q_OBJECT

public:
    static constexpr std::chrono::milliseconds kProgressInterval{50};

    explicit SnapshotLoader(QObject* parent = nullptr);
    // Cancels the running load, drops the queued ones (without signals: the
    // loader is going away) and joins the worker thread.
    ~SnapshotLoader() override;

    SnapshotLoader(const SnapshotLoader&) = delete;
    SnapshotLoader& operator=(const SnapshotLoader&) = delete;

    // The analyses run for each file. The defaults run everything (retained
    // sizes, cycles and leak suspects are what the window shows). Applies to
    // loads that start after the call.
    void setOptions(const analysis::AnalysisOptions& options);

    // Queues the files, in order, behind any already queued.
    void load(const QStringList& paths);
    // Cancels the running load and every queued one: each gets `cancelled`
    // (the queued ones at once, the running one when the pipeline stops at
    // its next stage boundary), then `idle`. A load that completes after
    // cancel() was called is reported as cancelled, never as loaded or failed.
    void cancel();

    // The two steps of one file on the worker thread: reading it (by default
    // analysis::SnapshotAnalysis::load, given snapshot_only() options) and
    // analysing what was read (by default SnapshotAnalysis::analyse_read).
    // Tests put a gate in front of either to hold a load at a known point.
    // Apply to loads that start after the call.
    using ReadFunction = std::function<std::unique_ptr<analysis::SnapshotAnalysis>(
        const std::string& path, const analysis::AnalysisOptions& options)>;
    using AnalyseFunction = std::function<std::unique_ptr<analysis::SnapshotAnalysis>(
        const analysis::SnapshotAnalysis& read, const analysis::AnalysisOptions& options)>;
    void setReadFunction(ReadFunction read);
    void setAnalyseFunction(AnalyseFunction analyse);

    // True from load() until the `idle` signal.
    bool isBusy() const;
    // Files queued and not yet started (the running one not counted).
    int queuedCount() const;

signals:
    // A file's load begins: `remaining` files are queued behind it.
    void started(const QString& path, int remaining);
    // Stage text ("reading", "building the dominator tree", ...) and the
    // share of this file's pipeline already done, 0..100, never decreasing.
    void progress(const QString& path, const QString& stage, int percent);
    // The file is read: `snapshot` holds the snapshot alone (has_graph() is
    // false) while the rest of its analysis runs. `loaded` (or `cancelled`,
    // or `failed`) follows for the same path; the analysis it brings shares
    // this snapshot (the same Snapshot object).
    void read(const refscope::app::AnalysisPtr& snapshot);
    void loaded(const refscope::app::AnalysisPtr& analysis);
    // `message` is the reader's own clear message (format::ReadError: "not a
    // refscope snapshot", "truncated: ...") or the analysis' error.
    void failed(const QString& path, const QString& message);
    void cancelled(const QString& path);
    // Nothing queued, nothing running.
    void idle();

private:
    struct Job {
        QString path;
        std::shared_ptr<std::atomic<bool>> cancel;
    };

    void runWorker();
    void runJob(const Job& job);
    // Called on the loader's thread for events the worker posted.
    void deliverProgress(const std::shared_ptr<std::atomic<bool>>& cancel, const QString& path,
                         const QString& stage, int percent);
    void deliverEnd();

    analysis::AnalysisOptions options_;  // guarded by mutex_
    ReadFunction read_function_;         // guarded by mutex_
    AnalyseFunction analyse_function_;   // guarded by mutex_

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Job> queue_;
    std::shared_ptr<std::atomic<bool>> running_;  // cancel flag of the running job
    bool stopping_ = false;
    // Ends the worker has posted that the loader's thread has not yet
    // emitted: `idle` waits for them, so it is always the last signal.
    int undelivered_ends_ = 0;
    bool busy_ = false;  // loader's thread only: between load() and idle
    std::chrono::steady_clock::time_point last_progress_{};  // worker only
    std::thread worker_;
};

}  // namespace refscope::app

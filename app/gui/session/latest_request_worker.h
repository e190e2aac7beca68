// LatestRequestWorker: one worker thread that answers only the newest
// request. The mechanism behind the app's background jobs whose answer is
// replaced by the next question (ComparisonJob, FilterJob, ModelBuildJob,
// GraphLayoutJob): a person clicking through baselines, typing a filter,
// regrouping the summary or expanding the graph wants the answer to the last
// thing asked, never an old answer arriving late.
//
// At most one request waits: a new one replaces it, and makes the running
// one stale (its `stale` flag is set; work that can stop early polls it, e.g.
// as core's cancel hook). A task returns its result as a Delivery, which is
// posted to the creating thread and run there only if no newer request (nor
// cancel()) came since; otherwise it is dropped there, and what it holds is
// freed with it. A task may return no Delivery (it was stale, or failed
// without a message): nothing is delivered, and busy() still ends.
//
// Threading: deliveries run on the thread that created the worker (the
// owner's: the GUI thread), and start(), cancel() and busy() belong to it.
// The worker thread only runs tasks and posts their deliveries. The destructor
// makes everything stale, drops the waiting request and joins the worker
// (waiting for a task that does not poll `stale`); deliveries still queued
// are dropped with it. A task and its delivery may use the owner's members:
// declare the worker after them, so that it is destroyed, and joined, first.
//
// SnapshotLoader is not built on this: it answers every request, in order.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <QObject>

namespace refscope::app {

class LatestRequestWorker {
public:
    // Runs on the creating thread, only for the newest request.
    using Delivery = std::function<void()>;
    // Runs on the worker thread. Must not throw: a task catches what its
    // work may throw and delivers the error.
    using Task = std::function<Delivery(const std::atomic<bool>& stale)>;

    // Background: the worker runs below the GUI thread's priority
    // (background_priority.h); Normal leaves it alone.
    enum class Priority { Normal, Background };

    explicit LatestRequestWorker(Priority priority);
    ~LatestRequestWorker();

    LatestRequestWorker(const LatestRequestWorker&) = delete;
    LatestRequestWorker& operator=(const LatestRequestWorker&) = delete;

    // Supersedes every earlier request.
    void start(Task task);
    // Supersedes every request: nothing asked so far is delivered.
    void cancel();
    // From start() until the newest request's Delivery has run (or its task
    // returned none), or cancel().
    bool busy() const { return waiting_for_ != 0; }

private:
    struct Request {
        uint64_t id = 0;
        Task task;
        std::shared_ptr<std::atomic<bool>> stale;
    };

    void run(Priority priority);
    // Creating thread: runs `delivery` if request `id` is still the newest.
    void deliver(uint64_t id, const Delivery& delivery);

    // Lives on the creating thread; deliveries are posted to it, and
    // deleting it drops those not yet run.
    std::unique_ptr<QObject> context_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<Request> pending_;                     // guarded by mutex_
    std::shared_ptr<std::atomic<bool>> running_stale_;  // guarded by mutex_
    bool stopping_ = false;                              // guarded by mutex_
    uint64_t next_id_ = 1;      // creating thread
    uint64_t waiting_for_ = 0;  // creating thread: the request whose delivery counts; 0 = none
    std::thread thread_;        // last: started once the members above exist
};

}  // namespace refscope::app

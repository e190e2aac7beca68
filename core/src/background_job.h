// Work on a second thread whose exception is carried back to the thread that
// waits for it. The one copy of this for the places that split work in two:
// the snapshot reader (Nodes columns, Edges labels), the graph index (the
// halves of the in-edge sort) and the analysis pipeline (dominator tree
// beside the BFS and the cycles). Header-only and standard library only:
// the reader is linked into the probe.
#pragma once

#include <exception>
#include <thread>
#include <utility>

namespace refscope {

// One job, started at most once. finish() waits for it and rethrows its
// error, so that the caller can put that error in sequence with its own;
// the destructor waits too (an exception on the calling thread must not
// leave the job running over data that is going away) and drops the job's
// error, which then comes second.
class BackgroundJob {
public:
    BackgroundJob() = default;
    BackgroundJob(const BackgroundJob&) = delete;
    BackgroundJob& operator=(const BackgroundJob&) = delete;
    ~BackgroundJob() {
        if (thread_.joinable()) thread_.join();
    }

    template <typename Work>
    void start(Work work) {
        thread_ = std::thread([this, work = std::move(work)]() mutable {
            try {
                work();
            } catch (...) {
                error_ = std::current_exception();
            }
        });
    }
    // Waits for the job (if one was started) and rethrows its error.
    void finish() {
        if (!thread_.joinable()) return;
        thread_.join();
        if (error_) std::rethrow_exception(error_);
    }

private:
    std::thread thread_;
    std::exception_ptr error_;
};

// Runs `second` on another thread while this one runs `first` (both on this
// thread, first then second, when !parallel). An exception of `first` wins;
// one of `second` is rethrown once both are done.
template <typename First, typename Second>
void run_both(bool parallel, First&& first, Second&& second) {
    if (!parallel) {
        first();
        second();
        return;
    }
    BackgroundJob job;
    job.start([&second] { second(); });
    first();
    job.finish();
}

}  // namespace refscope

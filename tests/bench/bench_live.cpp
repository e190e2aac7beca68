// The live connection's benchmark (targets and results in
// docs/performance-app.md, "Live connection"). A program, not a test:
//
//   PYTHONPATH=build/dev/python build/dev/tests/live/bench_live python3 125000 5
//
// It runs a receiver (refscope_live's Listener, as the app does) in this
// process, starts tests/bench/live_bench_target.py with make_heap(RECORDS)
// connected to it, and for each round takes one snapshot both ways:
//   file:   refscope.snapshot(path, collect=False) inside the target;
//   stream: a TakeSnapshot request, the snapshot streamed, saved, decoded.
// It reports the target's pause both ways (the GIL-held walk, and the
// longest gap of a 2 ms ticker thread in the target, which includes any
// GIL hand-over cost), the file snapshot's total time, and for the stream
// the time from the request to the saved file and to the decoded snapshot.
// Targets: stream pause <= 1.10 x file pause; decoded <= 1.5 s after the
// request for a 1.1M-object heap (RECORDS = 125000).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "refscope/format/snapshot_io.h"
#include "refscope/live/listener.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace refscope;

struct Waiter final : live::ListenerObserver {
    std::mutex mutex;
    std::condition_variable cv;
    live::ConnectionId connection = 0;
    std::vector<live::SavedSnapshot> saved;
    Clock::time_point saved_at;

    void on_connected(const live::ConnectionInfo& info) override {
        std::lock_guard<std::mutex> lock(mutex);
        connection = info.id;
        cv.notify_all();
    }
    void on_snapshot_saved(const live::SavedSnapshot& s) override {
        std::lock_guard<std::mutex> lock(mutex);
        saved.push_back(s);
        saved_at = Clock::now();
        cv.notify_all();
    }
    void on_log(live::LogLevel, const std::string& line) override { std::fprintf(stderr, "receiver: %s\n", line.c_str()); }
};

struct Child {
    pid_t pid = -1;
    FILE* in = nullptr;   // its stdin
    FILE* out = nullptr;  // its stdout
};

Child spawn(const std::vector<std::string>& argv) {
    int to_child[2], from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0) std::exit(1);
    Child c;
    c.pid = ::fork();
    if (c.pid == 0) {
        ::dup2(to_child[0], 0);
        ::dup2(from_child[1], 1);
        ::close(to_child[1]);
        ::close(from_child[0]);
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execvp(args[0], args.data());
        std::perror("exec");
        ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    c.in = ::fdopen(to_child[1], "w");
    c.out = ::fdopen(from_child[0], "r");
    return c;
}

std::string ask(Child& c, const std::string& command) {
    std::fprintf(c.in, "%s\n", command.c_str());
    std::fflush(c.in);
    char line[4096];
    if (!std::fgets(line, sizeof line, c.out)) {
        std::fprintf(stderr, "the target ended\n");
        std::exit(1);
    }
    return line;
}

double number(const std::string& json, const std::string& key) {
    const size_t at = json.find("\"" + key + "\":");
    if (at == std::string::npos) return -1;
    return std::strtod(json.c_str() + at + key.size() + 3, nullptr);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_live PYTHON RECORDS [ROUNDS]  (PYTHONPATH: the built refscope package)\n");
        return 2;
    }
    const std::string python = argv[1];
    const std::string records = argv[2];
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
    const std::filesystem::path work = std::filesystem::temp_directory_path() /
                                       ("refscope-bench-live-" + std::to_string(::getpid()));
    std::filesystem::create_directories(work);

    Waiter waiter;
    live::ListenerOptions options;
    options.session_dir = (work / "session").string();
    live::Listener listener(options, waiter);
    std::thread loop([&] { listener.run(); });

    ::setenv("REFSCOPE_CONNECT", listener.address().c_str(), 1);
    ::setenv("REFSCOPE_TOKEN_FILE", listener.token_file().c_str(), 1);
    Child target = spawn({python, REFSCOPE_BENCH_DIR "/live_bench_target.py", records});
    char line[4096];
    if (!std::fgets(line, sizeof line, target.out)) return 1;
    std::printf("target ready: %s", line);
    {
        std::unique_lock<std::mutex> lock(waiter.mutex);
        waiter.cv.wait_for(lock, std::chrono::seconds(60), [&] { return waiter.connection != 0; });
        if (waiter.connection == 0) return 1;
    }

    std::vector<double> file_walk, file_gap, file_total, stream_walk, stream_gap, saved_s, decoded_s;
    uint64_t nodes = 0, bytes = 0;
    std::printf("%5s %10s %10s %10s | %10s %10s %10s %10s\n", "round", "file walk", "file gap", "file total",
                "strm walk", "strm gap", "saved", "decoded");
    for (int round = 0; round < rounds + 1; ++round) {  // round 0 warms up, not counted
        const std::string path = (work / "file.rscope").string();
        ask(target, "gap");
        const std::string file = ask(target, "file " + path);
        const double fgap = number(ask(target, "gap"), "gap_ms");

        const size_t before = waiter.saved.size();
        const auto start = Clock::now();
        listener.request_snapshot(waiter.connection, false);
        live::SavedSnapshot saved;
        Clock::time_point saved_at;
        {
            std::unique_lock<std::mutex> lock(waiter.mutex);
            waiter.cv.wait_for(lock, std::chrono::seconds(120), [&] { return waiter.saved.size() > before; });
            if (waiter.saved.size() == before) return 1;
            saved = waiter.saved.back();
            saved_at = waiter.saved_at;
        }
        const Snapshot decoded = format::read_snapshot_file(saved.path);
        const auto decoded_at = Clock::now();
        const double sgap = number(ask(target, "gap"), "gap_ms");
        nodes = decoded.node_count();
        bytes = saved.bytes;
        std::filesystem::remove(saved.path);
        const double values[] = {number(file, "walk_s") * 1000, fgap, number(file, "total_s") * 1000,
                                 static_cast<double>(saved.walk_ns) / 1e6, sgap,
                                 std::chrono::duration<double, std::milli>(saved_at - start).count(),
                                 std::chrono::duration<double, std::milli>(decoded_at - start).count()};
        std::printf("%5d %8.0f ms %8.0f ms %8.0f ms | %8.0f ms %8.0f ms %8.0f ms %8.0f ms%s\n", round, values[0],
                    values[1], values[2], values[3], values[4], values[5], values[6], round == 0 ? "  (warm-up)" : "");
        if (round == 0) continue;
        file_walk.push_back(values[0]);
        file_gap.push_back(values[1]);
        file_total.push_back(values[2]);
        stream_walk.push_back(values[3]);
        stream_gap.push_back(values[4]);
        saved_s.push_back(values[5]);
        decoded_s.push_back(values[6]);
    }
    std::printf("\n%llu objects, %.1f MB streamed; medians of %d rounds:\n", static_cast<unsigned long long>(nodes),
                static_cast<double>(bytes) / 1e6, rounds);
    std::printf("  pause (GIL-held walk):       file %.0f ms, stream %.0f ms: stream/file = %.2f (target <= 1.10)\n",
                median(file_walk), median(stream_walk), median(stream_walk) / median(file_walk));
    std::printf("  pause seen by a thread:      file %.0f ms, stream %.0f ms: stream/file = %.2f\n", median(file_gap),
                median(stream_gap), median(stream_gap) / median(file_gap));
    std::printf("  file snapshot() total:       %.0f ms (the calling thread waits for encode + write)\n",
                median(file_total));
    std::printf("  stream: request -> saved     %.0f ms\n", median(saved_s));
    std::printf("  stream: request -> decoded   %.0f ms (target <= 1500 ms)\n", median(decoded_s));

    ask(target, "gap");
    std::fprintf(target.in, "exit\n");
    std::fflush(target.in);
    int status = 0;
    ::waitpid(target.pid, &status, 0);
    listener.stop();
    loop.join();
    std::filesystem::remove_all(work);
    return 0;
}

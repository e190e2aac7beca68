// Measuring helpers shared by the benchmark programs in tests/bench (which
// are programs, not tests: they print numbers for docs/performance.md).
#pragma once

#include <time.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

namespace refscope::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// A size field of /proc/self/status ("VmHWM", "VmRSS") in MiB; -1 where
// /proc is not available.
inline long status_mib(const char* field) {
    std::ifstream status("/proc/self/status");
    const std::string prefix = std::string(field) + ":";
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(prefix, 0) == 0) return std::strtol(line.c_str() + prefix.size(), nullptr, 10) / 1024;
    }
    return -1;
}

// Peak resident set size of this process so far, and now.
inline long peak_rss_mib() { return status_mib("VmHWM"); }
inline long current_rss_mib() { return status_mib("VmRSS"); }

// CPU time of the whole process (every thread) so far, in seconds.
inline double process_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Resets VmHWM to the current resident size (Linux 4.0+: "5" written to
// /proc/self/clear_refs), so that peak_rss_mib() measures from here on.
// False where that is not possible.
inline bool reset_peak_rss() {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.flush();
    return static_cast<bool>(clear);
}

// The first three fields of /proc/loadavg and a newline ("?" without /proc).
inline std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string one, five, fifteen;
    if (!(in >> one >> five >> fifteen)) return "?\n";
    return one + " " + five + " " + fifteen + "\n";
}

}  // namespace refscope::bench

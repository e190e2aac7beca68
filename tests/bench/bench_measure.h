// Measuring helpers shared by the benchmark programs in tests/bench (which
// are programs, not tests: they print numbers for docs/performance.md).
#pragma once

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

namespace refscope::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Peak resident set size of this process so far (VmHWM), in MiB; -1 where
// /proc is not available.
inline long peak_rss_mib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10) / 1024;
    }
    return -1;
}

}  // namespace refscope::bench

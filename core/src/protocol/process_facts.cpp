// process_facts.h: parsed by hand with read(2), because the probe calls it.
#include "refscope/protocol/process_facts.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>

namespace refscope::protocol {

namespace {

// Reads up to size-1 bytes of a small /proc file; returns the length.
size_t read_small(const char* path, char* buf, size_t size) noexcept {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t have = 0;
    while (have + 1 < size) {
        const ssize_t n = ::read(fd, buf + have, size - 1 - have);
        if (n <= 0) break;
        have += static_cast<size_t>(n);
    }
    ::close(fd);
    buf[have] = '\0';
    return have;
}

bool parse_i64(const char* begin, const char* end, int64_t& out) noexcept {
    const auto [p, ec] = std::from_chars(begin, end, out);
    return ec == std::errc() && p == end;
}

// The "btime N" line of /proc/stat, which comes after one line per CPU
// (long on big machines): scanned in chunks with a small carried-over tail.
bool boot_time(int64_t& out) noexcept {
    const int fd = ::open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[4096 + 64];
    size_t have = 0;
    bool found = false;
    for (;;) {
        const ssize_t n = ::read(fd, buf + have, sizeof buf - 1 - have);
        if (n <= 0) break;
        have += static_cast<size_t>(n);
        buf[have] = '\0';
        const char* line = std::strstr(buf, "\nbtime ");
        if (line != nullptr) {
            const char* begin = line + 7;
            const char* end = begin;
            while (end < buf + have && *end >= '0' && *end <= '9') ++end;
            if (end < buf + have) {  // the whole number is in the buffer
                found = parse_i64(begin, end, out);
                break;
            }
        }
        // Keep the last 32 bytes: a "btime" line may straddle two reads.
        if (have > 32) {
            std::memmove(buf, buf + have - 32, 32);
            have = 32;
        }
    }
    ::close(fd);
    return found;
}

}  // namespace

int64_t process_start_time_unix_ns(int64_t pid) noexcept {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%lld/stat", static_cast<long long>(pid));
    char stat[1024];
    const size_t n = read_small(path, stat, sizeof stat);
    // Field 2, the command name, may hold spaces and ')': fields 3.. start
    // after the last ')'.
    const char* close = nullptr;
    for (size_t i = 0; i < n; ++i)
        if (stat[i] == ')') close = stat + i;
    if (close == nullptr) return 0;
    const char* p = close + 1;
    const char* end = stat + n;
    int64_t ticks_after_boot = -1;
    for (int field = 3; field <= 22 && p < end; ++field) {
        while (p < end && *p == ' ') ++p;
        const char* start = p;
        while (p < end && *p != ' ' && *p != '\n') ++p;
        if (field == 22 && !parse_i64(start, p, ticks_after_boot)) return 0;
    }
    if (ticks_after_boot < 0) return 0;

    int64_t boot = 0;
    if (!boot_time(boot)) return 0;
    const long hz = ::sysconf(_SC_CLK_TCK);
    if (hz <= 0) return 0;
    return boot * 1'000'000'000LL + ticks_after_boot * 1'000'000'000LL / hz;
}

}  // namespace refscope::protocol

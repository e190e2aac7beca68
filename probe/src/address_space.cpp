#include "address_space.h"

#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace refscope::probe {

#if defined(__linux__)
namespace {

// VmSize from /proc/self/status ("VmSize:\t  123456 kB"), in bytes. The file
// is read into a buffer on the stack: the walk may be near the very limit
// it asks about, so this allocates nothing.
std::optional<uint64_t> vm_size() {
    const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    char text[8192];
    size_t length = 0;
    while (length + 1 < sizeof text) {
        const ssize_t got = ::read(fd, text + length, sizeof text - 1 - length);
        if (got <= 0) break;
        length += static_cast<size_t>(got);
    }
    ::close(fd);
    text[length] = '\0';
    const char* field = std::strstr(text, "\nVmSize:");
    if (field == nullptr) return std::nullopt;
    char* end = nullptr;
    const unsigned long long kib = std::strtoull(field + 8, &end, 10);
    if (end == field + 8) return std::nullopt;
    return static_cast<uint64_t>(kib) * 1024;
}

}  // namespace

std::optional<uint64_t> address_space_left() {
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
    const std::optional<uint64_t> used = vm_size();
    if (!used) return std::nullopt;
    const uint64_t allowed = static_cast<uint64_t>(limit.rlim_cur);
    return allowed > *used ? allowed - *used : 0;
}

#else

std::optional<uint64_t> address_space_left() { return std::nullopt; }

#endif

}  // namespace refscope::probe

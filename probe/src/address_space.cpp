#include "address_space.h"

#include <cerrno>
#include <cstdlib>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace refscope::probe {

#if defined(__linux__)
namespace {

// The process's size (VmSize), in bytes: /proc/self/statm's first field,
// in pages. Read into a buffer on the stack: the walk may be near the very
// limit it asks about, so this allocates nothing.
std::optional<uint64_t> vm_size() {
    int fd;
    do fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) return std::nullopt;
    char text[128];
    ssize_t got;
    do got = ::read(fd, text, sizeof text - 1);
    while (got < 0 && errno == EINTR);
    ::close(fd);
    if (got <= 0) return std::nullopt;
    text[got] = '\0';
    char* end = nullptr;
    const unsigned long long pages = std::strtoull(text, &end, 10);
    const long page_size = ::sysconf(_SC_PAGESIZE);
    if (end == text || page_size <= 0) return std::nullopt;
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
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

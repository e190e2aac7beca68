#include "session/background_priority.h"

#include <cstdlib>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace refscope::app {

void lower_current_thread_priority() {
#ifdef __linux__
    // On Linux the nice value belongs to the thread (task), not the process:
    // PRIO_PROCESS with a thread id changes only that thread.
    // Mild: enough for the GUI thread to win the CPU when it wakes up, not
    // so much that the loader crawls whenever another program is busy.
    int nice = 5;
    if (const char* text = std::getenv("REFSCOPE_WORKER_NICE")) {
        char* end = nullptr;
        const long value = std::strtol(text, &end, 10);
        if (end != text && value >= 0 && value <= 19) nice = static_cast<int>(value);
    }
    if (nice == 0) return;
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    const int current = ::getpriority(PRIO_PROCESS, tid);
    if (current < nice) (void)::setpriority(PRIO_PROCESS, tid, nice);
#endif
}

}  // namespace refscope::app

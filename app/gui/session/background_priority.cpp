#include "session/background_priority.h"

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
    constexpr int kBackgroundNice = 10;
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    const int current = ::getpriority(PRIO_PROCESS, tid);
    if (current < kBackgroundNice) (void)::setpriority(PRIO_PROCESS, tid, kBackgroundNice);
#endif
}

}  // namespace refscope::app

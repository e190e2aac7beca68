// Facts about a process that both ends of the live connection read from
// /proc: the probe for its Hello, the receiver for its process list.
// Linux only; plain system calls, no exceptions (the probe runs this inside
// someone else's process).
#pragma once

#include <cstdint>

namespace refscope::protocol {

// When process `pid` started, in ns since the Unix epoch (0 if unknown):
// /proc/PID/stat field 22 (clock ticks after boot) plus /proc/stat btime.
int64_t process_start_time_unix_ns(int64_t pid) noexcept;

}  // namespace refscope::protocol

// Worker threads of the app run below the GUI thread's priority, so that on
// a busy machine (two cores: the analysis itself runs two threads) the GUI
// thread gets the CPU as soon as it has an event to handle and the window
// never stutters. On a quiet machine this costs nothing: the workers still
// get every idle cycle.
#pragma once

namespace refscope::app {

// Lowers the calling thread's scheduling priority (Linux: nice +5 for this
// thread only; threads it starts inherit it). The environment variable
// REFSCOPE_WORKER_NICE (0-19) sets another value; 0 leaves the priority
// alone (benchmarks comparing the app with the core use it). Best effort:
// does nothing where unsupported or refused.
void lower_current_thread_priority();

}  // namespace refscope::app

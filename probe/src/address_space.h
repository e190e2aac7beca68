// How much address space an address-space limit (RLIMIT_AS, `ulimit -v`)
// still allows this process, for the walk's reservations (heap_walker.cpp,
// reserve_for).
#pragma once

#include <cstdint>
#include <optional>

namespace refscope::probe {

// Bytes the soft RLIMIT_AS leaves above the process's current size (VmSize,
// from /proc/self/statm), 0 when the process is already at it; nullopt when
// there is no limit or the size cannot be read (not Linux), in which case a
// reservation costs no memory until written and nothing needs checking.
// Reads one small file, allocates nothing, calls no Python.
std::optional<uint64_t> address_space_left();

}  // namespace refscope::probe

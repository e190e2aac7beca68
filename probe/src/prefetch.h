// Starting a cache line's load early, for the probe's look-ups in tables of
// millions of entries (the address map, the preview interner).
//
// GCC 12 drops __builtin_prefetch in the address map's look-up, so the
// instruction is written out; x86-64 only, elsewhere this is a no-op.
#pragma once

namespace refscope::probe {

inline void prefetch_line(const void* p) {
#if defined(__x86_64__)
    asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
    (void)p;
#endif
}

}  // namespace refscope::probe

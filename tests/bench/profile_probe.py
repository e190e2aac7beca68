"""A process to profile the probe in: one heap, several snapshots, nothing else.

    PYTHONPATH=build/dev/python perf record -F 1999 python3 tests/bench/profile_probe.py [N] [SNAPSHOTS]

Builds tests/bench's heap of N records (default 125,000: 1.1M objects), then
takes SNAPSHOTS snapshots (default 8) to a temporary file, so that the
snapshot's own functions dominate the profile rather than the heap's making.
Prints the walks' minimum and median time, and the same for the time
after each walk (the previews' interning, encode, write), which the probe
spends with the GIL released.
"""

import gc
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import refscope  # noqa: E402
from make_heap import make_heap  # noqa: E402


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 125_000
    snapshots = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    heap = make_heap(n)  # noqa: F841 (kept alive while profiled)
    gc.collect()
    with tempfile.TemporaryDirectory(prefix="refscope-profile-") as directory:
        path = os.path.join(directory, "profile.rscope")
        stats = [refscope.snapshot(path, collect=False) for _ in range(snapshots)]
    walks = [s.walk_seconds * 1e3 for s in stats]
    after = [s.write_seconds * 1e3 for s in stats]
    # For comparing two builds in turn (docs/performance.md): the heap and
    # the process the same.
    print("walk (GIL held) min %.1f ms, median %.1f ms over %d snapshots"
          % (min(walks), statistics.median(walks), len(walks)))
    print("after the walk (GIL released) min %.1f ms, median %.1f ms"
          % (min(after), statistics.median(after)))


if __name__ == "__main__":
    main()

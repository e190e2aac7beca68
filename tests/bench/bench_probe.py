"""Probe benchmark: one process, one heap, numbers on stdout.

    PYTHONPATH=build/dev/python python tests/bench/bench_probe.py [N]

Prints: the time of one full gc.collect(); the GIL-held walk time; walk +
encode + write time; their ratios to gc.collect(); file bytes per
(node + edge); extra peak memory per object during a snapshot (VmHWM after
the snapshot minus VmRSS before it, with the peak reset through
/proc/self/clear_refs where the kernel allows it).
Targets: walk <= 1.5x and total <= 2.0x gc.collect(); <= 6 bytes per
(node + edge); <= 48 bytes of extra peak memory per object (issue 17).
"""

import gc
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import refscope  # noqa: E402
from make_heap import make_heap  # noqa: E402
from process_memory import reset_peak, status_kb  # noqa: E402


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    heap = make_heap(n)  # noqa: F841 (kept alive for the measurements)
    gc.collect()

    collect_times = []
    for _ in range(3):
        start = time.perf_counter()
        gc.collect()
        collect_times.append(time.perf_counter() - start)
    collect = statistics.median(collect_times)

    with tempfile.TemporaryDirectory(prefix="refscope-bench-") as directory:
        path = os.path.join(directory, "bench.rscope")
        # Memory first, on a fresh process (no allocator reuse yet).
        rss_before = status_kb("VmRSS")
        peak_reset = reset_peak()
        hwm_before = status_kb("VmHWM")
        stats = refscope.snapshot(path, collect=False)
        hwm_after = status_kb("VmHWM")
        baseline = rss_before if peak_reset else max(rss_before, hwm_before)
        extra_peak = max(0, hwm_after - baseline) * 1024

        walks, totals = [], []
        for _ in range(3):
            start = time.perf_counter()
            stats = refscope.snapshot(path, collect=False)
            totals.append(time.perf_counter() - start)
            walks.append(stats.walk_seconds)
        walk = statistics.median(walks)
        total = statistics.median(totals)
        size = os.path.getsize(path)

    objects = stats.nodes
    print("python            %s" % sys.version.split()[0])
    print("records           %d" % n)
    print("nodes             %d" % stats.nodes)
    print("edges             %d" % stats.edges)
    print("gc.collect()      %.1f ms" % (collect * 1e3))
    print("walk (GIL held)   %.1f ms   %.2fx gc.collect()  (target <= 1.5x)" % (walk * 1e3, walk / collect))
    print("walk+encode+write %.1f ms   %.2fx gc.collect()  (target <= 2.0x)" % (total * 1e3, total / collect))
    print("file              %d bytes, %.2f bytes per (node+edge)  (target <= 6)"
          % (size, size / (stats.nodes + stats.edges)))
    print("extra peak memory %.1f MB, %.1f bytes per object  (target <= 48)%s"
          % (extra_peak / 1e6, extra_peak / objects,
             "" if peak_reset else "  [peak not resettable: upper bound]"))


if __name__ == "__main__":
    main()

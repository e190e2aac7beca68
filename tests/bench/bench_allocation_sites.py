"""Allocation-site benchmark: what reading tracemalloc's tracebacks adds to
a snapshot (docs/performance.md, "Allocation sites").

    PYTHONPATH=build/dev/python python3 tests/bench/bench_allocation_sites.py [N] [FRAMES]

Builds make_heap(N) with tracemalloc tracing FRAMES frames (default 1),
then takes snapshots and prints the median walk time, the median time of
the allocation-site lookups (the probe's own stats), per traced object, and
the file's size with the Allocations section against one of the same heap
without it (tracing stopped: no section).
"""

import os
import statistics
import sys
import tempfile
import tracemalloc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import refscope  # noqa: E402
from make_heap import make_heap  # noqa: E402


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    frames = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    tracemalloc.start(frames)
    heap = make_heap(n)  # noqa: F841 (kept alive for the measurements)
    with tempfile.TemporaryDirectory(prefix="refscope-bench-") as directory:
        path = os.path.join(directory, "traced.rscope")
        runs = [refscope.snapshot(path, collect=False) for _ in range(3)]
        traced_size = os.path.getsize(path)
        stats = runs[-1]
        walk = statistics.median(r.walk_seconds for r in runs)
        lookup = statistics.median(r.allocations["seconds"] for r in runs)
        tracemalloc.stop()
        plain = os.path.join(directory, "plain.rscope")
        refscope.snapshot(plain, collect=False)
        plain_size = os.path.getsize(plain)
    a = stats.allocations
    print("python            %s" % sys.version.split()[0])
    print("records           %d, %d frames traced" % (n, frames))
    print("nodes             %d, traced %d, tracebacks %d, frames %d"
          % (stats.nodes, a["traced_objects"], a["tracebacks"], a["frames"]))
    print("walk (GIL held)   %.1f ms" % (walk * 1e3))
    print("allocation sites  %.1f ms (GIL held), %.2f us per node, %.2f us per traced object"
          % (lookup * 1e3, lookup * 1e6 / stats.nodes, lookup * 1e6 / max(1, a["traced_objects"])))
    print("file              %d bytes traced, %d without, +%.2f bytes per node"
          % (traced_size, plain_size, (traced_size - plain_size) / stats.nodes))


if __name__ == "__main__":
    main()

"""The floor under any heap walk, against one gc.collect() on the same heap.

    python3.12 tests/bench/walk_floor.py [N] [RUNS]

Builds walk_floor.c (next to this file) with the running Python's headers
and the C compiler it was built with, into a temporary directory, then on
tests/bench's heap of N records (default 125,000: 1.1M objects) times, RUNS
times each (default 7), one gc.collect() and the three walks the C file
describes: traverse, mapped (an address -> id hash table) and sorted (edges
recorded raw and radix-sorted, resolved after the GIL would be released).
Prints the medians and their ratio to gc.collect(). Needs Python 3.12+
(PyUnstable_GC_VisitObjects). docs/performance.md, "The walk's floor",
records what it printed.
"""

import gc
import importlib.util
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from make_heap import make_heap  # noqa: E402


def build(directory):
    compiler = (sysconfig.get_config_var("CC") or "cc").split()
    target = os.path.join(directory, "walk_floor" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run(compiler + ["-O2", "-shared", "-fPIC", "-I", sysconfig.get_paths()["include"],
                               os.path.join(HERE, "walk_floor.c"), "-o", target], check=True)
    spec = importlib.util.spec_from_file_location("walk_floor", target)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def collect_seconds():
    start = time.perf_counter()
    gc.collect()
    return time.perf_counter() - start


def main():
    if sys.version_info < (3, 12):
        sys.exit("walk_floor.py needs Python 3.12+ (PyUnstable_GC_VisitObjects)")
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 125_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    with tempfile.TemporaryDirectory(prefix="refscope-floor-") as directory:
        floor = build(directory)
        heap = make_heap(n)  # noqa: F841 (kept alive while walked)
        gc.collect()
        collect = statistics.median(collect_seconds() for _ in range(runs))
        print("Python %s, %d records" % (sys.version.split()[0], n))
        print("gc.collect()              %7.1f ms" % (collect * 1e3))
        traverse = [floor.traverse() for _ in range(runs)]
        mapped = [floor.mapped() for _ in range(runs)]
        ordered = [floor.sorted() for _ in range(runs)]
        held = statistics.median(r[0] for r in traverse)
        print("traverse                  %7.1f ms = %.2fx   %d tracked"
              % (held * 1e3, held / collect, traverse[0][1]))
        held = statistics.median(r[0] for r in mapped)
        print("mapped (GIL held)         %7.1f ms = %.2fx   %d nodes, %d edges"
              % (held * 1e3, held / collect, mapped[0][2], mapped[0][3]))
        held = statistics.median(r[0] for r in ordered)
        after = statistics.median(r[1] for r in ordered)
        print("sorted (GIL held)         %7.1f ms = %.2fx   %d nodes, %d edges; resolved after: %.1f ms"
              % (held * 1e3, held / collect, ordered[0][3], ordered[0][4], after * 1e3))
        # The last field of every result: a column filled up, memory ran
        # out or an edge found no node; those walks did less than the heap asks.
        if any(r[-1] for r in traverse + mapped + ordered):
            print("INCOMPLETE: some walk ran out of room (8 edges per tracked object) or memory,"
                  " or met objects outside the collector's lists; its times are too low")

if __name__ == "__main__":
    main()

"""Shared by the real programs: argument parsing, the snapshots, and the one
JSON line each program prints for the test.

A program is run as `python3 PROGRAM OUTDIR [--leak] [--trace]`. It warms
up, takes the baseline snapshot, does more of the same work, takes the
`after` snapshot, does more again and takes the `third`. With --trace,
tracemalloc starts right after the baseline, so that the later snapshots
record where the new objects were allocated (tracing the imports and the
warm-up too would make the run many times slower). A program says how many
frames it needs to reach its own code: tracemalloc's cost grows with them
(SymPy's solver runs 5x slower with one frame, 40x with eight). With --leak its planted leak grows with
the work; without it the program holds nothing beyond what its libraries
cache. The last line on stdout is
{"snapshots": [baseline, after, third], "leak": {"type": ..., "holder": ...}}
"""
import json
import os
import sys

import refscope


class Run:
    def __init__(self, trace_frames=8):
        self.trace_frames = trace_frames
        if len(sys.argv) < 2:
            sys.exit(f"usage: {sys.argv[0]} OUTDIR [--leak]")
        self.outdir = sys.argv[1]
        self.leak = "--leak" in sys.argv[2:]
        self.trace = "--trace" in sys.argv[2:]
        self.snapshots = []

    def snapshot(self):
        name = ["baseline", "after", "third"][len(self.snapshots)]
        path = os.path.join(self.outdir, name + ".rscope")
        refscope.snapshot(path, collect=True)
        self.snapshots.append(path)
        if self.trace and len(self.snapshots) == 1:
            import tracemalloc
            tracemalloc.start(self.trace_frames)

    def finish(self, **leak):
        print(json.dumps({"snapshots": self.snapshots, "leak": leak if self.leak else None}))
        sys.stdout.flush()

    def rounds(self, work, warmup=2, between=3):
        """Warm up, then baseline / after / third with `between` rounds of
        work before each of the later two."""
        for _ in range(warmup):
            work()
        self.snapshot()
        for _ in range(2):
            for _ in range(between):
                work()
            self.snapshot()

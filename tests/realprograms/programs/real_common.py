"""Shared by the real programs: argument parsing, the snapshots, and the one
JSON line each program prints for the test.

A program is run as `python3 PROGRAM OUTDIR [--leak]`. It warms up, takes the
baseline snapshot, does more of the same work, takes the `after` snapshot,
does more again and takes the `third`. With --leak its planted leak grows with
the work; without it the program holds nothing beyond what its libraries
cache. The last line on stdout is
{"snapshots": [baseline, after, third], "leak": {"type": ..., "holder": ...}}
"""
import json
import os
import sys

import refscope


class Run:
    def __init__(self):
        if len(sys.argv) < 2:
            sys.exit(f"usage: {sys.argv[0]} OUTDIR [--leak]")
        self.outdir = sys.argv[1]
        self.leak = "--leak" in sys.argv[2:]
        self.snapshots = []

    def snapshot(self):
        name = ["baseline", "after", "third"][len(self.snapshots)]
        path = os.path.join(self.outdir, name + ".rscope")
        refscope.snapshot(path, collect=True)
        self.snapshots.append(path)

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

"""Shared by the real programs: argument parsing, the snapshots, and the one
JSON line each program prints for the test.

A program is run as `python3 PROGRAM OUTDIR [--leak NAME] [--trace]`. It
plants several leaks, each by a different mechanism, one per run: LEAKS
names them, with the type that leaks and the holder it accumulates in. It
warms up, takes the baseline snapshot, does more of the same work, takes the
`after` snapshot, does more again and takes the `third`. With --trace,
tracemalloc starts right after the baseline, so that the later snapshots
record where the new objects were allocated (tracing the imports and the
warm-up too would make the run many times slower). A program says how many
frames it needs to reach its own code: tracemalloc's cost grows with them
(SymPy's solver runs 5x slower with one frame, 40x with eight). With
--leak NAME that planted leak grows with the work; without it the program
holds nothing beyond what its libraries cache. The last line on stdout is
{"snapshots": [baseline, after, third], "leak": {"name": ..., "type": ..., "holder": ...}}

With --live the program takes no snapshot itself: it is connected to the
app (REFSCOPE_CONNECT, which `import refscope` answers), and at each of the
three points it prints {"event": "snapshot", "name": NAME} and waits for a
line on stdin, while the app takes the snapshot through the connection (the
probe's own thread does, main thread blocked in the read):
tests/gui_window/real_program_window_test.cpp drives it so.
"""
import json
import os
import sys

import refscope


class Run:
    def __init__(self, leaks, trace_frames=8):
        """`leaks`: {name: {"type": leaking type, "holder": where it accumulates}}."""
        self.leaks = leaks
        self.trace_frames = trace_frames
        args = sys.argv[1:]
        if not args or args[0].startswith("-"):
            sys.exit(f"usage: {sys.argv[0]} OUTDIR [--leak {'|'.join(leaks)}] [--trace] [--live]")
        self.outdir = args[0]
        self.trace = "--trace" in args
        self.live = "--live" in args
        self.leak = None  # the planted leak's name, None for a clean run
        if "--leak" in args:
            at = args.index("--leak") + 1
            if at >= len(args) or args[at] not in leaks:
                sys.exit(f"--leak wants one of: {', '.join(leaks)}")
            self.leak = args[at]
        self.snapshots = []

    def snapshot(self):
        name = ["baseline", "after", "third"][len(self.snapshots)]
        path = os.path.join(self.outdir, name + ".rscope")
        if self.live:
            print(json.dumps({"event": "snapshot", "name": name}))
            sys.stdout.flush()
            sys.stdin.readline()  # the app has it
        else:
            refscope.snapshot(path, collect=True)
        self.snapshots.append(path)
        if self.trace and len(self.snapshots) == 1:
            import tracemalloc
            tracemalloc.start(self.trace_frames)

    def finish(self):
        leak = dict(self.leaks[self.leak], name=self.leak) if self.leak else None
        print(json.dumps({"snapshots": self.snapshots, "leak": leak}))
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

"""The target of the live-connection benchmark (tests/bench/bench_live.cpp
starts it): builds make_heap(N), keeps a ticker thread whose longest gap
between two 2 ms ticks is how long the program's threads were held up, and
answers commands on stdin with one JSON line on stdout:

  file PATH    refscope.snapshot(PATH, collect=False): {"walk_s", "total_s"}
  gap          {"gap_ms"}: the longest tick gap since the last "gap", reset
  exit

It connects to the benchmark's receiver at import (REFSCOPE_CONNECT)."""

import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from make_heap import make_heap  # noqa: E402

heap = make_heap(int(sys.argv[1]))
import gc  # noqa: E402
gc.collect()
import refscope  # noqa: E402  (connects now that the heap exists)

state = {"gap": 0.0}


def ticker():
    last = time.monotonic()
    while True:
        time.sleep(0.002)
        now = time.monotonic()
        state["gap"] = max(state["gap"], now - last)
        last = now


threading.Thread(target=ticker, daemon=True).start()
print(json.dumps({"event": "ready", "objects": len(gc.get_objects())}), flush=True)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "file":
        start = time.perf_counter()
        stats = refscope.snapshot(words[1], collect=False)
        print(json.dumps({"walk_s": stats.walk_seconds, "total_s": time.perf_counter() - start,
                          "nodes": stats.nodes}), flush=True)
    elif words[0] == "gap":
        gap, state["gap"] = state["gap"], 0.0
        print(json.dumps({"gap_ms": gap * 1000}), flush=True)
    elif words[0] == "exit":
        break

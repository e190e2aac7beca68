"""A program whose main thread is blocked in time.sleep() for the first
SECONDS (argument, default 4), then polls stdin like busy_target.py does.
For the attach test of a main thread that runs no Python code for a while:
the pending call waits until the sleep returns."""

import json
import os
import select
import sys
import time

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 4.0
sys.stdout.write(json.dumps({"event": "ready", "pid": os.getpid()}) + "\n")
sys.stdout.flush()
time.sleep(seconds)
sys.stdout.write(json.dumps({"event": "awake"}) + "\n")
sys.stdout.flush()
while True:
    ready, _, _ = select.select([sys.stdin.fileno()], [], [], 0.05)
    if ready:
        line = os.read(sys.stdin.fileno(), 4096)
        if not line or b"exit" in line:
            sys.exit(0)

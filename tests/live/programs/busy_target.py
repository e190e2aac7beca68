"""A program for the live-connection tests. Worker threads mutate dicts,
lists and sets; a heartbeat thread ticks every 5 ms and keeps the longest gap
between two ticks (how long the program's threads were held up); the main
thread polls stdin (so that it keeps running Python code, as a service's
event loop does) and answers commands with one JSON line each on stdout:

  status            {"event": "status", "status": refscope.connection_status(),
                     "ticks": n, "max_gap_ms": g, "work": w, "threads": t}
  reset-gap         forget the longest gap so far
  connect ADDRESS TOKEN_FILE   refscope.connect(); {"event": "connect", "error": ...}
  disconnect        refscope.disconnect()
  fork              fork; the child reports {"event": "child", "status": ...} and exits
  exit              exit normally (status 0)

Arguments: --heap N (keep N records alive), --workers K, --no-import (do not
import refscope: the attach tests bring it in).
"""

import json
import os
import random
import select
import sys
import threading
import time

args = sys.argv[1:]
heap_size = int(args[args.index("--heap") + 1]) if "--heap" in args else 2000
workers = int(args[args.index("--workers") + 1]) if "--workers" in args else 3
if "--no-import" not in args:
    import refscope  # connects at start-up when REFSCOPE_CONNECT is set


class Record:
    def __init__(self, i):
        self.i = i
        self.name = "record-%d" % i
        self.tags = [i, str(i)]


records = [Record(i) for i in range(heap_size)]
stop = threading.Event()
work = [0]
state = {"ticks": 0, "max_gap": 0.0}
print_lock = threading.Lock()


def say(**fields):
    with print_lock:
        sys.stdout.write(json.dumps(fields) + "\n")
        sys.stdout.flush()


def mutate(seed):
    rng = random.Random(seed)
    table, items, members = {}, [], set()
    while not stop.is_set():
        for _ in range(100):
            k = rng.randrange(500)
            table[k] = [k] * rng.randrange(4)
            table.pop(rng.randrange(500), None)
            items.append({"k": k})
            if len(items) > 300:
                del items[: rng.randrange(300)]
            members.add(str(k))
            members.discard(str(rng.randrange(500)))
        work[0] += 1
        time.sleep(0.001)


def heartbeat():
    last = time.monotonic()
    while not stop.is_set():
        time.sleep(0.005)
        now = time.monotonic()
        state["max_gap"] = max(state["max_gap"], now - last)
        state["ticks"] += 1
        last = now


def status():
    module = sys.modules.get("refscope")
    return module.connection_status() if module is not None else None


threads = [threading.Thread(target=mutate, args=(i,), daemon=True, name="mutator-%d" % i)
           for i in range(workers)]
threads.append(threading.Thread(target=heartbeat, daemon=True, name="heartbeat"))
for t in threads:
    t.start()
say(event="ready", pid=os.getpid())

buffer = b""
while True:
    ready, _, _ = select.select([sys.stdin.fileno()], [], [], 0.05)
    if not ready:
        continue
    chunk = os.read(sys.stdin.fileno(), 4096)
    if not chunk:
        break
    buffer += chunk
    while b"\n" in buffer:
        line, buffer = buffer.split(b"\n", 1)
        words = line.decode().split()
        if not words:
            continue
        command = words[0]
        if command == "status":
            say(event="status", status=status(), ticks=state["ticks"],
                max_gap_ms=state["max_gap"] * 1000, work=work[0],
                threads=len(os.listdir("/proc/self/task")))
        elif command == "reset-gap":
            state["max_gap"] = 0.0
            say(event="reset")
        elif command == "connect":
            import refscope
            try:
                refscope.connect(words[1], token_file=words[2])
                say(event="connect", error=None)
            except Exception as error:
                say(event="connect", error="%s: %s" % (type(error).__name__, error))
        elif command == "disconnect":
            import refscope
            say(event="disconnect", was_connected=refscope.disconnect())
        elif command == "fork":
            child = os.fork()
            if child == 0:
                say(event="child", status=status(), pid=os.getpid())
                os._exit(0)
            os.waitpid(child, 0)
            say(event="forked", child=child)
        elif command == "exit":
            stop.set()
            say(event="exiting")
            sys.exit(0)

"""Shared by the C/C++ extension programs: take the snapshot and tell the
test what to look at. Each program prints one JSON line on stdout:
{"snapshot": PATH, ...extra}."""
import json
import sys

import refscope


def finish(snapshot_path, **extra):
    stats = refscope.snapshot(snapshot_path, collect=True)
    info = {"snapshot": snapshot_path, "describe": stats.describe}
    info.update(extra)
    print(json.dumps(info))
    sys.stdout.flush()

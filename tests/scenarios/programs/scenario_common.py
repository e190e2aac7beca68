"""Shared by the scenario programs: take the snapshot and tell the test which
object to look at. Each program prints one JSON line on stdout:
{"snapshot": PATH, "address": "0x...", ...}."""
import json
import sys

import refscope


def finish(snapshot_path, obj=None, **extra):
    info = {"snapshot": snapshot_path}
    if obj is not None:
        info["address"] = hex(id(obj))
        del obj
    info.update(extra)
    refscope.snapshot(snapshot_path, collect=True)
    print(json.dumps(info))
    sys.stdout.flush()

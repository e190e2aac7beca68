"""Helpers for the C/C++ extension tests: the probe tests' helpers (walk,
in_edges, explained, cli_json...) plus running a program in a fresh
interpreter with a chosen PYTHONPATH."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "probe"))

from probe_support import (EDGE_GC_VISIBLE, EDGE_KINDS, EDGE_OWNED, TempSnapshot,  # noqa: E402
                           cli, cli_json, explained, in_edges, walk)

FIXTURES = os.environ.get("REFSCOPE_FIXTURES", "")
PACKAGE = os.environ.get("REFSCOPE_PACKAGE", "")
NODE_NATIVE = 0x10
ROOT_EXTENSION = 2


def run_python(code, *, with_probe=True, timeout=120):
    """Runs `code` in a fresh interpreter (this one's executable) with the
    fixtures, and the probe only if with_probe; returns its stdout's last
    line parsed as JSON."""
    env = dict(os.environ)
    paths = [FIXTURES] + ([PACKAGE] if with_probe else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError("child failed (%d):\n%s\n%s" % (proc.returncode, proc.stdout, proc.stderr))
    return json.loads(proc.stdout.strip().splitlines()[-1])


__all__ = ["walk", "in_edges", "explained", "cli", "cli_json", "TempSnapshot", "run_python",
           "EDGE_KINDS", "EDGE_OWNED", "EDGE_GC_VISIBLE", "NODE_NATIVE", "ROOT_EXTENSION",
           "FIXTURES", "PACKAGE"]

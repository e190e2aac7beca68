"""Helpers for the C/C++ extension tests: the probe tests' helpers (walk,
in_edges, explained, cli_json...) plus running code or a program from
programs/ in a fresh interpreter."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "probe"))

from probe_support import (EDGE_GC_VISIBLE, EDGE_INFERRED, EDGE_KINDS, EDGE_OWNED, TempSnapshot,  # noqa: E402
                           cli, cli_json, explained, in_edges, walk)

FIXTURES = os.environ.get("REFSCOPE_FIXTURES", "")
PACKAGE = os.environ.get("REFSCOPE_PACKAGE", "")
NODE_NATIVE = 0x10
ROOT_EXTENSION = 2


def _last_json_line(arguments, pythonpath, timeout, what):
    """Runs this interpreter with `arguments` and PYTHONPATH `pythonpath`;
    returns its stdout's last line parsed as JSON."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(pythonpath)
    proc = subprocess.run([sys.executable] + arguments, env=env, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (what, proc.returncode, proc.stdout, proc.stderr))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_python(code, *, with_probe=True, timeout=120):
    """Runs `code` in a fresh interpreter (this one's executable) with the
    fixtures, and the probe only if with_probe; returns its stdout's last
    line parsed as JSON."""
    return _last_json_line(["-c", code], [FIXTURES] + ([PACKAGE] if with_probe else []), timeout, "child")


def run_program(name, workdir, *args):
    """Runs programs/NAME SNAPSHOT ARGS... (SNAPSHOT a file in workdir, the
    programs' own directory first on PYTHONPATH); returns its JSON line."""
    programs = os.path.join(HERE, "programs")
    snapshot = os.path.join(workdir, name.replace(".py", ".rscope"))
    return _last_json_line([os.path.join(programs, name), snapshot] + [str(a) for a in args],
                           [programs, os.environ.get("PYTHONPATH", "")], 300, name)


__all__ = ["walk", "in_edges", "explained", "cli", "cli_json", "TempSnapshot", "run_python", "run_program",
           "EDGE_KINDS", "EDGE_OWNED", "EDGE_GC_VISIBLE", "EDGE_INFERRED", "NODE_NATIVE", "ROOT_EXTENSION",
           "FIXTURES", "PACKAGE"]

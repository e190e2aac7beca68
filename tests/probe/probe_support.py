"""Shared helpers for the probe tests (stdlib only: runs on every Python).

The tests import the built package through PYTHONPATH (set by CTest). The
refcount checks use refscope._probe._debug_walk, a TEST HOOK that walks the
heap like snapshot() but returns facts about watched objects instead of
writing a file; the CLI checks use REFSCOPE_CLI when it is set.
"""

import json
import os
import subprocess
import tempfile

import refscope
from refscope import _probe

EDGE_KINDS = ["Reference", "DictValue", "DictKey", "Attribute", "Slot", "Index",
              "SetMember", "Field", "Local", "Native", "Weak"]
EDGE_OWNED = 0x01
EDGE_GC_VISIBLE = 0x02
EDGE_INFERRED = 0x04
ROOT_INTERPRETER = 0
ROOT_THREAD_STACK = 1


def walk(*ids, collect=False):
    """Walks the heap; returns (report, [facts about each id(object) or None]).

    Takes ids, not objects: an object passed as an argument would also be
    referenced from the caller's value stack, which 3.9/3.10 frames do not
    expose (see docs/probe.md, known limits)."""
    report = _probe._debug_walk(collect, tuple(ids))
    return report, [report["watch"].get(i) for i in ids]


def in_edges(facts, kind=None):
    edges = [(EDGE_KINDS[k], flags, label) for k, flags, label, _ in facts["in_edges"]]
    return [e for e in edges if kind is None or e[0] == kind]


def explained(facts):
    """Owned in-edges plus root references; None when a root explains all."""
    total = facts["owned_in"]
    for _kind, _label, count, _thread in facts["roots"]:
        if count == 0:
            return None
        total += count
    return total


class NoOpProfiler:
    """A profile function object (sys.setprofile): the thread state holds it."""

    def __call__(self, frame, event, arg):
        return None


def cli():
    return os.environ.get("REFSCOPE_CLI")


def cli_json(*args):
    out = subprocess.run([cli()] + list(args) + ["--json"], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return json.loads(out.stdout.decode("utf-8"))


class TempSnapshot:
    """A temporary path for one snapshot file."""

    def __enter__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="refscope-test-")
        return os.path.join(self._dir.name, "heap.rscope")

    def __exit__(self, *exc):
        self._dir.cleanup()


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


__all__ = ["walk", "in_edges", "explained", "NoOpProfiler", "cli", "cli_json", "TempSnapshot", "rss_bytes",
           "refscope", "_probe"]

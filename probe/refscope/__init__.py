"""refscope: snapshots of a Python process's heap and reference graph.

    import refscope
    stats = refscope.snapshot("heap.rscope")      # gc.collect(), walk, write
    print(stats.nodes, stats.edges, stats.walk_seconds)

The walk runs in C++ (refscope._probe) with the GIL held and never runs
Python code; encoding and writing happen with the GIL released. Open the file
with the refscope app or `refscope-cli`.

`python -m refscope run SCRIPT [ARGS...] --snapshot-at-exit FILE` runs a
program unchanged and writes a snapshot when it ends (see --help).

`with refscope.leak_check(types=...):` (or `@refscope.leak_check()`) fails a
test with LeakError when objects created in it outlive it, explaining each
survivor's retention path and writing the snapshot beside the test.
"""

import os as _os
import threading as _threading

try:
    from . import _probe
except ImportError:
    # A package folder shared by several Pythons (the build tree's, the
    # Debian package's /usr/lib/refscope/python) holds one extension per
    # Python it was built for. Under another Python the import fails with
    # "partially initialized module ... (most likely due to a circular
    # import)", which points the wrong way: say which Pythons it has.
    import importlib.machinery as _machinery
    import sys as _sys
    from ._processes import PACKAGE_DIR as _dir, built_probe_versions as _built
    if any(_os.path.exists(_os.path.join(_dir, "_probe" + s)) for s in _machinery.EXTENSION_SUFFIXES):
        raise  # there is one for this Python, and it failed: Python's own reason
    import sysconfig as _sysconfig
    if _sysconfig.get_config_var("Py_GIL_DISABLED"):
        raise ImportError("refscope's probe does not support free-threaded Python builds (%s); "
                          "run a GIL build of Python" % _sys.executable) from None
    raise ImportError("refscope has no probe for Python %d.%d in %s (it has probes for %s): run a Python "
                      "it was built for, or install the wheel for this one (docs/packaging.md)"
                      % (_sys.version_info[0], _sys.version_info[1], _dir,
                         ", ".join("%d.%d" % v for v in _built()) or "none")) from None
from ._leak_check import LeakError, leak_check
from ._version import __version__

__all__ = ["snapshot", "SnapshotStats", "leak_check", "LeakError", "get_include", "__version__"]

_sequence_lock = _threading.Lock()
_sequence = [0]


def get_include():
    """The directory holding refscope/describe.h (and describe_pybind11.h),
    the header-only describe API for C/C++ extensions (docs/cpp-extensions.md)."""
    return _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "include")


class SnapshotStats:
    """What one snapshot contained and cost."""

    __slots__ = ("path", "sequence", "nodes", "edges", "roots", "threads", "bytes",
                 "walk_seconds", "write_seconds", "describe", "allocations")

    def __init__(self, path, sequence, stats):
        self.path = path
        self.sequence = sequence
        for name in ("nodes", "edges", "roots", "threads", "bytes", "walk_seconds",
                     "write_seconds"):
            setattr(self, name, stats[name])
        # Describe API counters: registrations, calls, failed_calls,
        # dropped_reports, native_nodes, disabled (docs/cpp-extensions.md).
        self.describe = stats.get("describe", {})
        # Allocation sites read from tracemalloc (docs/probe.md, "Allocation
        # sites"): tracing, traced_objects, tracebacks, frames,
        # lookup_failures, seconds.
        self.allocations = stats.get("allocations", {})

    def as_dict(self):
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self):
        return ("SnapshotStats(path=%r, nodes=%d, edges=%d, bytes=%d, walk=%.3fs, write=%.3fs)"
                % (self.path, self.nodes, self.edges, self.bytes, self.walk_seconds,
                   self.write_seconds))


def snapshot(path, *, collect=True, label=""):
    """Write a snapshot of this process's heap to `path`.

    collect: run gc.collect() first, so that the snapshot shows what is
    really retained rather than garbage waiting for the collector.
    label: free text stored in the snapshot header.
    Returns a SnapshotStats.
    """
    path = _os.fspath(path)
    if isinstance(path, bytes):
        path = _os.fsdecode(path)
    with _sequence_lock:
        _sequence[0] += 1
        sequence = _sequence[0]
    stats = _probe.snapshot(path, bool(collect), sequence, str(label))
    return SnapshotStats(path, sequence, stats)


# The live connection (refscope/_live.py, docs/protocol.md): connect() to a
# receiver, and REFSCOPE_CONNECT makes `import refscope` connect by itself.
from . import _live  # noqa: E402
from ._live import connect, disconnect, connection_status  # noqa: E402

__all__ += ["connect", "disconnect", "connection_status"]
if not _live._running_as_refscope_main():
    _live._connect_from_environment()

"""refscope.leak_check: fail a test when objects created in it outlive it.

    with refscope.leak_check(types=[my_ext.Wrapper]):
        run_the_code()

    @refscope.leak_check()            # a decorator too (unittest, pytest)
    def test_no_leak():
        run_the_code()

How it decides (docs/cpp-extensions.md, "leak_check"):
  1. Baseline: gc.collect(), then a census of the live objects it watches,
     made by the probe's heap walk, so it includes objects the garbage
     collector does not track (pybind11 instances, NumPy arrays, C types).
  2. The block runs. If it raises, nothing is checked: its exception wins.
  3. gc.collect() (three rounds: finalizers can free more), a second census.
     Objects in the second and not the first survived the block.
  4. Survivors that are allowed, or still bound to the calling frame's local
     variables (the context manager's block does not end their lives), are
     set aside. Any other survivor fails the check with LeakError (an
     AssertionError): the survivors grouped by type, each with its retention
     path or the reason it has none, the snapshot written beside the test
     and, when refscope-cli is found, the leak path drawn as an image.

Which objects are watched: with `types`, instances of those types (and their
subclasses). Without, every object whose type (for a class: whose own
module) does not come from the interpreter or the standard library: the
interpreter's caches (the type cache, re's and functools' caches, interned
strings, code objects, specialisation data) keep only such objects, so they
never trip the check, while an application's objects, extension types and
the classes a test defines are watched.
"""

import fnmatch
import functools
import gc
import os
import sys

# inspect, shutil and subprocess are imported where they are used:
# `import refscope` (also inside an attached process, whose later snapshots
# would show them) should not load them for a check that may never run.

from . import _probe

__all__ = ["leak_check", "LeakError"]


class LeakError(AssertionError):
    """Objects created inside a leak_check block outlived it."""

    def __init__(self, message, survivors=(), snapshot=None, image=None):
        super().__init__(message)
        self.survivors = list(survivors)
        self.snapshot = snapshot
        self.image = image

    def by_type(self):
        """[(type name, survivors of it)], the most numerous first: the
        report's order, and the pytest plugin's one-line summary."""
        groups = {}
        for entry in self.survivors:  # (address, type address, type name, module)
            groups.setdefault(entry[2], []).append(entry)
        return sorted(groups.items(), key=lambda group: (-len(group[1]), group[0]))


def _interpreter_packages():
    names = set(getattr(sys, "stdlib_module_names", ()))
    if not names:  # 3.9: the stdlib is what lives under the stdlib directory
        names.update(sys.builtin_module_names)
        stdlib = os.path.dirname(os.__file__)
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None) or ""
            if path.startswith(stdlib) and "site-packages" not in path and "dist-packages" not in path:
                names.add(module.__name__.partition(".")[0])
    names.update({"builtins", "", "refscope", "__future__", "_frozen_importlib",
                  "_frozen_importlib_external"})
    return tuple(sorted(names))


def find_cli():
    """refscope-cli: $REFSCOPE_CLI, then PATH, then the build tree this
    package was built in (build/python/refscope -> build/app/cli)."""
    import shutil
    candidates = [os.environ.get("REFSCOPE_CLI"), shutil.which("refscope-cli"),
                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "app", "cli",
                               "refscope-cli")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None


def _type_matches(entry, patterns, type_ids):
    _address, type_address, name, _module = entry
    if type_address in type_ids:
        return True
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


class leak_check:
    """Context manager and decorator; see the module docstring.

    types      types (or None): watch instances of these only.
    allow      types, qualified type names or fnmatch patterns
               ("functools.*") of survivors that are fine.
    name       names the files written beside the test (default: the test
               function's or the calling function's name).
    directory  where to write them (default: $REFSCOPE_LEAK_DIR, else the
               test's own directory).
    image      draw the leak path with refscope-cli export-path: True for
               svg, or a format it writes ("png", "pdf", "dot").
    show       survivors explained per type in the report.
    """

    def __init__(self, types=None, allow=(), *, name=None, directory=None, image=True, show=3):
        self.types = tuple(types) if types is not None else ()
        for t in self.types:
            if not isinstance(t, type):
                raise TypeError("leak_check types must be types, got %r" % (t,))
        self.allow = tuple(allow)
        self.name = name
        self.directory = directory
        self.image = image
        self.show = show
        self._source = None
        self._baseline = None
        self._frame = None

    # ------------------------------------------------------------ decorator

    def __call__(self, function):
        @functools.wraps(function)
        def checked(*args, **kwargs):
            check = leak_check(self.types, self.allow, name=self.name or function.__name__,
                               directory=self.directory, image=self.image, show=self.show)
            check._source = _source_file(function)
            return check._run(function, args, kwargs)
        return checked

    def _run(self, function, args, kwargs, kept=lambda result: (result,)):
        """function(*args, **kwargs) inside this check. `kept(result)`: the
        values the caller keeps after the call (by default what the function
        returns: its caller's, not a leak); what they reach is set aside."""
        self._enter(frame=None)
        try:
            result = function(*args, **kwargs)
        except BaseException:
            self._baseline = None  # the function's own exception is the news
            raise
        # Not held by this frame while the survivors are explained, or the
        # leak's path would start here, in refscope, not at the caller.
        del function, args, kwargs
        self._exit(frame=None, kept_values=kept(result))
        return result

    # ------------------------------------------------------ context manager

    def __enter__(self):
        frame = sys._getframe(1)
        if self._source is None:
            self._source = frame.f_code.co_filename
        if self.name is None:
            self.name = frame.f_code.co_name
        self._enter(frame)
        del frame
        return self

    def __exit__(self, exc_type, exc, traceback):
        if exc_type is not None:
            self._baseline = self._frame = None
            return False  # the block's own failure is the news
        self._exit(self._frame)
        return False

    # --------------------------------------------------------------- work

    def _census(self):
        packages = () if self.types else _interpreter_packages()
        return _probe._census(self.types, packages)

    def _enter(self, frame):
        self._frame = frame
        for _ in range(2):
            gc.collect()
        self._baseline = {(e[0], e[1]) for e in self._census()}

    def _exit(self, frame, kept_values=()):
        baseline, self._baseline, self._frame = self._baseline, None, None
        for _ in range(3):
            gc.collect()
        after = self._census()
        survivors = [e for e in after if (e[0], e[1]) not in baseline]
        del after, baseline
        survivors = self._drop_allowed(survivors)
        if survivors and (frame is not None or kept_values):
            values = list(kept_values)
            # At module level the "locals" are the module's globals, which
            # hold leaks like any other global: nothing is set aside there.
            if frame is not None and frame.f_locals is not frame.f_globals:
                values.extend(frame.f_locals.values())
            kept = _kept_by(values, {e[0] for e in survivors})
            survivors = [e for e in survivors if e[0] not in kept]
        del frame
        if survivors:
            raise self._failure(survivors)

    def _drop_allowed(self, survivors):
        type_ids = {id(a) for a in self.allow if isinstance(a, type)}
        patterns = [a for a in self.allow if isinstance(a, str)]
        return [e for e in survivors if not _type_matches(e, patterns, type_ids)]

    # -------------------------------------------------------------- report

    def _failure(self, survivors):
        directory = self.directory or os.environ.get("REFSCOPE_LEAK_DIR") or \
            os.path.dirname(os.path.abspath(self._source or "."))
        stem = os.path.join(directory, "%s.leak" % _safe(self.name or "leak_check"))
        snapshot = stem + ".rscope"
        lines = []
        try:
            from . import snapshot as take_snapshot
            # Created only now: a check that passes writes nothing anywhere.
            os.makedirs(directory, exist_ok=True)
            take_snapshot(snapshot, collect=False, label="leak_check %s" % self.name)
        except Exception as error:  # still report what survived
            lines.append("(could not write the snapshot %s: %s)" % (snapshot, error))
            snapshot = None
        cli = find_cli() if snapshot else None
        error = LeakError("", survivors, snapshot)
        count = len(survivors)
        head = "refscope.leak_check(%s): %d object%s survived the block" % (
            self.name, count, "" if count == 1 else "s")
        report = [head + ":"]
        first = None
        for type_name, entries in error.by_type():
            report.append("  %s: %d object%s" % (type_name, len(entries), "" if len(entries) == 1 else "s"))
            for entry in entries[: self.show]:
                address = "0x%x" % entry[0]
                first = first or address
                report.append("    %s  %s" % (address, _explain(cli, snapshot, address)))
            if len(entries) > self.show:
                report.append("    ... and %d more" % (len(entries) - self.show))
        image = None
        if snapshot:
            report.append("snapshot: %s (open it in refscope, or refscope-cli path %s --to ADDRESS)"
                          % (snapshot, snapshot))
            if self.image and cli and first:
                image_format = self.image if isinstance(self.image, str) else "svg"
                image = _draw(cli, snapshot, first, stem + "." + image_format, image_format)
                report.append("leak path image: %s" % image if image else
                              "leak path image: refscope-cli export-path failed")
            elif self.image:
                report.append("leak path image: not drawn (refscope-cli not found: set REFSCOPE_CLI "
                              "or put it on PATH)")
        report.extend(lines)
        error.args = ("\n".join(report),)
        error.image = image
        return error


def _explain(cli, snapshot, address):
    """The retention path (or why there is none), from refscope-cli path."""
    import subprocess
    if not cli:
        return "(retention path: refscope-cli not found)"
    try:
        proc = subprocess.run([cli, "path", snapshot, "--to", address], capture_output=True, text=True,
                              timeout=300)
    except (OSError, subprocess.SubprocessError) as error:
        return "(refscope-cli failed: %s)" % error
    if proc.returncode != 0:
        return "(refscope-cli: %s)" % " ".join(proc.stderr.strip().splitlines()[-1:])
    text = proc.stdout.strip().splitlines()
    return text[0] if text else "(no output)"


def _draw(cli, snapshot, address, out, image_format):
    import subprocess
    try:
        proc = subprocess.run([cli, "export-path", snapshot, "--to", address, "-o", out,
                               "--format", image_format],
                              capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError):
        return None
    return out if proc.returncode == 0 and os.path.exists(out) else None


_CONTAINERS = (list, tuple, dict, set, frozenset)


def _kept_by(values, survivors):
    """Survivors that `values` (the calling function's local variables, a
    decorated function's result) still hold: one of them, inside a
    list/tuple/dict/set among them (two levels deep), or reached from those
    through other survivors. The block's end did not end their lives."""
    kept = set()
    stack = []
    level = list(values)
    for _depth in range(3):
        containers = []
        for value in level:
            if id(value) in survivors:
                stack.append(value)
            elif type(value) in _CONTAINERS:
                containers.extend(value.values() if isinstance(value, dict) else value)
        level = containers
    while stack:
        obj = stack.pop()
        if id(obj) in kept:
            continue
        kept.add(id(obj))
        stack.extend(r for r in gc.get_referents(obj) if id(r) in survivors and id(r) not in kept)
    return kept


def _source_file(function):
    import inspect
    try:
        return inspect.getsourcefile(function) or function.__code__.co_filename
    except (TypeError, AttributeError):
        return None


def _safe(name):
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name) or "leak_check"

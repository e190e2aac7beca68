"""refscope's pytest plugin: run tests inside refscope.leak_check.

    pytest --refscope-leaks [--refscope-dir DIR]      # check every test

    @pytest.mark.refscope_leak_check(types=[Wrapper], allow=["functools.*"])
    def test_one():                                   # checks this test only,
        ...                                           # with or without the flag

An installed wheel registers the plugin through its `pytest11` entry point
(`refscope = refscope.pytest_plugin`); from a build tree, name it:
`PYTHONPATH=build/dev/python pytest -p refscope.pytest_plugin --refscope-leaks`.

What is checked: the call phase of a Python test function (or unittest test
method), nothing else. Fixture setup has run before the baseline and fixture
teardown runs after the check, so neither counts. A test that fails, errors
or is skipped on its own is not checked (its own outcome is the news).
A leak fails the test with leak_check's report as the failure text, and
writes, under the folder (docs/probe-pytest.md, "The pytest plugin"):

    <stem>.leak.rscope    the snapshot taken at the check
    <stem>.leak.png       the first survivor's retention path, drawn by
                          refscope-cli export-path (when refscope-cli is found)

<stem> is file_stem(nodeid): the node id with every character outside
[A-Za-z0-9._-] replaced, cut to 100 characters, then a hash of the whole
node id (names that the replacement or the cut made equal stay apart) and
the process id (pytest processes sharing the folder, xdist workers or
separate runs, never write the same file).
"""

import functools
import hashlib
import inspect
import os
import re

import pytest

from ._leak_check import LeakError, leak_check

MARKER = "refscope_leak_check"
DEFAULT_DIR = ".refscope"
# pytest's bookkeeping of the test in progress (a fixture requested with
# request.getfixturevalue during the call, its SubRequest and finalizers)
# lives until the teardown: never a leak of the test.
PYTEST_ALLOW = ("_pytest.*", "pluggy.*")
_STEM_LIMIT = 100
# The LeakError the check raised for an item, so that the report shows it as
# leak_check's text (pytest_runtest_makereport) and the summary counts it.
_LEAK_ATTRIBUTE = "_refscope_leak_error"


def pytest_addoption(parser):
    group = parser.getgroup("refscope", "refscope leak checks")
    group.addoption("--refscope-leaks", action="store_true", default=False,
                    help="run every test inside refscope.leak_check: a test whose objects "
                         "outlive it fails with the survivors and their retention paths")
    group.addoption("--refscope-dir", metavar="DIR", default=None,
                    help="where a leaking test's snapshot and leak-path image go (default: "
                         "the refscope_dir ini value, else $REFSCOPE_LEAK_DIR, else "
                         ".refscope under the rootdir); created on the first leak")
    parser.addini("refscope_dir", "default for --refscope-dir (relative to the rootdir)",
                  default=None)


def pytest_configure(config):
    # Registered even without --refscope-leaks: the marker works on its own,
    # and --strict-markers must not reject it.
    config.addinivalue_line(
        "markers",
        MARKER + "(types=None, allow=()): run this test inside refscope.leak_check "
        "(watch instances of `types` only; `allow`: types or fnmatch patterns of "
        "qualified type names that may survive)")


def pytest_report_header(config):
    if config.getoption("refscope_leaks"):
        return "refscope: every test runs inside leak_check; files go to %s" % leak_directory(config)
    return None


def leak_directory(config):
    """Where leaking tests' files go: --refscope-dir (relative to where pytest
    was started), the ini value (relative to the rootdir), $REFSCOPE_LEAK_DIR
    (leak_check's own variable), else <rootdir>/.refscope."""
    option = config.getoption("refscope_dir")
    if option:
        return os.path.join(str(config.invocation_params.dir), os.path.expanduser(option))
    ini = config.getini("refscope_dir")
    if ini:
        return os.path.join(str(config.rootpath), os.path.expanduser(str(ini)))
    env = os.environ.get("REFSCOPE_LEAK_DIR")
    if env:
        return os.path.abspath(env)
    return os.path.join(str(config.rootpath), DEFAULT_DIR)


def file_stem(nodeid, pid=None):
    """A file name stem for a test: safe on any file system (no '/', '::',
    brackets, spaces or leading dot; ASCII; at most ~120 bytes) and unique per
    node id and process."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid.replace("::", ".")).strip("._-")
    text = text[:_STEM_LIMIT].rstrip("._-") or "test"
    digest = hashlib.sha1(nodeid.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return "%s-%s-p%d" % (text, digest, os.getpid() if pid is None else pid)


def _as_tuple(value):
    if value is None:
        return ()
    if isinstance(value, (type, str)):
        return (value,)
    return tuple(value)


def _check_for(item):
    """The leak_check for this item, or None when it is not checked."""
    if not isinstance(item, pytest.Function):
        return None  # doctests and other plugins' items have no test function
    marker = item.get_closest_marker(MARKER)
    if marker is None and not item.config.getoption("refscope_leaks"):
        return None
    options = dict(marker.kwargs) if marker is not None else {}
    if marker is not None and marker.args:
        pytest.fail("@pytest.mark.%s takes keywords only (types=..., allow=...)" % MARKER,
                    pytrace=False)
    unknown = set(options) - {"types", "allow"}
    if unknown:
        pytest.fail("@pytest.mark.%s: unknown argument(s) %s (it takes types and allow)"
                    % (MARKER, ", ".join(sorted(unknown))), pytrace=False)
    types = _as_tuple(options.get("types"))
    return leak_check(types or None, _as_tuple(options.get("allow")) + PYTEST_ALLOW,
                      name=file_stem(item.nodeid), directory=leak_directory(item.config),
                      image="png")


def _function_fixture_values(item):
    """Values of the item's function-scoped fixtures: what the test put in one
    (a list fixture it filled) lives until the teardown releases it, which is
    after the check. Higher-scoped fixtures outlive the test: what they hold
    is a leak of it. Best effort: reads pytest's FixtureDefs."""
    values = []
    request = getattr(item, "_request", None)
    fixture_defs = getattr(request, "_fixture_defs", None) or {}
    for name, fixture_def in fixture_defs.items():
        cached = getattr(fixture_def, "cached_result", None)
        if name != "request" and cached and getattr(fixture_def, "scope", None) == "function":
            values.append(cached[0])
    return values


def _checked(function, check, item):
    """`function` run inside `check`. A wrapper of the test function rather
    than of the hook call: pluggy 1.0 (Debian 12) has no way for a
    hookwrapper to turn a passing call into a failure, and pytest itself
    replaces item.obj the same way for --trace. functools.wraps keeps
    unittest's skip attributes."""
    @functools.wraps(function)
    def run_checked(*args, **kwargs):
        # The census runs here, inside the call: pytest's objects made
        # before (the item's setup, the hook calls) are in the baseline.
        returned = []

        def kept(result):
            returned.append(True)
            return [result] + _function_fixture_values(item)
        try:
            return check._run(function, args, kwargs, kept=kept)
        except LeakError as error:
            # Raised after the test returned: the plugin's finding, not a
            # LeakError of the test's own leak_check.
            if returned:
                setattr(item, _LEAK_ATTRIBUTE, error)
            raise
    return run_checked


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    check = _check_for(item)
    function = getattr(item, "obj", None) if check is not None else None
    # Coroutine tests run in an event loop another plugin owns: the call
    # returns before the test body has run, so there is nothing to compare.
    if function is None or inspect.iscoroutinefunction(function) or \
            inspect.isasyncgenfunction(function):
        yield
        return
    item.obj = _checked(function, check, item)
    try:
        yield
    finally:
        item.obj = function


class _LeakReport:
    """A report's longrepr: leak_check's text as it is (no traceback), and a
    one-line crash message (the survivors per type), which the short summary
    (-r) and JUnit XML show. pytest-xdist sends it as its str()."""

    class _Crash:
        def __init__(self, message):
            self.message = message

    def __init__(self, error):
        self.text = str(error)
        kinds = [(type_name, len(entries)) for type_name, entries in error.by_type()]
        total = len(error.survivors)
        self.reprcrash = self._Crash("refscope: %d object%s outlived the test (%s)" % (
            total, "" if total == 1 else "s",
            ", ".join("%s: %d" % kind for kind in kinds[:3]) + (", ..." if len(kinds) > 3 else "")))

    def toterminal(self, out):
        for line in self.text.splitlines():
            out.line(line)

    def __str__(self):
        return self.text


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if call.when != "call":
        return
    error = item.__dict__.pop(_LEAK_ATTRIBUTE, None)
    report = outcome.get_result()
    # Only when the failure is the plugin's own LeakError (not one the test
    # raised with its own leak_check) and the test still counts as failed
    # (an xfail turns it into a skip, whose report must keep its form).
    if error is not None and call.excinfo is not None and call.excinfo.value is error \
            and report.failed:
        report.longrepr = _LeakReport(error)
        report.user_properties.append(("refscope_snapshot", error.snapshot or ""))
        report.user_properties.append(("refscope_image", error.image or ""))


def pytest_terminal_summary(terminalreporter, config):
    leaking = [report for report in terminalreporter.stats.get("failed", [])
               if dict(report.user_properties).get("refscope_snapshot") is not None]
    if leaking:
        terminalreporter.section("refscope", sep="-")
        terminalreporter.write_line("refscope: %d test%s leaked; snapshots and images in %s"
                                    % (len(leaking), "" if len(leaking) == 1 else "s",
                                       leak_directory(config)))

"""The pytest plugin (refscope.pytest_plugin): `--refscope-leaks` and the
`refscope_leak_check` marker run tests inside leak_check; a leaking test fails
with leak_check's report and leaves its snapshot and leak-path image under
--refscope-dir, named after the test (safe, unique per process); passing,
skipped and self-failing tests leave nothing and are not double-reported.

Runs this interpreter's pytest in a subprocess on a generated test file, from
the build tree: `-p refscope.pytest_plugin` (the pytest11 entry point needs an
installed wheel), with plugin autoloading off so that an installed refscope,
or any other plugin of the machine, stays out. Skipped where this interpreter
has no pytest (the pyenv Pythons; CMake registers it only where it has)."""

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import unittest
import xml.etree.ElementTree as ElementTree

from probe_support import cli

HAVE_PYTEST = importlib.util.find_spec("pytest") is not None
MAGIC = b"RSCOPE\r\n"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

TESTS = textwrap.dedent('''
    import unittest

    import pytest

    CACHE = []


    class Leaky:
        pass


    class Tracked:
        pass


    class Other:
        pass


    @pytest.fixture
    def bucket():
        items = []
        yield items
        items.clear()


    def test_passes():
        made = [Leaky() for _ in range(3)]
        assert len(made) == 3


    def test_leaks():
        CACHE.extend(Leaky() for _ in range(4))


    @pytest.mark.skip(reason="not today")
    def test_skipped():
        CACHE.append(Leaky())


    def test_skips_itself():
        CACHE.append(Leaky())
        pytest.skip("after leaking")


    def test_fails_on_its_own():
        CACHE.append(Leaky())
        assert False, "its own failure"


    @pytest.mark.refscope_leak_check(types=[Tracked])
    def test_marked_leaks():
        CACHE.extend([Tracked(), Other(), Other()])


    @pytest.mark.refscope_leak_check(allow=["test_demo.Other"])
    def test_marked_allowed():
        CACHE.append(Other())


    def test_fills_a_function_fixture(bucket):
        bucket.append(Leaky())


    @pytest.mark.parametrize("arg", ["a/b", "c::d [x]"])
    def test_param_leaks(arg):
        CACHE.append(Leaky())


    class Case(unittest.TestCase):
        def test_unittest_leaks(self):
            CACHE.append(Leaky())

        @unittest.skip("no")
        def test_unittest_skipped(self):
            CACHE.append(Leaky())
''')

LEAKING = ["test_demo.py::test_leaks", "test_demo.py::test_marked_leaks",
           "test_demo.py::test_param_leaks[a/b]", "test_demo.py::test_param_leaks[c::d [x]]",
           "test_demo.py::Case::test_unittest_leaks"]
FAILING_ON_ITS_OWN = "test_demo.py::test_fails_on_its_own"
PASSING = ["test_demo.py::test_passes", "test_demo.py::test_marked_allowed",
           "test_demo.py::test_fills_a_function_fixture"]
SKIPPED = ["test_demo.py::test_skipped", "test_demo.py::test_skips_itself",
           "test_demo.py::Case::test_unittest_skipped"]
SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def save_guide_image(path, name):
    """The user guide's picture of a leaking test's path image
    (docs/guide/pytest.md), into $REFSCOPE_GUIDE_IMAGES when set. Only
    Debian's Python writes it (one picture, not one per interpreter racing
    for the name), through a temporary name."""
    folder = os.environ.get("REFSCOPE_GUIDE_IMAGES")
    if not folder or not sys.executable.startswith("/usr/bin/"):
        return
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, name + ".png")
    with open(path, "rb") as source, open(target + ".tmp%d" % os.getpid(), "wb") as copy:
        copy.write(source.read())
    os.replace(target + ".tmp%d" % os.getpid(), target)


def outcomes(junit_path):
    """nodeid -> (outcome, failure text) from pytest's junit XML."""
    result = {}
    for case in ElementTree.parse(junit_path).getroot().iter("testcase"):
        # classname "test_demo.Case", name "test_unittest_leaks[...]"
        parts = case.get("classname").split(".")
        nodeid = "::".join([parts[0] + ".py"] + parts[1:] + [case.get("name")])
        outcome, text = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
                text = (child.get("message") or "") + "\n" + (child.text or "")
        result[nodeid] = (outcome, text)
    return result


@unittest.skipUnless(HAVE_PYTEST, "this interpreter has no pytest")
class PytestPluginTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="refscope-pytest-")
        self.addCleanup(self.tmp.cleanup)
        self.root = self.tmp.name
        with open(os.path.join(self.root, "test_demo.py"), "w") as f:
            f.write(TESTS)
        # rootdir = this folder; --strict-markers: the marker must be registered.
        with open(os.path.join(self.root, "pytest.ini"), "w") as f:
            f.write("[pytest]\naddopts = --strict-markers -p no:cacheprovider\n")

    def start_pytest(self, *args, junit="junit.xml"):
        env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONDONTWRITEBYTECODE="1")
        for name in ("PYTEST_ADDOPTS", "REFSCOPE_LEAK_DIR", "PYTEST_PLUGINS"):
            env.pop(name, None)
        command = [sys.executable, "-m", "pytest", "-p", "refscope.pytest_plugin", "-rA",
                   "-W", "error::pytest.PytestUnknownMarkWarning",
                   "--junitxml", os.path.join(self.root, junit), "test_demo.py"] + list(args)
        return subprocess.Popen(command, cwd=self.root, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)

    def run_pytest(self, *args, junit="junit.xml"):
        proc = self.start_pytest(*args, junit=junit)
        out = proc.communicate(timeout=600)[0].decode("utf-8", "replace")
        return proc.returncode, out, outcomes(os.path.join(self.root, junit))

    def files(self, directory):
        return sorted(os.listdir(directory)) if os.path.isdir(directory) else []

    def files_of(self, names, nodeid):
        """The files named after nodeid (any process id)."""
        from refscope.pytest_plugin import file_stem
        prefix = file_stem(nodeid, pid=0)[:-len("-p0")] + "-p"
        return [n for n in names if n.startswith(prefix)]

    def assertLeakFiles(self, directory, nodeid, processes=1):
        names = self.files(directory)
        mine = self.files_of(names, nodeid)
        snapshots = [n for n in mine if n.endswith(".leak.rscope")]
        self.assertEqual(len(snapshots), processes, (nodeid, names))
        for name in snapshots:
            with open(os.path.join(directory, name), "rb") as f:
                self.assertEqual(f.read(len(MAGIC)), MAGIC, name)
        images = [n for n in mine if n.endswith(".leak.png")]
        if cli():
            self.assertEqual(len(images), processes, (nodeid, names))
            for name in images:
                with open(os.path.join(directory, name), "rb") as f:
                    self.assertEqual(f.read(len(PNG_MAGIC)), PNG_MAGIC, name)
        self.assertEqual(len(mine), len(snapshots) + len(images), mine)

    def test_every_test_checked_with_the_flag(self):
        leak_dir = os.path.join(self.root, "leaks")
        code, out, results = self.run_pytest("--refscope-leaks", "--refscope-dir", "leaks")
        self.assertEqual(code, 1, out)  # tests failed
        self.assertIn("refscope: every test runs inside leak_check; files go to " + leak_dir, out)
        self.assertNotIn("PytestUnknownMarkWarning", out)
        for nodeid in LEAKING:
            outcome, text = results[nodeid]
            self.assertEqual(outcome, "failed", (nodeid, out))
            # The report is leak_check's text, not a traceback through the plugin.
            self.assertIn("survived the block", text)
            self.assertNotIn("Traceback", text)
            self.assertNotIn("_leak_check.py", text)
            self.assertNotIn("pytest_plugin.py", text)
            self.assertIn("snapshot: " + leak_dir + os.sep, text)
            self.assertLeakFiles(leak_dir, nodeid)
        self.assertIn("test_demo.Leaky: 4 objects", results["test_demo.py::test_leaks"][1])
        marked = results["test_demo.py::test_marked_leaks"][1]
        self.assertIn("test_demo.Tracked: 1 object", marked)
        self.assertNotIn("test_demo.Other", marked)  # types= watches Tracked only
        if cli():
            self.assertIn("['CACHE']", results["test_demo.py::test_leaks"][1])
            self.assertIn("leak path image: " + leak_dir + os.sep,
                          results["test_demo.py::test_leaks"][1])
            [image] = [n for n in self.files_of(self.files(leak_dir), "test_demo.py::test_leaks")
                       if n.endswith(".leak.png")]
            save_guide_image(os.path.join(leak_dir, image), "pytest-leak-path")
        outcome, text = results[FAILING_ON_ITS_OWN]
        self.assertEqual(outcome, "failed")
        self.assertIn("its own failure", text)
        self.assertNotIn("survived the block", text)  # not double-reported
        for nodeid in PASSING:
            self.assertEqual(results[nodeid][0], "passed", (nodeid, results[nodeid][1], out))
        for nodeid in SKIPPED:
            self.assertEqual(results[nodeid][0], "skipped", (nodeid, out))
        names = self.files(leak_dir)
        for nodeid in PASSING + SKIPPED + [FAILING_ON_ITS_OWN]:
            self.assertEqual(self.files_of(names, nodeid), [], nodeid)
        for name in names:
            self.assertRegex(name, SAFE_NAME)
            self.assertLess(len(name.encode()), 160, name)
        self.assertEqual(len(names), len(LEAKING) * (2 if cli() else 1), names)
        self.assertIn("refscope: 5 tests leaked", out)

    def test_the_marker_alone_checks_one_test(self):
        code, out, results = self.run_pytest()
        self.assertEqual(code, 1, out)
        self.assertNotIn("refscope: every test", out)
        self.assertEqual(results["test_demo.py::test_marked_leaks"][0], "failed", out)
        self.assertEqual(results["test_demo.py::test_marked_allowed"][0], "passed", out)
        for nodeid in [n for n in LEAKING if "marked" not in n] + PASSING:
            self.assertEqual(results[nodeid][0], "passed", (nodeid, out))
        # The default folder: .refscope under the rootdir.
        default_dir = os.path.join(self.root, ".refscope")
        self.assertLeakFiles(default_dir, "test_demo.py::test_marked_leaks")
        self.assertEqual(len(self.files(default_dir)), 2 if cli() else 1)

    def test_concurrent_runs_share_a_folder(self):
        leak_dir = os.path.join(self.root, "shared")
        runs = [self.start_pytest("--refscope-leaks", "--refscope-dir", leak_dir,
                                  "-k", "test_leaks or param", junit="junit%d.xml" % i)
                for i in range(2)]
        for proc in runs:
            out = proc.communicate(timeout=600)[0].decode("utf-8", "replace")
            self.assertEqual(proc.returncode, 1, out)
        leaking = ["test_demo.py::test_leaks", "test_demo.py::test_param_leaks[a/b]",
                   "test_demo.py::test_param_leaks[c::d [x]]"]
        for nodeid in leaking:
            self.assertLeakFiles(leak_dir, nodeid, processes=2)
        pids = {re.search(r"-p([0-9]+)\.leak\.", n).group(1) for n in self.files(leak_dir)}
        self.assertEqual(pids, {str(proc.pid) for proc in runs})
        if cli():
            for name in self.files(leak_dir):
                if name.endswith(".rscope"):
                    done = subprocess.run([cli(), "info", os.path.join(leak_dir, name)],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
                    self.assertEqual(done.returncode, 0, done.stderr)


class FileStemTest(unittest.TestCase):
    @unittest.skipUnless(HAVE_PYTEST, "this interpreter has no pytest")
    def test_names_are_safe_bounded_and_distinct(self):
        from refscope.pytest_plugin import file_stem
        ids = ["tests/test_x.py::TestA::test_b[a/b]", "tests/test_x.py::TestA::test_b[a_b]",
               "../up.py::test[..]", "t.py::test[" + "x" * 500 + "1]",
               "t.py::test[" + "x" * 500 + "2]", "t.py::test[\u00e9\u4e2d \U0001f600]", "::"]
        stems = [file_stem(i, pid=4194304) for i in ids]
        self.assertEqual(len(set(stems)), len(ids), stems)
        for stem in stems:
            self.assertRegex(stem, SAFE_NAME)
            self.assertLessEqual(len(stem), 120, stem)
        self.assertTrue(stems[0].startswith("tests_test_x.py.TestA.test_b_a_b-"), stems[0])
        self.assertNotEqual(file_stem(ids[0], pid=1), file_stem(ids[0], pid=2))


if __name__ == "__main__":
    unittest.main()

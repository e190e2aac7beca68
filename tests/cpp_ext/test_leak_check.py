"""refscope.leak_check: catches each leak of the reference scenarios, passes
on clean code (no false positive from the interpreter's caches over 100
runs), reports survivors with their retention paths, and writes the
snapshot and the leak-path image beside the test, under unittest and pytest."""
import collections
import dataclasses
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

import _describefix
import refscope
from cpp_ext_support import FIXTURES, PACKAGE, cli

try:
    import _pybindfix
except ImportError:
    _pybindfix = None
try:
    import numpy as np
except ImportError:
    np = None

MODULE_CACHE = []


class Node:
    def __init__(self, payload=None):
        self.payload = payload


class LeakCheckTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="refscope-leak-check-")
        self.addCleanup(shutil.rmtree, self.directory, True)

    def check(self, **options):
        return refscope.leak_check(directory=self.directory, **options)

    def assertLeaks(self, block, type_name, reason, **options):
        with self.assertRaises(refscope.LeakError) as caught:
            with self.check(**options):
                block()
        error = caught.exception
        message = str(error)
        self.assertIn(type_name, message)
        self.assertIn(reason, message)
        self.assertTrue(os.path.exists(error.snapshot), message)
        self.assertTrue(os.path.dirname(error.snapshot) == self.directory)
        return error


class CatchesLeaks(LeakCheckTest):
    def test_a_module_level_cache(self):
        def block():
            MODULE_CACHE.append(Node())
        try:
            error = self.assertLeaks(block, "test_leak_check.Node", "['MODULE_CACHE']")
            self.assertEqual(len(error.survivors), 1)
            if cli():
                self.assertTrue(error.image and os.path.exists(error.image), str(error))
                with open(error.image) as image:
                    self.assertIn("<svg", image.read(2000))
        finally:
            MODULE_CACHE.clear()

    def test_a_refcount_bug_in_c(self):
        leaked = []

        def block():
            obj = Node()
            _describefix.incref_twice_decref_once(obj)
            leaked.append(id(obj))
        self.assertLeaks(block, "test_leak_check.Node", "GC cannot see" if cli() else "0x")

    def test_a_c_wrapper_cycle_through_a_closure(self):
        def block():
            w = _describefix.Wrapper()

            def callback():
                return w
            w.value = callback
        self.assertLeaks(block, "_describefix.Wrapper",
                         "Wrapper holds <native: Wrapper::value>" if cli() else "0x")

    @unittest.skipIf(_pybindfix is None, "pybind11 fixture not built")
    def test_pybind11_cycles(self):
        def self_cycle():
            w = _pybindfix.Wrapper()
            w.value = w
        self.assertLeaks(self_cycle, "_pybindfix.Wrapper",
                         "_pybindfix.Wrapper holds Wrapper::value without reporting it" if cli() else "0x")

        def callback_cycle():
            c = _pybindfix.CallbackWrapper()
            namespace = {"c": c}
            exec("def fire():\n    return c\n", namespace)
            c.value = namespace["fire"]
        self.assertLeaks(callback_cycle, "_pybindfix.CallbackWrapper",
                         "CallbackWrapper::value \u2192 PyCallback::function" if cli() else "0x")

    @unittest.skipIf(_pybindfix is None, "pybind11 fixture not built")
    def test_custom_type_setup_cycles_pass(self):
        with self.check():
            w = _pybindfix.TraversedWrapper()
            w.value = w
            del w

    def test_pyobject_preservation_with_and_without_its_description(self):
        try:
            def block():
                _describefix.preserve(_describefix.Preserved())
            self.assertLeaks(block, "_describefix.Preserved",
                             "TensorImpl held by C++ (registry)" if cli() else "0x")
            _describefix.describe_preservation(False)
            self.assertLeaks(block, "_describefix.Preserved", "GC cannot see" if cli() else "0x")
        finally:
            _describefix.describe_preservation(True)
            _describefix.release_all()

    @unittest.skipIf(np is None, "NumPy does not import here")
    def test_a_numpy_view_keeping_its_base(self):
        def block():
            base = np.zeros(1000)
            MODULE_CACHE.append(base[:10])
        try:
            error = self.assertLeaks(block, "numpy.ndarray", ".base" if cli() else "0x",
                                     types=[np.ndarray])
            self.assertEqual(len(error.survivors), 2)  # the view and its base
        finally:
            MODULE_CACHE.clear()

    def test_types_limit_what_is_watched_and_allow_sets_survivors_aside(self):
        class Unrelated:
            pass
        with self.check(types=[Unrelated]):
            MODULE_CACHE.append(Node())  # not an Unrelated: not watched
        MODULE_CACHE.clear()
        with self.check(allow=["test_leak_check.Node"]):
            MODULE_CACHE.append(Node())
        MODULE_CACHE.clear()
        with self.check(allow=[Node]):
            MODULE_CACHE.append(Node())
        MODULE_CACHE.clear()

    def test_locals_still_bound_are_not_leaks(self):
        with self.check():
            node = Node()
            nodes = [Node(), Node()]
        self.assertIsNotNone(node)
        self.assertEqual(len(nodes), 2)

    def test_the_block_exception_wins(self):
        with self.assertRaises(KeyError):
            with self.check():
                MODULE_CACHE.append(Node())
                raise KeyError("the test's own failure")
        MODULE_CACHE.clear()

    def test_decorator(self):
        @refscope.leak_check(directory=self.directory)
        def clean(n):
            return [Node() for _ in range(n)]

        @refscope.leak_check(directory=self.directory)
        def leaky():
            MODULE_CACHE.append(Node())
        self.assertEqual(len(clean(3)), 3)  # the result is the caller's
        self.assertEqual(clean.__name__, "clean")
        with self.assertRaises(refscope.LeakError) as caught:
            leaky()
        MODULE_CACHE.clear()
        self.assertIn("leak_check(leaky)", str(caught.exception))
        self.assertTrue(os.path.basename(caught.exception.snapshot).startswith("leaky.leak"))


def clean_block(round_number):
    """Ordinary work whose objects all die: user objects and classes,
    closures, caught exceptions, regular expressions, formatting, JSON,
    dataclasses, functools caches on local functions, extension objects."""
    @dataclasses.dataclass
    class Point:
        x: int
        y: int

    class Local(Node):
        def area(self):
            return len(self.payload)

    points = [Point(i, round_number) for i in range(20)]
    nodes = {i: Local([p]) for i, p in enumerate(points)}
    counter = collections.Counter(n.area() for n in nodes.values())
    text = "%d-%s-{}".format(round_number) % (len(counter), sorted(counter))
    assert re.match(r"\d+-\[", text)
    json.loads(json.dumps({"points": [dataclasses.asdict(p) for p in points]}))

    @functools.lru_cache(maxsize=None)
    def square(v):
        return v * v
    sum(square(p.x) for p in points)
    try:
        nodes[-1]
    except KeyError as error:
        str(error)

    def make_counter():
        count = [0]

        def bump():
            count[0] += 1
            return count[0]
        return bump
    make_counter()()
    w = _describefix.Wrapper()
    w.value = Node()
    if _pybindfix is not None:
        pw = _pybindfix.Wrapper()
        pw.value = Node()
        tw = _pybindfix.TraversedWrapper()
        tw.value = tw
    if np is not None:
        array = np.arange(100).reshape(10, 10)
        array.T.copy()
        np.empty(3, dtype=object)[0] = Node()


class NoFalsePositives(LeakCheckTest):
    def test_a_clean_block_passes_100_times(self):
        for round_number in range(100):
            with self.check():
                clean_block(round_number)


class UnderTestRunners(unittest.TestCase):
    """A leaking and a clean test under unittest and pytest, each in its own
    interpreter; the files are written beside the test file."""

    TESTS = textwrap.dedent('''
        import unittest
        import refscope

        CACHE = []


        class Leaky:
            pass


        @refscope.leak_check()
        def test_clean():
            [Leaky() for _ in range(3)]


        @refscope.leak_check()
        def test_leaky():
            CACHE.append(Leaky())


        class Case(unittest.TestCase):
            def test_clean(self):
                with refscope.leak_check():
                    x = [Leaky()]

            def test_leaky(self):
                with refscope.leak_check():
                    CACHE.append(Leaky())
        ''')

    def run_tests(self, *command):
        directory = tempfile.mkdtemp(prefix="refscope-leak-runner-")
        self.addCleanup(shutil.rmtree, directory, True)
        with open(os.path.join(directory, "test_sample.py"), "w") as f:
            f.write(self.TESTS)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([directory, PACKAGE, FIXTURES])
        env.pop("REFSCOPE_LEAK_DIR", None)
        proc = subprocess.run([sys.executable, *command], cwd=directory, env=env, capture_output=True,
                              text=True, timeout=300)
        return proc, directory

    def test_unittest(self):
        proc, directory = self.run_tests("-m", "unittest", "-v", "test_sample")
        output = proc.stdout + proc.stderr
        self.assertNotEqual(proc.returncode, 0, output)
        self.assertRegex(output, r"test_clean \(test_sample\.Case.*\) \.\.\. ok")
        self.assertRegex(output, r"test_leaky \(test_sample\.Case.*\) \.\.\. FAIL")
        self.assertIn("LeakError: refscope.leak_check(test_leaky): 1 object survived the block", output)
        self.assertIn("test_sample.Leaky: 1 object", output)
        self.assertTrue(os.path.exists(os.path.join(directory, "test_leaky.leak.rscope")))

    def test_pytest(self):
        try:
            import pytest  # noqa: F401
        except ImportError:
            self.skipTest("pytest does not import here")
        proc, directory = self.run_tests("-m", "pytest", "-q", "-p", "no:cacheprovider", "test_sample.py")
        output = proc.stdout + proc.stderr
        self.assertIn("2 failed, 2 passed", output)
        self.assertIn("LeakError", output)
        self.assertIn("['CACHE']", output) if cli() else None
        self.assertTrue(os.path.exists(os.path.join(directory, "test_leaky.leak.rscope")))


if __name__ == "__main__":
    unittest.main()

"""Cython's compiled functions (issue 13, item 3): the references of a
`cython_function_or_method` and a `fused_cython_function` are labelled by
field (`__globals__`, `__defaults__`, `__code__`...), not `<ref #N>`, each
real reference once.

The functions are numpy.random's and pandas' own, compiled by the Cython of
the distribution that built them: 0.29.32 on Debian 12, 3.0.11 on Debian
13, 3.1.6 on Debian testing. Where neither library is installed (the pyenv
interpreters) the tests skip; on an interpreter that has them, a layout the
probe does not accept fails here rather than leaving paths positional."""

import gc
import sys
import unittest

from probe_support import EDGE_KINDS, EDGE_OWNED, _probe, explained, walk

try:
    import numpy.random  # noqa: F401  (Cython functions: bit generators, seed sequences)
except ImportError:
    numpy = None
try:
    import pandas  # noqa: F401
except ImportError:
    pandas = None


def cython_functions(kind):
    return [o for o in gc.get_objects() if type(o).__name__ == kind]


class LayoutChoiceTest(unittest.TestCase):
    """Which layout a type name selects: runs on every interpreter."""

    def test_series_from_the_shared_type_name(self):
        cases = {
            "cython_function_or_method": 29,
            "fused_cython_function": 29,
            "_cython_3_0_11.cython_function_or_method": 30,
            "_cython_3_0_11.fused_cython_function": 30,
            "_cython_3_1_6.cython_function_or_method": 31,
            "_cython_3_1_6amsendbackport.cython_function_or_method": 31,
            "_cython_3_2_9.cython_function_or_method": 32,
        }
        refused = [
            "_cython_3_3_0.cython_function_or_method",      # another layout on 3.11+
            "_cython_3_0_11limited.cython_function_or_method",
            "_cython_3_1_6_mon.cython_function_or_method",
            "_cython_3_1_0a.cython_function_or_method",     # a prefix of a known suffix
            "_cython_3_0_11.generator",
            "_cython_4_0_0.cython_function_or_method",
            "_cython_3_x.cython_function_or_method",
            "mypkg.cython_function_or_method",
            "builtin_function_or_method",
        ]
        for name, series in cases.items():
            with self.subTest(name):
                self.assertEqual(_probe._debug_cython_series(name), series)
        for name in refused:
            with self.subTest(name):
                self.assertEqual(_probe._debug_cython_series(name), 0)


def own_fields(facts, holder):
    """The Field labels of the edges from `holder` into the watched object."""
    return [(label, bool(flags & EDGE_OWNED)) for kind, flags, label, source in facts["in_edges"]
            if kind == EDGE_KINDS.index("Field") and source == id(holder)]


def library_functions(kind):
    """Cython functions of numpy and pandas only (other packages on the
    interpreter may come from a Cython whose layout is not read)."""
    return [f for f in cython_functions(kind)
            if (getattr(f, "__module__", None) or "").split(".")[0] in ("numpy", "pandas")]


@unittest.skipIf(numpy is None and pandas is None, "no Cython-compiled library on this interpreter")
class CythonFunctionTest(unittest.TestCase):
    def test_defaults_globals_and_code_are_fields(self):
        # One function with defaults per function type: numpy and pandas may
        # come from different Cython releases, and each must be read.
        by_type = {}
        for f in library_functions("cython_function_or_method"):
            if f.__defaults__ is not None:
                by_type.setdefault(type(f), f)
        self.assertTrue(by_type, "no Cython function with defaults")
        for function in by_type.values():
            with self.subTest(type(function).__module__, function=function.__qualname__):
                held = (function.__defaults__, function.__globals__, function.__code__)
                # References to the defaults tuple, less getrefcount's argument and `held`.
                defaults_count = sys.getrefcount(held[0]) - 2
                watched = [id(o) for o in held]
                del held
                _report, (defaults, globals_dict, code) = walk(*watched)
                self.assertEqual(own_fields(defaults, function), [("__defaults__", True)])
                self.assertEqual(own_fields(globals_dict, function), [("__globals__", True)])
                self.assertEqual(own_fields(code, function), [("__code__", True)])
                # Never more than its references; from Cython 3.0 the tuple
                # may also be one of the module's constants, held in C statics.
                self.assertLessEqual(explained(defaults), defaults_count)

    def test_fused_function_is_a_function_with_signatures(self):
        fused = library_functions("fused_cython_function")
        if not fused:
            self.skipTest("no fused Cython function loaded")
        for function in {type(f): f for f in fused}.values():
            with self.subTest(type(function).__module__):
                watched = (id(function.__globals__), id(function.__qualname__))
                _report, (globals_dict, qualname) = walk(*watched)
                self.assertEqual(own_fields(globals_dict, function), [("__globals__", True)])
                self.assertEqual(own_fields(qualname, function), [("__qualname__", True)])

    def test_no_object_has_more_owned_references_than_its_refcount(self):
        report, _ = walk(collect=True)
        self.assertEqual(report["negative"], [])


if __name__ == "__main__":
    unittest.main()

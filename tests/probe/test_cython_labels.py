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

from probe_support import EDGE_OWNED, explained, in_edges, walk

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


def field_labels(facts):
    return [(label, bool(flags & EDGE_OWNED)) for kind, flags, label in in_edges(facts) if kind == "Field"]


class Payload:
    pass


class NameTest(unittest.TestCase):
    def test_a_python_class_that_takes_cythons_name_keeps_its_slots(self):
        # 21 slots: the size of Cython 0.29's function object on 64-bit; the
        # probe must still tell it from one (its dict offset differs).
        names = ["s%d" % i for i in range(21)]
        impostor_type = type("cython_function_or_method", (), {"__slots__": names})
        impostor = impostor_type()
        for name in names:
            setattr(impostor, name, Payload())
        watched = [id(getattr(impostor, name)) for name in names]
        _report, facts = walk(*watched)
        for name, f in zip(names, facts):
            self.assertEqual([(kind, label) for kind, _flags, label in in_edges(f)], [("Slot", name)])


@unittest.skipIf(numpy is None and pandas is None, "no Cython-compiled library on this interpreter")
class CythonFunctionTest(unittest.TestCase):
    def test_defaults_globals_and_code_are_fields(self):
        functions = [f for f in cython_functions("cython_function_or_method") if f.__defaults__ is not None]
        self.assertTrue(functions, "no Cython function with defaults")
        function = functions[0]
        held = (function.__defaults__, function.__globals__, function.__code__)
        # References to the defaults tuple, less getrefcount's argument and `held`.
        defaults_count = sys.getrefcount(held[0]) - 2
        watched = [id(o) for o in held]
        del held, functions
        _report, (defaults, globals_dict, code) = walk(*watched)
        self.assertIn(("__defaults__", True), field_labels(defaults))
        # Never more than its references; from Cython 3.0 the tuple may also
        # be one of the module's constants, a reference held in C statics.
        self.assertLessEqual(explained(defaults), defaults_count)
        self.assertGreaterEqual(explained(defaults), 1)
        self.assertIn(("__globals__", True), field_labels(globals_dict))
        self.assertIn(("__code__", True), field_labels(code))
        self.assertIsNotNone(function)

    def test_fused_function_is_a_function_with_signatures(self):
        fused = cython_functions("fused_cython_function")
        if not fused:
            self.skipTest("no fused Cython function loaded")
        function = fused[0]
        watched = (id(function.__globals__), id(function.__qualname__))
        del fused
        _report, (globals_dict, _qualname) = walk(*watched)
        self.assertIn(("__globals__", True), field_labels(globals_dict))
        self.assertIsNotNone(function)

    def test_no_object_has_more_owned_references_than_its_refcount(self):
        report, _ = walk(collect=True)
        self.assertEqual(report["negative"], [])

if __name__ == "__main__":
    unittest.main()

"""The probe's NumPy and Numba recognisers (probe/src/recognise_numpy.cpp,
recognise_numpy_holders.cpp).
Runs where NumPy imports (Debian's python3 with python3-numpy); the Numba
checks where Numba imports too (python3-numba)."""
import ctypes
import gc
import shutil
import tempfile
import unittest

from cpp_ext_support import (EDGE_OWNED, NODE_NATIVE, cli, cli_json, explained, in_edges, run_program,
                             walk)

try:
    import numpy as np
except ImportError:
    np = None
try:
    import numba
except ImportError:
    numba = None


@unittest.skipIf(np is None, "NumPy does not import here")
class Arrays(unittest.TestCase):
    def test_owned_data_is_a_native_node(self):
        global ARRAY
        ARRAY = np.zeros((10, 100))
        try:
            data_address = ARRAY.__array_interface__["data"][0]
            _report, (array, data) = walk(id(ARRAY), data_address)
            self.assertEqual(data["type"], "ndarray data")
            self.assertTrue(data["flags"] & NODE_NATIVE)
            self.assertEqual(data["size"], ARRAY.nbytes)
            self.assertEqual(data["preview"], "float64 (10, 100)")
            self.assertIn(("Native", EDGE_OWNED, "data"), in_edges(data))
            self.assertEqual(array["refcount"], explained(array), array)
        finally:
            del ARRAY

    def test_a_view_holds_its_base(self):
        global VIEW
        base = np.arange(10)
        VIEW = base[2:5]
        base_id = id(base)
        del base
        try:
            _report, (facts,) = walk(base_id)
            self.assertIn(("Field", EDGE_OWNED, "base"), in_edges(facts))
            self.assertEqual(facts["refcount"], explained(facts), facts)
        finally:
            del VIEW

    def test_object_array_elements_are_held_by_its_data(self):
        global OBJECTS, ELEMENT
        ELEMENT = object()
        OBJECTS = np.empty(3, dtype=object)
        OBJECTS[1] = ELEMENT
        try:
            _report, (facts,) = walk(id(ELEMENT))
            self.assertIn(("Native", EDGE_OWNED, "[1]"), in_edges(facts))
            self.assertEqual(facts["refcount"], explained(facts), facts)
        finally:
            del OBJECTS, ELEMENT

    @unittest.skipIf(numba is None, "Numba does not import here")
    def test_numba_meminfo_is_a_native_node_with_its_bytes(self):
        @numba.njit
        def make(n):
            return np.ones(n)
        global JITTED
        JITTED = make(100)
        try:
            meminfo_object = JITTED.base
            # _MemInfo is PyObject_HEAD then the NRT_MemInfo pointer.
            meminfo = ctypes.c_void_p.from_address(id(meminfo_object) + 2 * ctypes.sizeof(ctypes.c_void_p)).value
            _report, (node, holder) = walk(meminfo, id(meminfo_object))
            self.assertEqual(node["type"], "NRT_MemInfo")
            self.assertTrue(node["flags"] & NODE_NATIVE)
            self.assertEqual(node["size"], 48 + 800)
            self.assertEqual(node["refcount"], meminfo_object.refcount)
            self.assertEqual(node["preview"], "refct %d, 800 bytes" % meminfo_object.refcount)
            self.assertIn(("Native", EDGE_OWNED, "meminfo"), in_edges(node))
            self.assertIn(("Field", EDGE_OWNED, "base"), in_edges(holder))
            del meminfo_object
        finally:
            del JITTED


def ufunc_loop_lists():
    """The `_loops` lists of NumPy's ufuncs: (DTypes, ArrayMethod or
    promoter) pairs, found among the collector's objects by their shape."""
    def is_pair(entry):
        return (type(entry) is tuple and len(entry) == 2 and type(entry[0]) is tuple
                and all(t is None or isinstance(t, type) for t in entry[0]))
    return [o for o in gc.get_objects() if type(o) is list and o and all(is_pair(e) for e in o)]


def array_function_dispatcher():
    """numpy._ArrayFunctionDispatcher (NumPy 1.25+), or None."""
    core = getattr(np, "_core", None) or np.core
    return getattr(core._multiarray_umath, "_ArrayFunctionDispatcher", None)


@unittest.skipIf(np is None, "NumPy does not import here")
class CLevelHolders(unittest.TestCase):
    """What NumPy holds from C without reporting it to the collector: each
    reference must be explained, none be unexplained surplus."""

    def test_ufunc_loops_are_held_by_their_ufunc(self):
        loops = ufunc_loop_lists()
        # every ufunc has one (NumPy 1.22+): dozens at import
        self.assertGreater(len(loops), 20)
        _report, facts = walk(*[id(lst) for lst in loops[:40]])
        for lst in facts:
            self.assertIn(("Field", EDGE_OWNED, "_loops"), in_edges(lst))
            self.assertEqual(lst["refcount"], explained(lst), lst)

    @unittest.skipIf(np is None or array_function_dispatcher() is None,
                     "NumPy dispatches __array_function__ in Python here (before 1.25)")
    def test_a_dispatcher_holds_its_implementation(self):
        self.assertIsInstance(np.einsum_path, array_function_dispatcher())
        implementation = np.einsum_path._implementation
        _report, (facts,) = walk(id(implementation))
        self.assertIn(("Field", EDGE_OWNED, "_implementation"), in_edges(facts))
        self.assertEqual(facts["refcount"], explained(facts), facts)


@unittest.skipIf(np is None or not cli(), "NumPy does not import here, or REFSCOPE_CLI not set")
class ArraysCli(unittest.TestCase):
    """programs/numpy_arrays.py, checked through refscope-cli."""

    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="refscope-numpy-")
        cls.info = run_program("numpy_arrays.py", cls.workdir)
        cls.retained = {row["node"]["address"]: row
                        for row in cli_json("retained", cls.info["snapshot"], "--top", "0")["top"]}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.workdir, True)

    def program(self):
        return self.info

    def test_retained_size_includes_the_owned_data(self):
        info = self.program()
        rows = self.retained
        self.assertIn(info["view"], rows)
        self.assertGreaterEqual(rows[info["view"]]["retained_bytes"], 8_000_000)
        self.assertIn(info["base"], rows)
        self.assertEqual(rows[info["base"]]["dominator"]["address"], info["view"])

    def test_shared_data_is_counted_once_at_its_real_size(self):
        info = self.program()
        summary = cli_json("summary", info["snapshot"], "--by", "type", "--top", "100000")
        data = [g for g in summary["groups"] if g["name"] == "ndarray data"]
        self.assertEqual(len(data), 1, [g["name"] for g in summary["groups"]][:40])
        # 80 MB + 8 MB of owned data (and a few small arrays), not 80 MB per view
        self.assertGreaterEqual(data[0]["bytes"], 88_000_000, (info["numpy"], data))
        self.assertLess(data[0]["bytes"], 100_000_000, (info["numpy"], data))
        self.assertGreaterEqual(summary["bytes"], 88_000_000)
        # two views share the owner: neither dominates it, and it retains its 80 MB
        rows = self.retained
        self.assertIn(info["big"], rows)
        self.assertGreaterEqual(rows[info["big"]]["retained_bytes"], 80_000_000)
        self.assertNotIn(rows[info["big"]]["dominator"]["address"], (info["left"], info["right"]))

    def test_the_path_to_the_base_runs_through_the_view(self):
        info = self.program()
        path = cli_json("path", info["snapshot"], "--to", info["base"])
        self.assertTrue(path["found"], path.get("explanation"))
        self.assertEqual(path["hops"][-1]["edge"], ".base")
        self.assertEqual(path["hops"][-2]["node"]["address"], info["view"])

    def test_an_object_array_in_a_cycle_is_uncollectable(self):
        info = self.program()
        cycles = cli_json("cycles", info["snapshot"], "--top", "0")["cycles"]
        found = [c for c in cycles if c["uncollectable"] and
                 "numpy.ndarray holds data \u2192 [0] without tp_traverse" in c["reason"]]
        self.assertEqual(len(found), 1, [c["reason"] for c in cycles if "ndarray" in c["reason"]])
        self.assertEqual(found[0]["objects"], 3)  # list, array, its data

    @unittest.skipIf(numba is None, "Numba does not import here")
    def test_numba_memory_is_retained_by_its_array(self):
        info = self.program()
        rows = self.retained
        self.assertIn(info["jitted"], rows)
        self.assertGreaterEqual(rows[info["jitted"]]["retained_bytes"], 8000 + 48)
        path = cli_json("path", info["snapshot"], "--type", "NRT_MemInfo")
        self.assertTrue(path["found"])
        self.assertEqual([h["edge"] for h in path["hops"][-2:]], [".base", "<native: meminfo>"])


if __name__ == "__main__":
    unittest.main()

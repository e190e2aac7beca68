"""The describe API (refscope/describe.h) end to end through the probe:
described edges, native nodes, roots and included objects; the refcount
arithmetic they complete; several libraries; load order; no probe at all."""
import shutil
import sys
import tempfile
import unittest

import _describe_a
import _describe_b
import _describefix
from cpp_ext_support import (EDGE_INFERRED, EDGE_KINDS, EDGE_OWNED, NODE_NATIVE, ROOT_EXTENSION, cli, cli_json, explained,
                             in_edges, run_program, run_python, walk)


class Payload:
    pass


# Module globals: their references are all owned edges from this module's
# dict, so the arithmetic below has no stack temporaries to account for.
WRAPPED = Payload()
WRAPPER = _describefix.Wrapper()
WRAPPER.value = WRAPPED


def _callback():
    return None


OWNER = _describefix.Owner(_callback)
CACHED = Payload()
_describefix.set_cache(CACHED)
BOXED_A, BOXED_B, HELD_A, HELD_B = Payload(), Payload(), Payload(), Payload()
BOX_A = _describe_a.Box()
BOX_A.value = BOXED_A
BOX_B = _describe_b.Box()
BOX_B.value = BOXED_B
_describe_a.hold(HELD_A)
_describe_b.hold(HELD_B)
# Opaque is not described: its C fields hold OPAQUE_HELD (a reference) and
# OPAQUE_BORROWED (a pointer the module global keeps alive).
OPAQUE_HELD, OPAQUE_BORROWED = Payload(), Payload()
OPAQUE = _describefix.Opaque(OPAQUE_HELD, OPAQUE_BORROWED)
OWN_ALLOC_HELD = Payload()
OWN_ALLOC = _describefix.OwnAlloc(OWN_ALLOC_HELD, OPAQUE_BORROWED)
# Header, then `long number`, `held`, `borrowed` (a 64-bit release build).
HELD_WORD, BORROWED_WORD = "word at +%d" % (sys.getsizeof(object()) + 8), "word at +%d" % (sys.getsizeof(object()) + 16)


class DescribedEdges(unittest.TestCase):
    def test_a_described_member_is_an_owned_edge_the_collector_cannot_see(self):
        report, (facts,) = walk(id(WRAPPED))
        self.assertIn(("Native", EDGE_OWNED, "Wrapper::value"), in_edges(facts))
        # refcount = module global + Wrapper::value: nothing unexplained.
        self.assertEqual(facts["refcount"], explained(facts), facts)
        self.assertGreaterEqual(report["describe"]["calls"], 1)
        self.assertEqual(report["describe"]["failed_calls"], 0)

    def test_subclasses_inherit_their_bases_describers(self):
        class Sub(_describefix.Wrapper):
            pass
        holder = Sub()
        held = Payload()
        holder.value = held
        global SUB_HELD, SUB
        SUB_HELD, SUB = held, holder
        del held, holder
        try:
            _report, (facts,) = walk(id(SUB_HELD))
            self.assertIn(("Native", EDGE_OWNED, "Wrapper::value"), in_edges(facts))
            self.assertEqual(facts["refcount"], explained(facts), facts)
        finally:
            del SUB_HELD, SUB

    def test_native_node_chain(self):
        impl = _describefix.impl_address(OWNER)
        _report, (owner, native, callback) = walk(id(OWNER), impl, id(_callback))
        self.assertEqual(native["type"], "Impl")
        self.assertTrue(native["flags"] & NODE_NATIVE)
        self.assertEqual(native["size"], 16)
        self.assertIn(("Native", EDGE_OWNED, "OwnerObject::impl"), in_edges(native))
        self.assertIn(("Native", EDGE_OWNED, "Impl::callback"), in_edges(callback))
        self.assertEqual(callback["refcount"], explained(callback), callback)
        self.assertEqual(owner["refcount"], explained(owner), owner)

    def test_a_native_node_two_objects_report_is_counted_once(self):
        global SHARED_A, SHARED_B
        SHARED_A, SHARED_B = _describefix.SharedOwner(), _describefix.SharedOwner()
        _describefix.set_shared_callback(_callback)
        try:
            _report, (facts,) = walk(id(_callback))
            edges = [e for e in in_edges(facts) if e[2] == "SharedImpl::callback"]
            self.assertEqual(edges, [("Native", EDGE_OWNED, "SharedImpl::callback")])
            self.assertEqual(facts["refcount"], explained(facts), facts)
        finally:
            _describefix.set_shared_callback(None)
            del SHARED_A, SHARED_B

    def test_heap_callback_roots_explain_c_statics(self):
        report, (facts,) = walk(id(CACHED))
        self.assertIn((ROOT_EXTENSION, "static _describefix.g_cache", 1, -1), facts["roots"])
        self.assertEqual(facts["refcount"], explained(facts), facts)
        self.assertNotIn(id(CACHED), [u[3] for u in report["unexplained"]])


class InferredReferences(unittest.TestCase):
    """An undescribed type without tp_traverse: what its memory holds."""

    def test_a_reference_in_a_c_field_is_inferred_and_counted(self):
        _report, (facts,) = walk(id(OPAQUE_HELD))
        self.assertIn(("Native", EDGE_OWNED | EDGE_INFERRED, HELD_WORD), in_edges(facts))
        # refcount = module global + Opaque's field: nothing unexplained.
        self.assertEqual(facts["refcount"], explained(facts), facts)

    def test_a_borrowed_pointer_is_shown_but_not_counted(self):
        _report, (facts,) = walk(id(OPAQUE_BORROWED))
        self.assertIn(("Native", EDGE_INFERRED, BORROWED_WORD), in_edges(facts))
        self.assertEqual(facts["refcount"], explained(facts), facts)

    def test_each_field_is_one_edge_from_the_holder(self):
        _report, (held, borrowed) = walk(id(OPAQUE_HELD), id(OPAQUE_BORROWED))
        for facts, word in ((held, HELD_WORD), (borrowed, BORROWED_WORD)):
            from_opaque = [(EDGE_KINDS[k], label) for k, _flags, label, source in facts["in_edges"]
                           if source == id(OPAQUE)]
            self.assertEqual(from_opaque, [("Native", word)])


    def test_a_type_with_its_own_tp_alloc_is_not_scanned(self):
        # It might allocate less than tp_basicsize (naive datetime.time):
        # its field's reference stays unexplained.
        _report, (facts,) = walk(id(OWN_ALLOC_HELD))
        self.assertEqual([e for e in in_edges(facts) if e[1] & EDGE_INFERRED], [])
        self.assertEqual(facts["refcount"] - explained(facts), 1, facts)


class PreservedObjects(unittest.TestCase):
    """PyObject preservation: a C++ object owns its Python object."""

    def test_preserved_object_is_held_by_its_cpp_object(self):
        p = _describefix.Preserved()
        impl = _describefix.impl_address(p)
        _describefix.preserve(p)
        address = id(p)
        del p
        try:
            _report, (facts, native) = walk(address, impl)
            self.assertEqual(facts["refcount"], 1)
            self.assertIn(("Native", EDGE_OWNED, "TensorImpl::pyobj (owning)"), in_edges(facts))
            self.assertEqual(explained(facts), 1, facts)
            self.assertEqual(native["type"], "TensorImpl")
            self.assertEqual(native["preview"], "C++ refcount 1")
            self.assertIn((ROOT_EXTENSION, "TensorImpl held by C++ (registry)", 0, -1), native["roots"])
        finally:
            _describefix.release_all()

    def test_without_the_callback_it_is_unexplained_surplus(self):
        p = _describefix.Preserved()
        _describefix.preserve(p)
        address = id(p)
        del p
        _describefix.describe_preservation(False)
        try:
            _report, (facts,) = walk(address)
            # refcount 1, nothing explains it: one unexplained reference.
            self.assertEqual(facts["refcount"], 1)
            self.assertEqual(explained(facts), 0, facts)
        finally:
            _describefix.describe_preservation(True)
            _describefix.release_all()


class SeveralLibraries(unittest.TestCase):
    def test_two_libraries_describe_in_the_same_walk(self):
        report, (a, b, held_a, held_b) = walk(id(BOXED_A), id(BOXED_B), id(HELD_A), id(HELD_B))
        self.assertIn(("Native", EDGE_OWNED, "_describe_a.Box::value"), in_edges(a))
        self.assertIn(("Native", EDGE_OWNED, "_describe_b.Box::value"), in_edges(b))
        self.assertIn(("Native", EDGE_OWNED, "items[0]"), in_edges(held_a))
        self.assertIn(("Native", EDGE_OWNED, "items[0]"), in_edges(held_b))
        for facts in (a, b, held_a, held_b):
            self.assertEqual(facts["refcount"], explained(facts), facts)
        self.assertGreaterEqual(report["describe"]["registrations"], 2 + 3 + 1)

    def test_registry_nodes_are_roots_with_their_library(self):
        from refscope import _probe
        # The registries are static structs: watch them through the held
        # objects' in-edges (their source addresses).
        report = _probe._debug_walk(False, (id(HELD_A),))
        source = report["watch"][id(HELD_A)]["in_edges"]
        registry = [address for kind, _flags, label, address in source if label == "items[0]"]
        self.assertEqual(len(registry), 1)
        report = _probe._debug_walk(False, (registry[0],))
        facts = report["watch"][registry[0]]
        self.assertEqual(facts["type"], "_describe_a::Registry")
        self.assertTrue(facts["flags"] & NODE_NATIVE)
        self.assertEqual(facts["roots"], [(ROOT_EXTENSION, "static _describe_a::g_registry", 0, -1)])


class LoadOrder(unittest.TestCase):
    """Registration does not depend on whether the probe was imported first."""

    CHILD = """
import json, sys
order = sys.argv[1:] or %r
mods = {}
for name in order:
    mods[name] = __import__(name)
a, b = mods["_describe_a"], mods["_describe_b"]
from refscope import _probe
class P: pass
x, y = P(), P()
box_a, box_b = a.Box(), b.Box()
box_a.value, box_b.value = x, y
r = _probe._debug_walk(False, (id(x), id(y)))
labels = [[e[2] for e in r["watch"][i]["in_edges"]] for i in (id(x), id(y))]
print(json.dumps({"labels": labels, "registered": [a.registered(), b.registered()]}))
"""

    def check(self, order):
        result = run_python(self.CHILD % (order,))
        self.assertEqual(result["registered"], [True, True])
        self.assertIn("_describe_a.Box::value", result["labels"][0])
        self.assertIn("_describe_b.Box::value", result["labels"][1])

    def test_library_loaded_before_the_probe(self):
        self.check(["_describe_a", "_describe_b", "refscope"])

    def test_library_loaded_after_the_probe(self):
        self.check(["refscope", "_describe_a", "_describe_b"])

    def test_one_before_one_after(self):
        self.check(["_describe_a", "refscope", "_describe_b"])

    def test_probe_absent(self):
        result = run_python("""
import gc, json, sys
import _describe_a, _describefix
try:
    import refscope
    present = True
except ImportError:
    present = False
class P: pass
box = _describe_a.Box()
box.value = P()
w = _describefix.Wrapper()
w.value = w
del w
gc.collect()
print(json.dumps({"registered": _describe_a.registered(), "probe": present,
                  "value": type(box.value).__name__}))
""", with_probe=False)
        self.assertEqual(result, {"registered": True, "probe": False, "value": "P"})


class ApiCapsule(unittest.TestCase):
    def test_api_table_is_exported_for_pycapsule_import(self):
        import ctypes
        from refscope import _probe
        self.assertEqual(_probe.DESCRIBE_ABI_MAJOR, 1)
        name = b"refscope._probe._describe_api"
        import_capsule = ctypes.pythonapi.PyCapsule_Import
        import_capsule.restype = ctypes.c_void_p
        import_capsule.argtypes = [ctypes.c_char_p, ctypes.c_int]
        pointer = import_capsule(name, 0)
        self.assertTrue(pointer)
        major, minor, size = (ctypes.c_uint32 * 3).from_address(pointer)
        self.assertEqual((major, minor), (_probe.DESCRIBE_ABI_MAJOR, _probe.DESCRIBE_ABI_MINOR))
        self.assertEqual(size, 16 + 8 * 8)

    def test_get_include_ships_the_headers(self):
        import os
        import refscope
        include = refscope.get_include()
        self.assertTrue(os.path.exists(os.path.join(include, "refscope", "describe.h")))
        self.assertTrue(os.path.exists(os.path.join(include, "refscope", "describe_pybind11.h")))



class NoReferenceLeaks(unittest.TestCase):
    """The probe takes no reference during a walk, describers included."""

    def test_repeated_walks_leave_refcounts_and_object_counts_alone(self):
        import gc
        from refscope import _probe
        watched = [WRAPPER, WRAPPED, OWNER, _callback, CACHED, BOX_A, BOXED_A, HELD_B,
                   _describefix.Wrapper, _describe_a.Box]
        extra = []
        try:
            import _pybindfix
            w = _pybindfix.Wrapper()
            w.value = Payload()
            n = _pybindfix.Nurse()
            n.adopt(w.value)
            extra += [w, w.value, n]
        except ImportError:
            pass
        try:
            import numpy
            a = numpy.zeros(10)
            extra += [a, a[2:], numpy.empty(2, dtype=object)]
        except ImportError:
            pass
        watched += extra
        _probe._debug_walk(False, ())  # first walk: lazy caches (type cache, imports)
        gc.collect()
        before = [sys.getrefcount(o) for o in watched]
        objects = len(gc.get_objects())
        for _ in range(30):
            _probe._debug_walk(False, ())
        gc.collect()
        self.assertEqual([sys.getrefcount(o) for o in watched], before)
        self.assertLessEqual(len(gc.get_objects()), objects + 5)


class CliProgram(unittest.TestCase):
    """Runs a program from programs/ that snapshots itself; checks go
    through refscope-cli --json (skipped without REFSCOPE_CLI)."""

    def setUp(self):
        if not cli():
            self.skipTest("REFSCOPE_CLI not set")
        self.workdir = tempfile.mkdtemp(prefix="refscope-cpp-ext-")
        self.addCleanup(shutil.rmtree, self.workdir, True)

    def run_program(self, name, *args):
        return run_program(name, self.workdir, *args)


class NativePathsCli(CliProgram):
    """refscope-cli shows native nodes in the chain and roots in C++."""

    def test_path_runs_through_the_cpp_objects(self):
        info = self.run_program("native_paths.py")
        path = cli_json("path", info["snapshot"], "--type", "__main__.Callback")
        self.assertTrue(path["found"], path.get("explanation"))
        hops = path["hops"]
        self.assertEqual([h["edge"] for h in hops[-3:]],
                         ["<native: C++ object>", "<native: OwnerObject::impl>", "<native: Impl::callback>"])
        self.assertEqual([h["node"]["type"] for h in hops[-4:]],
                         ["_describefix.Owner", "OwnerObject", "Impl", "__main__.Callback"])
        self.assertEqual([h["node"]["native"] for h in hops[-4:]], [False, True, True, False])
        self.assertEqual(hops[-2]["node"]["address"], info["impl"])

    def test_preserved_object_is_held_by_its_cpp_object(self):
        info = self.run_program("native_paths.py")
        path = cli_json("path", info["snapshot"], "--to", info["preserved"])
        self.assertTrue(path["found"], path.get("explanation"))
        self.assertEqual(path["root"]["kind"], "extension")
        self.assertEqual(path["root"]["label"], "TensorImpl held by C++ (registry)")
        self.assertEqual([h["edge"] for h in path["hops"]], ["<native: TensorImpl::pyobj (owning)>"])
        roots = cli_json("roots", info["snapshot"], "--top", "0")
        self.assertNotIn(info["preserved"], [o["address"] for o in roots["unexplained"]])

    def test_without_the_description_it_is_unexplained_surplus(self):
        info = self.run_program("native_paths.py", "undescribed")
        path = cli_json("path", info["snapshot"], "--to", info["preserved"])
        self.assertFalse(path["found"])
        self.assertEqual(path["target"]["surplus"], 1)
        roots = cli_json("roots", info["snapshot"], "--top", "0")
        leaked = [o for o in roots["unexplained"] if o["address"] == info["preserved"]]
        self.assertEqual([o["surplus"] for o in leaked], [1])


class RefcountBugCli(CliProgram):
    """A C function that increfs twice and decrefs once: unexplained surplus
    of exactly 1 on exactly that object (the torch.compile cell leak)."""

    def test_surplus_one_on_exactly_the_leaked_cell(self):
        info = self.run_program("refcount_bug.py")
        roots = cli_json("roots", info["snapshot"], "--top", "0")
        cells = [o for o in roots["unexplained"] if o["type"] == "cell"]
        self.assertEqual([(o["address"], o["surplus"]) for o in cells], [(info["leaked"], 1)])
        path = cli_json("path", info["snapshot"], "--to", info["leaked"])
        self.assertFalse(path["found"])
        self.assertIn("GC cannot see", path["explanation"])


if __name__ == "__main__":
    unittest.main()

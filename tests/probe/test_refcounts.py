"""(d) Refcount arithmetic: every reference to an object is explained by an
owned in-edge or a root; the probe's own references are subtracted."""

import sys
import threading
import unittest

from probe_support import (ROOT_INTERPRETER, ROOT_THREAD_STACK, TempSnapshot, cli, cli_json, explained, in_edges,
                           refscope, walk)


class Plain:
    pass


class Slotted:
    __slots__ = ("slot_value",)


GLOBAL_HELD = Plain()
SHARED = Plain()
SHARED_HOLDERS = [SHARED, SHARED]


def make_closure():
    captured = Plain()

    def inner():
        return captured
    return inner


CLOSURE = make_closure()


class PlainList(list):
    pass


# More items than the walk's pending-edge buffer holds (16,384 + 4,096): it
# resolves such an object's edges while processing it (stream_pending). An
# exact list's and tuple's items are read from the object, a subclass's are
# matched against what tp_traverse reports.
LONG = [Plain() for _ in range(50000)]
LONG[45000] = LONG[5]
LONG_SUBCLASS = PlainList(LONG[:30000])
LONG_TUPLE = tuple(LONG[:25000])


class RefcountTest(unittest.TestCase):
    def test_module_global_has_no_surplus(self):
        report, (facts,) = walk(id(GLOBAL_HELD), collect=True)
        self.assertEqual(facts["refcount"], facts["owned_in"], facts)
        self.assertEqual(facts["roots"], [])
        self.assertIn(("DictValue", 3, "GLOBAL_HELD"), in_edges(facts))
        self.assertTrue(report["edges_grouped"])
        self.assertTrue(report["ids_valid"])

    def test_list_and_global_references_are_counted(self):
        _report, (facts,) = walk(id(SHARED))
        self.assertEqual(facts["refcount"], 3)  # module global + two list items
        self.assertEqual(facts["owned_in"], 3)
        self.assertEqual(sorted(e[2] for e in in_edges(facts, "Index")), ["0", "1"])

    def test_items_of_containers_longer_than_the_edge_buffer(self):
        indexes = [0, 5, 20479, 20480, 29999, 49999]
        report, facts = walk(*[id(LONG[i]) for i in indexes])
        self.assertTrue(report["edges_grouped"])
        self.assertTrue(report["ids_valid"])
        # Each item: its index in every container that holds it, once each.
        expected = {
            0: ["0", "0", "0"],
            5: ["45000", "5", "5", "5"],
            20479: ["20479", "20479", "20479"],
            20480: ["20480", "20480", "20480"],
            29999: ["29999", "29999"],
            49999: ["49999"],
        }
        for index, item in zip(indexes, facts):
            self.assertEqual(sorted(e[2] for e in in_edges(item, "Index")), expected[index], index)
            self.assertEqual(set(e[1] for e in in_edges(item, "Index")), {3}, index)  # owned, visible
            self.assertEqual(item["refcount"], item["owned_in"], index)

    def test_instance_attributes_slots_and_closures(self):
        holder = Plain()
        holder.attribute = Plain()
        slotted = Slotted()
        slotted.slot_value = Plain()
        with_dict = Plain()
        with_dict.in_dict = Plain()
        with_dict.__dict__  # materializes the instance dict on 3.11+
        cell_value = CLOSURE.__closure__[0].cell_contents
        _report, facts = walk(id(holder.attribute), id(slotted.slot_value), id(with_dict.in_dict), id(cell_value))
        attribute, slot, in_dict, cell = facts
        self.assertIn("attribute", [e[2] for e in in_edges(attribute, "Attribute")] +
                      [e[2] for e in in_edges(attribute, "DictValue")])
        self.assertEqual(in_edges(slot, "Slot"), [("Slot", 3, "slot_value")])
        self.assertIn("in_dict", [e[2] for e in in_edges(in_dict, "Attribute")] +
                      [e[2] for e in in_edges(in_dict, "DictValue")])
        self.assertEqual([e[2] for e in in_edges(cell, "Field")], ["cell_contents"])
        for f in facts:
            total = explained(f)
            self.assertIsNotNone(total)
            self.assertEqual(f["refcount"], total, f)

    def test_local_of_a_running_thread_is_explained(self):
        ready = threading.Event()
        release = threading.Event()
        ids = []

        def worker():
            local_object = Plain()
            ids.append(id(local_object))
            ready.set()
            release.wait(30)
            return local_object

        thread = threading.Thread(target=worker, name="holder-thread")
        thread.start()
        try:
            self.assertTrue(ready.wait(30))
            report = refscope._probe._debug_walk(False, (ids[0],))
            facts = report["watch"][ids[0]]
        finally:
            release.set()
            thread.join()
        self.assertEqual(facts["refcount"], explained(facts), facts)
        locals_ = [e for e in in_edges(facts, "Local") if e[2] == "local_object"]
        stack_roots = [r for r in facts["roots"]
                       if r[0] == ROOT_THREAD_STACK and "local local_object" in r[1]]
        if sys.version_info >= (3, 11):
            self.assertEqual(len(stack_roots), 1, facts)
            thread_index = stack_roots[0][3]
            self.assertEqual(report["threads"][thread_index][1], "holder-thread")
            self.assertIn("worker, local local_object", stack_roots[0][1])
        else:
            self.assertEqual(len(locals_), 1, facts)

    def test_own_call_arguments_are_subtracted(self):
        label = "label-%d" % id(self)
        with TempSnapshot() as path:
            refscope.snapshot(path, collect=False, label=label)
        target = Plain()
        _report, (facts,) = walk(id(target))
        # `target` is held by this frame only: a Local edge (3.9/3.10) or a
        # thread-stack root (3.11+), and nothing unexplained.
        self.assertEqual(facts["refcount"], explained(facts), facts)

    @unittest.skipIf(sys.version_info < (3, 12), "TypeVar is a Python class before 3.12")
    def test_types_the_interpreter_holds_are_roots(self):
        # typing.TypeVar and its kin are created by the interpreter, which
        # holds one reference to each (interp->cached_objects).
        import typing
        ids = [id(typing.TypeVar), id(typing.ParamSpec), id(typing.Generic)]
        _report, facts = walk(*ids)
        for type_facts, field in zip(facts, ["typevar_type", "paramspec_type", "generic_type"]):
            labels = [label for kind, label, count, _thread in type_facts["roots"] if kind == ROOT_INTERPRETER]
            self.assertIn("interpreter cached_objects." + field, labels, type_facts)
            self.assertEqual(type_facts["refcount"], explained(type_facts), type_facts)

    def test_a_single_phase_module_dict_copy_is_an_interpreter_root(self):
        # The probe's own extension is single-phase (m_size -1): the import
        # system keeps a shallow copy of its dict that no object holds.
        import gc
        probe_dict = vars(refscope._probe)
        found = [id(d) for d in gc.get_objects()
                 if type(d) is dict and d is not probe_dict and d.get("__name__") == "refscope._probe"
                 and d.get("snapshot", None) is probe_dict["snapshot"]]
        self.assertEqual(len(found), 1)
        _report, (facts,) = walk(found[0])
        labels = [(label, count) for kind, label, count, _thread in facts["roots"] if kind == ROOT_INTERPRETER]
        self.assertEqual(labels, [("extension module dict copy (m_copy) of refscope._probe", 0)], facts)
        self.assertEqual(facts["owned_in"], 0, facts)
        self.assertGreaterEqual(facts["refcount"], 1)

    def test_no_object_is_over_explained(self):
        report, _ = walk(collect=True)
        own = [n for n in report["negative"] if n[0].startswith(("__main__", "test_", "probe_"))]
        self.assertEqual(own, [])

    @unittest.skipUnless(cli(), "REFSCOPE_CLI not set (refscope-cli not built)")
    def test_cli_reads_the_snapshot(self):
        with TempSnapshot() as path:
            stats = refscope.snapshot(path, collect=True, label="cli check")
            info = cli_json("info", path)
        self.assertEqual(info["counts"]["objects"], stats.nodes)
        self.assertEqual(info["counts"]["references"], stats.edges)
        self.assertEqual(info["header"]["label"], "cli check")
        self.assertTrue(info["header"]["collected_first"])
        self.assertEqual(info["header"]["argv"], sys.argv)


if __name__ == "__main__":
    unittest.main()

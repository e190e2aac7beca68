"""nanobind (fixtures/nanobindfix.cpp): the probe's nanobind recogniser (C++
type names and value pointers, keep_alive patients, the instance map), the
nanobind reference-leak page's cases through the CLI, and an unknown
internals version claiming nothing. Runs once per nanobind release the probe
recognises, with that release's fixture first on the path
(tests/cpp_ext/CMakeLists.txt). CLI checks run when REFSCOPE_CLI is set."""
import json
import os
import tempfile
import unittest

from cpp_ext_support import (EDGE_OWNED, NODE_NATIVE, cli, cli_json, explained, in_edges, run_program,
                             run_python, walk)

import _nanobindfix


class Payload:
    pass


class Recogniser(unittest.TestCase):
    """UndescribedWrapper and Nurse have no describe callback: everything
    reported about them comes from the probe's recogniser."""

    def test_cpp_type_name_and_value_pointer(self):
        w = _nanobindfix.UndescribedWrapper()
        address = _nanobindfix.cpp_address(w)
        _report, (cpp, instance) = walk(address, id(w))
        self.assertIsNotNone(cpp, "no native node at the instance's C++ pointer")
        self.assertEqual(cpp["type"], "UndescribedWrapper")
        self.assertTrue(cpp["flags"] & NODE_NATIVE)
        self.assertIn(("Native", EDGE_OWNED, "C++ object"), in_edges(cpp))
        self.assertEqual(instance["type"], "_nanobindfix.UndescribedWrapper")
        # The C++ object lives inside the Python object: its bytes are the
        # instance's shallow size already.
        self.assertEqual(cpp["size"], 0)
        del w

    def test_python_subclass_reports_the_bound_cpp_type(self):
        class Sub(_nanobindfix.UndescribedWrapper):
            pass
        s = Sub()
        _report, (cpp,) = walk(_nanobindfix.cpp_address(s))
        self.assertIsNotNone(cpp)
        self.assertEqual(cpp["type"], "UndescribedWrapper")
        del s

    def test_keep_alive_patient_is_an_edge_from_the_nurse(self):
        global NURSE, PATIENT
        NURSE, PATIENT = _nanobindfix.Nurse(), Payload()
        NURSE.adopt(PATIENT)
        try:
            _report, (facts,) = walk(id(PATIENT))
            self.assertIn(("Native", EDGE_OWNED, "nanobind keep_alive patient"), in_edges(facts))
            self.assertEqual(facts["refcount"], explained(facts), facts)
        finally:
            del NURSE, PATIENT

    def test_undescribed_member_is_unexplained_surplus(self):
        global HOLDER, HELD
        HOLDER, HELD = _nanobindfix.UndescribedWrapper(), Payload()
        HOLDER.value = HELD
        try:
            _report, (facts,) = walk(id(HELD))
            self.assertEqual(facts["refcount"] - explained(facts), 1)  # UndescribedWrapper::value
        finally:
            del HOLDER, HELD

    def test_instance_map_finds_a_self_cycle(self):
        w = _nanobindfix.UndescribedWrapper()
        w.value = w
        address = id(w)
        del w
        _report, (facts,) = walk(address)
        self.assertIsNotNone(facts, "a non-GC instance only itself refers to must still be walked")
        self.assertEqual(facts["type"], "_nanobindfix.UndescribedWrapper")
        self.assertEqual(facts["refcount"] - explained(facts), 1)

    @unittest.skipUnless(hasattr(_nanobindfix, "Pooled"), "nb::pooled is nanobind 3's")
    def test_dead_pooled_instances_are_not_walked(self):
        alive = _nanobindfix.Pooled()
        dead = _nanobindfix.Pooled()
        address, dead_cpp = id(dead), _nanobindfix.cpp_address(dead)
        del dead  # parked in Pooled's pool, still in the instance map
        _report, (parked, cpp, live) = walk(address, dead_cpp, id(alive))
        self.assertIsNone(parked)
        self.assertIsNone(cpp)
        self.assertIsNotNone(live)
        self.assertEqual(live["type"], "_nanobindfix.Pooled")
        del alive

    def test_described_member_explains_the_reference(self):
        held = Payload()
        w = _nanobindfix.Wrapper()
        w.value = held
        _report, (facts,) = walk(id(held))
        self.assertIn(("Native", EDGE_OWNED, "Wrapper::value"), in_edges(facts))
        self.assertEqual(facts["refcount"], explained(facts))
        # The fixture's callback and the recogniser report one C++ object.
        sources = [e[3] for e in facts["in_edges"] if e[2] == "Wrapper::value"]
        self.assertEqual(sources, [_nanobindfix.cpp_address(w)])
        del w, held


# A throwaway interpreter: walks once with nanobind's real internals key, then
# with its version part changed, as a nanobind of another internals version
# would publish it.
UNKNOWN_VERSION = """
import json
from refscope import _probe
import _nanobindfix

class Payload:
    pass

w = _nanobindfix.UndescribedWrapper()
w.value = w
cycle, cpp = id(w), _nanobindfix.cpp_address(w)
del w
nurse, patient = _nanobindfix.Nurse(), Payload()
nurse.adopt(patient)

def facts():
    watch = _probe._debug_walk(False, (cycle, cpp, id(patient)))["watch"]
    labels = [e[2] for e in watch[id(patient)]["in_edges"]]
    return {"cycle": watch.get(cycle) is not None, "cpp": watch.get(cpp) is not None,
            "keep_alive": "nanobind keep_alive patient" in labels}

known = facts()
renamed = _nanobindfix.rekey_internals("999")
print(json.dumps({"known": known, "renamed": renamed, "unknown": facts()}))
"""


class UnknownInternalsVersion(unittest.TestCase):
    def test_nothing_is_claimed(self):
        result = run_python(UNKNOWN_VERSION)
        self.assertEqual(result["known"], {"cycle": True, "cpp": True, "keep_alive": True})
        self.assertEqual(result["renamed"], 1)
        self.assertEqual(result["unknown"], {"cycle": False, "cpp": False, "keep_alive": False})


@unittest.skipUnless(cli(), "REFSCOPE_CLI missing")
class Scenarios(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="refscope-nanobind-")
        cls.info = run_program("nanobind_cycles.py", cls.workdir)
        cls.cycles = cli_json("cycles", cls.info["snapshot"], "--top", "0")["cycles"]

    def reasons(self, text):
        return [c for c in self.cycles if c["uncollectable"] and text in c["reason"]]

    def test_wrapper_cycles_name_type_and_member(self):
        # self, closure, globals and default-argument cycles
        found = self.reasons("_nanobindfix.Wrapper holds Wrapper::value without tp_traverse")
        self.assertEqual(len(found), 4, json.dumps(self.cycles[:10], indent=1)[:3000])
        self.assertTrue(all(c["fate"] == "invisible edge" for c in found))

    def test_type_slots_cycles_were_collected(self):
        summary = cli_json("summary", self.info["snapshot"], "--by", "type", "--top", "100000")
        names = {g["name"]: g["objects"] for g in summary["groups"]}
        self.assertNotIn("_nanobindfix.TraversedWrapper", names)
        self.assertEqual(names.get("_nanobindfix.Wrapper"), 4)
        # C++ objects are native nodes named by their C++ type.
        self.assertEqual(names.get("Wrapper"), 4)
        self.assertFalse([c for c in self.cycles if "TraversedWrapper" in c["reason"]])

    def test_path_names_the_python_holder_of_the_member(self):
        path = cli_json("path", self.info["snapshot"], "--type", "_nanobindfix.Wrapper")
        self.assertFalse(path["found"])
        self.assertIn("_nanobindfix.Wrapper holds Wrapper::value without reporting it in tp_traverse",
                      path["explanation"])

    def test_default_argument_cycle_once_the_module_is_gone(self):
        # nanobind's functions report their default arguments to the
        # collector; the cycle closes through the default instance, a non-GC
        # object holding its type.
        workdir = tempfile.mkdtemp(prefix="refscope-nanobind-")
        info = run_program("nanobind_cycles.py", workdir, "drop-module")
        cycles = cli_json("cycles", info["snapshot"], "--top", "0")["cycles"]
        found = [c for c in cycles if c["uncollectable"]
                 and "_nanobindfix.DefaultWrapper holds .__class__ without tp_traverse" in c["reason"]]
        self.assertEqual(len(found), 1, [c["reason"] for c in cycles if c["uncollectable"]])
        types = {t["type"] for t in found[0]["types"]}
        self.assertTrue({"nanobind.nb_method", "_nanobindfix.DefaultWrapper"} <= types, types)
        # The metaclass: nanobind.nb_type (2.15+), nanobind.nb_type_0 (per
        # instance size, earlier 2.x).
        self.assertTrue([t for t in types if t.startswith("nanobind.nb_type")], types)


if __name__ == "__main__":
    unittest.main()

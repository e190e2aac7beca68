"""pybind11 (fixtures/pybindfix.cpp): the nanobind reference-leak page's
cases with pybind11 types, the probe's pybind11 recogniser (C++ type names,
keep_alive patients, registered instances, default arguments) and the
describe_pybind11.h helper. CLI checks run when REFSCOPE_CLI is set."""
import json
import os
import tempfile
import unittest

from cpp_ext_support import EDGE_OWNED, NODE_NATIVE, cli, cli_json, explained, in_edges, run_program, walk

HAVE = os.environ.get("REFSCOPE_HAVE_PYBIND11") == "1"
if HAVE:
    import _pybindfix


class Payload:
    pass


@unittest.skipUnless(HAVE, "pybind11 fixture not built")
class Recogniser(unittest.TestCase):
    def test_cpp_object_and_described_member(self):
        held = Payload()
        w = _pybindfix.Wrapper()
        w.value = held
        _report, (facts,) = walk(id(held))
        sources = [(e[2], e[3]) for e in facts["in_edges"] if e[2] == "Wrapper::value"]
        self.assertEqual(len(sources), 1)
        self.assertIn(("Native", EDGE_OWNED, "Wrapper::value"), in_edges(facts))
        _report, (cpp, instance) = walk(sources[0][1], id(w))
        self.assertEqual(cpp["type"], "Wrapper")
        self.assertTrue(cpp["flags"] & NODE_NATIVE)
        self.assertEqual(cpp["size"], 8)  # sizeof(Wrapper): one py::object
        self.assertIn(("Native", EDGE_OWNED, "C++ object"), in_edges(cpp))
        del w, held

    def test_std_function_member_is_a_native_node(self):
        def callback():
            return None
        c = _pybindfix.CallbackWrapper()
        c.value = callback
        _report, (facts,) = walk(id(callback))
        labels = [e[2] for e in in_edges(facts, "Native")]
        self.assertEqual(labels, ["PyCallback::function"])
        del c

    def test_keep_alive_patient_is_an_edge_from_the_nurse(self):
        nurse = _pybindfix.Nurse()
        patient = Payload()
        nurse.adopt(patient)
        global NURSE, PATIENT
        NURSE, PATIENT = nurse, patient
        del nurse, patient
        try:
            _report, (facts,) = walk(id(PATIENT))
            self.assertIn(("Native", EDGE_OWNED, "pybind11 keep_alive patient"), in_edges(facts))
            self.assertEqual(facts["refcount"], explained(facts), facts)
        finally:
            del NURSE, PATIENT

    def test_undescribed_members_are_unexplained_surplus(self):
        global HOLDER, HELD
        HELD = Payload()
        HOLDER = _pybindfix.UndescribedWrapper()
        HOLDER.value = HELD
        try:
            _report, (facts,) = walk(id(HELD))
            self.assertEqual(facts["refcount"] - explained(facts), 1)  # held by UndescribedWrapper::value
        finally:
            del HOLDER, HELD

    def test_defaults_of_static_methods_and_module_functions_are_held_by_their_records(self):
        ids = (id(_pybindfix.MAKE_DEFAULT), id(_pybindfix.CONFIGURE_DEFAULT))
        _report, facts = walk(*ids)
        labels = ("_pybindfix.DefaultWrapper.make default argument 'options'",
                  "_pybindfix.configure default argument 'options'")
        for default, label in zip(facts, labels):
            self.assertIn(("Native", EDGE_OWNED, label), in_edges(default))
            self.assertEqual(default["refcount"], explained(default), default)

    def test_registered_instances_are_found_even_in_a_self_cycle(self):
        w = _pybindfix.UndescribedWrapper()
        w.value = w
        address = id(w)
        del w
        _report, (facts,) = walk(address)
        self.assertIsNotNone(facts, "a non-GC instance only itself refers to must still be walked")
        self.assertEqual(facts["type"], "_pybindfix.UndescribedWrapper")
        self.assertEqual(facts["refcount"] - explained(facts), 1)


@unittest.skipUnless(HAVE and cli(), "pybind11 fixture or REFSCOPE_CLI missing")
class Scenarios(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="refscope-pybind11-")
        cls.info = run_program("pybind11_cycles.py", cls.workdir)
        cls.cycles = cli_json("cycles", cls.info["snapshot"], "--top", "0")["cycles"]

    def reasons(self, text):
        return [c for c in self.cycles if c["uncollectable"] and text in c["reason"]]

    def test_wrapper_cycles_name_type_and_member(self):
        # self, closure, globals and default-argument cycles
        found = self.reasons("_pybindfix.Wrapper holds Wrapper::value without tp_traverse")
        self.assertEqual(len(found), 4, json.dumps(self.cycles[:10], indent=1)[:3000])
        self.assertTrue(all(c["fate"] == "invisible edge" for c in found))

    def test_std_function_cycles_name_the_chain(self):
        found = self.reasons("_pybindfix.CallbackWrapper holds CallbackWrapper::value \u2192 "
                             "PyCallback::function without tp_traverse")
        self.assertEqual(len(found), 3)

    def test_custom_type_setup_cycles_were_collected(self):
        summary = cli_json("summary", self.info["snapshot"], "--by", "type", "--top", "100000")
        names = {g["name"]: g["objects"] for g in summary["groups"]}
        self.assertNotIn("_pybindfix.TraversedWrapper", names)
        self.assertEqual(names.get("_pybindfix.Wrapper"), 4)
        self.assertFalse([c for c in self.cycles if "TraversedWrapper" in c["reason"]])

    def test_default_argument_cycle_names_the_function_record(self):
        found = [c for c in self.cycles
                 if "_pybindfix.DefaultWrapper.__init__ default argument 'other'" in c["reason"]]
        self.assertEqual(len(found), 1, [c["reason"] for c in self.cycles if "Default" in c["reason"]])
        # reachable while the module lives; stays once it is not
        self.assertEqual(found[0]["fate"], "alive")
        self.assertIn("once it is not, it stays", found[0]["reason"])

    def test_path_names_the_python_holder_of_the_member(self):
        path = cli_json("path", self.info["snapshot"], "--type", "_pybindfix.Wrapper")
        self.assertFalse(path["found"])
        self.assertIn("_pybindfix.Wrapper holds Wrapper::value without reporting it in tp_traverse",
                      path["explanation"])


if __name__ == "__main__":
    unittest.main()

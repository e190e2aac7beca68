"""Inferred C++ holders (core/src/analysis/inferred_holders.cpp, docs/cli.md
"Inferred holders") through the CLI: the nanobind page's closure, globals,
default-argument and bound-method cycles through a member of an undescribed
pybind11 type (_pybindfix.UndescribedWrapper) are each named as a likely
C++ cycle by `cycles`, `path` and `suspects`, marked as inferred; the
described Wrapper's, the traversed (collected) TraversedWrapper's and a
plain refcount leak are not."""
import os
import subprocess
import tempfile
import unittest

from cpp_ext_support import cli, cli_json, run_program

HAVE = os.environ.get("REFSCOPE_HAVE_PYBIND11") == "1"
TYPE = "_pybindfix.UndescribedWrapper"
HELD_TYPES = {"closure": "function", "globals": "function", "default argument": "function",
              "bound method": "method"}


def sentence(address):
    return ("probably held by `%s` @ %s through a C++ member: the type has no tp_traverse, so the "
            "garbage collector cannot see this cycle" % (TYPE, address))


@unittest.skipUnless(HAVE and cli(), "pybind11 fixture or REFSCOPE_CLI missing")
class InferredHolders(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="refscope-inferred-")
        cls.info = run_program("pybind11_undescribed_cycles.py", cls.workdir)
        cls.snapshot = cls.info["snapshot"]
        cls.cycles = cli_json("cycles", cls.snapshot, "--top", "0")

    def test_cycles_names_each_case_as_a_likely_cpp_cycle(self):
        inferred = self.cycles["inferred_cycles"]
        self.assertEqual(self.cycles["inferred_count"], len(inferred))
        by_holder = {c["likely_holder"]["address"]: c for c in inferred}
        for case, address in self.info["wrappers"].items():
            with self.subTest(case=case):
                self.assertIn(address, by_holder, [c["reason"] for c in inferred])
                found = by_holder[address]
                self.assertTrue(found["inferred"])
                self.assertEqual(found["likely_holder"]["type"], TYPE)
                self.assertEqual(found["held"]["type"], HELD_TYPES[case])
                self.assertGreater(found["unexplained"], 0)
                self.assertIn(sentence(address), found["reason"])
                self.assertEqual(found["hops"][-1]["node"]["address"], address)

    def test_only_the_undescribed_type_is_inferred(self):
        # The described Wrapper explains its member; TraversedWrapper's
        # cycles were collected; the leaked Payload has no wrapper nearby.
        types = {c["likely_holder"]["type"] for c in self.cycles["inferred_cycles"]}
        self.assertEqual(types, {TYPE})
        self.assertNotIn(self.info["leaked"], {c["held"]["address"] for c in self.cycles["inferred_cycles"]})

    def test_path_explains_each_wrapper_with_the_inference(self):
        for case, address in self.info["wrappers"].items():
            with self.subTest(case=case):
                path = cli_json("path", self.snapshot, "--to", address)
                self.assertFalse(path["found"])
                self.assertEqual(path["reason"], "held by unexplained")
                self.assertEqual(path["holder"]["type"], HELD_TYPES[case])
                self.assertTrue(path["inferred"])
                self.assertEqual(path["likely_holder"]["address"], address)
                self.assertEqual(path["likely_holder_hops"][-1]["node"]["address"], address)
                self.assertIn(sentence(address), path["explanation"])
        text = subprocess.run([cli(), "path", self.snapshot, "--to", self.info["wrappers"]["closure"]],
                              check=True, capture_output=True, text=True).stdout
        self.assertIn("probable cycle (inferred): ", text)
        self.assertIn(sentence(self.info["wrappers"]["closure"]), text)

    def test_path_of_a_plain_leak_infers_nothing(self):
        path = cli_json("path", self.snapshot, "--to", self.info["leaked"])
        self.assertEqual(path["reason"], "unexplained surplus")
        self.assertFalse(path["inferred"])
        self.assertIsNone(path["likely_holder"])
        self.assertNotIn("probably held by", path["explanation"])

    def test_suspects_row_carries_the_inference(self):
        rows = cli_json("suspects", self.snapshot, "--top", "0")["rows"]
        row = next(r for r in rows if r["type"] == TYPE)
        self.assertTrue(row["inferred"])
        self.assertEqual(row["likely_holder"]["type"], TYPE)
        self.assertIn(row["likely_holder"]["address"], self.info["wrappers"].values())
        self.assertIn("probably held by `%s`" % TYPE, row["reason"])
        for other in rows:
            if other["type"] != TYPE and other["inferred"]:
                self.assertEqual(other["likely_holder"]["type"], TYPE, other["reason"])
        payload = [r for r in rows if r["type"] == "__main__.Payload"]
        self.assertTrue(payload, [r["type"] for r in rows])
        self.assertFalse(any(r["inferred"] for r in payload))

    def test_cycles_text_lists_the_inferred_cycles(self):
        text = subprocess.run([cli(), "cycles", self.snapshot, "--top", "0"], check=True, capture_output=True,
                              text=True).stdout
        self.assertIn("likely cycles through a C++ member (inferred, not in the snapshot's graph):", text)
        for address in self.info["wrappers"].values():
            self.assertIn(sentence(address), text)


if __name__ == "__main__":
    unittest.main()

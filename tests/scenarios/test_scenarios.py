"""The reference documents' scenarios, end to end: each program in programs/
is run under this interpreter with the built probe, snapshots itself, and the
snapshot is checked through `refscope-cli --json` (schema: docs/cli-json.md).

Environment (set by tests/scenarios/CMakeLists.txt):
  REFSCOPE_CLI          path of the refscope-cli binary
  REFSCOPE_PYTHONPATH   the built `refscope` package dir and the fixtures dir
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
CLI = os.environ.get("REFSCOPE_CLI", "")


def run_program(name, workdir):
    snapshot = os.path.join(workdir, name.replace(".py", ".rscope"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [PROGRAMS, os.environ.get("REFSCOPE_PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, os.path.join(PROGRAMS, name), snapshot],
                          env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"{name} failed ({proc.returncode}):\n{proc.stderr}")
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    assert os.path.exists(info["snapshot"]), "the program wrote no snapshot"
    return info


def cli_json(*args, expect_ok=True):
    proc = subprocess.run([CLI, *args, "--json"], capture_output=True, text=True,
                          timeout=120)
    if expect_ok and proc.returncode != 0:
        raise AssertionError(f"refscope-cli {' '.join(args)} failed: {proc.stderr}")
    return proc.returncode, (json.loads(proc.stdout) if proc.stdout.strip() else None)


def hop_edges(path):
    return [hop["edge"] for hop in path["hops"]]


def count_of_type(snapshot, type_name):
    _, summary = cli_json("summary", snapshot, "--by", "type", "--top", "1000000")
    for group in summary["groups"]:
        if group["name"] == type_name:
            return group["objects"]
    return 0


@unittest.skipUnless(CLI and os.path.exists(CLI), "REFSCOPE_CLI not set")
class Scenarios(unittest.TestCase):
    def setUp(self):
        self.workdir = tempfile.mkdtemp(prefix="refscope-scenario-")

    def test_a_module_level_cache(self):
        info = run_program("module_cache.py", self.workdir)
        _, path = cli_json("path", info["snapshot"], "--to", info["address"])
        self.assertTrue(path["found"], path.get("explanation"))
        text = " → ".join(hop_edges(path)) + " " + json.dumps(path["hops"])
        self.assertIn("cache_module", text)           # the module
        self.assertIn("['cache']", hop_edges(path))     # the dict key
        self.assertIn("['k1']", hop_edges(path))
        self.assertEqual(path["hops"][-1]["node"]["type"], "cache_module.Leaky")
        self.assertEqual(path["hops"][-1]["node"]["address"], info["address"])
        self.assertEqual(path["root"]["kind"], "interpreter")

    def test_b_collectable_cycles_are_gone(self):
        info = run_program("collectable_cycles.py", self.workdir)
        self.assertEqual(count_of_type(info["snapshot"], info["type"]), 0)
        # The class itself is still there (module global); only instances died.
        self.assertGreater(count_of_type(info["snapshot"], "type"), 0)

    def test_c_refcount_leak_is_unexplained_surplus(self):
        info = run_program("c_refcount_leak.py", self.workdir)
        _, path = cli_json("path", info["snapshot"], "--to", info["address"])
        self.assertFalse(path["found"])
        self.assertIn("GC cannot see", path["explanation"])
        self.assertEqual(path["target"]["surplus"], 1)
        _, roots = cli_json("roots", info["snapshot"], "--top", "0")
        leaked = [o for o in roots["unexplained"] if o["address"] == info["address"]]
        self.assertEqual(len(leaked), 1)
        self.assertEqual(leaked[0]["surplus"], 1)
        self.assertEqual(leaked[0]["type"], "__main__.Leaked")

    def test_d_thread_local_is_a_thread_stack_root(self):
        info = run_program("thread_local.py", self.workdir)
        _, path = cli_json("path", info["snapshot"], "--type", info["type"])
        self.assertTrue(path["found"], path.get("explanation"))
        root = path["root"]
        self.assertEqual(root["kind"], "thread stack")
        self.assertEqual(root["thread"], info["thread"])
        # 3.11+: the local is the root itself; 3.9/3.10: the frame object is
        # the root and the local is its first hop.
        where = root["label"] + " " + " ".join(hop_edges(path))
        self.assertIn(info["function"], where)
        self.assertIn(info["variable"], where)
        self.assertRegex(root["label"], r"thread_local\.py:\d+")

    def test_e_lru_cache_keeps_a_class_alive(self):
        info = run_program("lru_cache_class.py", self.workdir)
        self.assertEqual(count_of_type(info["snapshot"], info["instances"]), 0)
        _, path = cli_json("path", info["snapshot"], "--to", info["address"])
        self.assertTrue(path["found"], path.get("explanation"))
        types = [hop["node"]["type"] for hop in path["hops"]]
        self.assertIn("functools._lru_cache_wrapper", types)
        self.assertIn("['describe_class']", hop_edges(path))
        self.assertEqual(path["hops"][-1]["node"]["type"], "type")


    def test_f_wrapper_cycles_name_the_type_without_traversal(self):
        info = run_program("wrapper_cycles.py", self.workdir)
        _, report = cli_json("cycles", info["snapshot"], "--top", "0")
        uncollectable = [c for c in report["cycles"] if c["uncollectable"]]

        def cycles_blaming(type_name):
            return [c for c in uncollectable
                    if c["fate"] == "invisible edge" and type_name in c["reason"]
                    and ".value" in c["reason"]]
        # closure, default argument and globals cycles through a Wrapper,
        # which has no tp_traverse at all
        wrapper = cycles_blaming("_wrapperfix.Wrapper holds .value without tp_traverse")
        self.assertEqual(len(wrapper), 3, json.dumps(uncollectable, indent=1)[:4000])
        # the self-cycle through a GC type whose tp_traverse forgets `value`
        untraversed = cycles_blaming("_wrapperfix.UntraversedWrapper")
        self.assertEqual(len(untraversed), 1, json.dumps(uncollectable, indent=1)[:4000])
        # with tp_traverse and tp_clear the collector freed every cycle
        self.assertEqual(count_of_type(info["snapshot"], "_wrapperfix.TraversedWrapper"), 0)
        self.assertFalse(any("TraversedWrapper" in c["reason"] for c in report["cycles"]
                             if "UntraversedWrapper" not in c["reason"]))

    def test_g_a_finalizer_holding_its_object_is_named(self):
        info = run_program("finalizer_registry.py", self.workdir)
        _, path = cli_json("path", info["snapshot"], "--to", info["address"])
        self.assertTrue(path["found"], path.get("explanation"))
        self.assertIn("['_registry']", hop_edges(path))
        self.assertIn(".args", hop_edges(path))
        trap = path["finalizer"]
        self.assertIsNotNone(trap, json.dumps(path["hops"], indent=1)[:3000])
        self.assertEqual(trap["via"], "finalizer entry")
        self.assertEqual(trap["referent"]["address"], info["address"])
        self.assertEqual(trap["holder"]["type"], "weakref.finalize._Info")
        self.assertEqual(trap["callback"]["type"], "weakref.finalize")
        # The leak is the first suspect, and says why.
        _, suspects = cli_json("suspects", info["snapshot"], "--top", "3")
        first = suspects["rows"][0]
        self.assertEqual((first["type"], first["confidence"]), (info["type"], "high"), suspects["rows"])
        self.assertIn("own finalizer", first["kinds"])
        self.assertEqual(first["finalizer"]["holder"]["address"], trap["holder"]["address"])
        self.assertIn("waiting for " + info["type"], first["reason"])

    def test_h_inspect_cache_keeps_a_class_and_its_closure(self):
        info = run_program("inspect_cache.py", self.workdir)
        if not info["strong_cache"]:
            # inspect's cache is weak (or absent): the class is gone.
            proc = subprocess.run([CLI, "path", info["snapshot"], "--to", info["address"]],
                                  capture_output=True, text=True, timeout=120)
            self.assertEqual(proc.returncode, 1, proc.stdout)
            self.assertIn("no object at", proc.stderr)
            return
        _, path = cli_json("path", info["snapshot"], "--to", info["address"])
        self.assertTrue(path["found"], path.get("explanation"))
        self.assertIn("['_shadowed_dict_from_mro_tuple']", hop_edges(path))
        types = [hop["node"]["type"] for hop in path["hops"]]
        self.assertIn("functools._lru_cache_wrapper", types)
        self.assertEqual(path["hops"][-1]["node"]["type"], "type")
        # The captured parameter hangs off the class: forward's closure cell.
        _, param = cli_json("path", info["snapshot"], "--to", info["param"])
        self.assertTrue(param["found"], param.get("explanation"))
        addresses = [hop["node"]["address"] for hop in param["hops"]]
        self.assertIn(info["address"], addresses)
        self.assertEqual(param["hops"][-2]["node"]["type"], "cell")


if __name__ == "__main__":
    unittest.main()

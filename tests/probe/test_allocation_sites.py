"""(h) Allocation sites (issue 13, item 5): when tracemalloc traces, each
snapshot records where every traced object was allocated, read in C after
the walk; the CLI's path, referrers, query and suspects show it.

Each case runs a small program in a child interpreter (tracing must start
before the objects it is asked about are made) and reads its snapshot with
refscope-cli. The child's objects of interest come from known lines, so the
expected site is exact: file, line and the function's qualified name (the
bare name before 3.11, whose code objects have no qualified name)."""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from probe_support import cli, cli_json

QUALNAMES = sys.version_info >= (3, 11)

# Line numbers matter: the assertions name them.
PROGRAM = textwrap.dedent("""\
    import sys, tracemalloc
    class Early:
        pass
    EARLY = [Early() for _ in range(3)]      # line 4: before tracing
    if sys.argv[2] == "trace":
        tracemalloc.start(4)
    import refscope

    class Order:                              # a managed __dict__ on 3.11+
        def __init__(self, n):
            self.n = n

    class Slotted:
        __slots__ = ("n",)

    ORDERS = {}
    SLOTTED = []

    class Shop:
        def create_order(self, n):
            order = Order(n)                  # line 21
            ORDERS[n] = order

    def make_slotted():
        def inner(n):
            return Slotted()                  # line 26
        for n in range(7):
            SLOTTED.append(inner(n))

    shop = Shop()
    if sys.argv[3] == "baseline":
        refscope.snapshot(sys.argv[1] + ".baseline")
    for n in range(40):
        shop.create_order(n)
    make_slotted()
    stats = refscope.snapshot(sys.argv[1])
    print(stats.allocations)
""")


class AllocationSites(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not cli():
            raise unittest.SkipTest("REFSCOPE_CLI not set")
        cls.dir = tempfile.TemporaryDirectory(prefix="refscope-alloc-")
        cls.script = os.path.join(cls.dir.name, "shop.py")
        with open(cls.script, "w") as f:
            f.write(PROGRAM)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def run_program(self, name, mode, baseline="", extra_args=(), env=None):
        path = os.path.join(self.dir.name, name)
        done = subprocess.run([sys.executable, *extra_args, self.script, path, mode, baseline or "-"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, text=True,
                              env=env or dict(os.environ))
        self.assertEqual(done.returncode, 0, done.stderr)
        return path, done.stdout

    def site(self, line, function):
        name = function if QUALNAMES else function.rsplit(".", 1)[-1]
        return "%s:%d in %s" % (self.script, line, name)

    def test_path_shows_the_site_and_traceback(self):
        path, out = self.run_program("traced.rscope", "trace")
        self.assertIn("'tracing': True", out)
        found = cli_json("path", path, "--type", "Order")
        allocated = found["hops"][-1]["node"]["allocated"]
        self.assertEqual(allocated["site"], self.site(21, "Shop.create_order"))
        # Four frames kept: create_order, then the module's loop.
        self.assertEqual(allocated["traceback"][0], self.site(21, "Shop.create_order"))
        self.assertEqual(allocated["traceback"][1], "%s:34 in <module>" % self.script)
        text = subprocess.run([cli(), "path", path, "--type", "Order"], stdout=subprocess.PIPE,
                              text=True, check=True).stdout
        self.assertIn("allocated at " + self.site(21, "Shop.create_order"), text)
        info = cli_json("info", path)["allocations"]
        self.assertEqual(info["traceback_limit"], 4)
        self.assertGreaterEqual(info["traced_objects"], 47)  # 40 orders, 7 slotted

    def test_nested_functions_and_objects_from_before_tracing(self):
        path, _ = self.run_program("traced.rscope", "trace")
        slotted = cli_json("query", path, "type:Slotted", "--top", "0")
        self.assertEqual(slotted["objects"], 7)
        for node in slotted["top"]:
            self.assertEqual(node["allocated"]["site"], self.site(26, "make_slotted.<locals>.inner"))
        early = cli_json("query", path, "type:Early", "--top", "0")
        self.assertEqual(early["objects"], 3)
        for node in early["top"]:
            self.assertIsNone(node["allocated"])  # made before tracemalloc started

    def test_referrers_shows_the_site(self):
        path, _ = self.run_program("traced.rscope", "trace")
        order = cli_json("query", path, "type:Order", "--top", "1")["top"][0]
        text = subprocess.run([cli(), "referrers", path, order["address"]], stdout=subprocess.PIPE,
                              text=True, check=True).stdout
        self.assertIn("allocated at " + self.site(21, "Shop.create_order"), text)

    def test_suspects_group_a_growing_type_by_site(self):
        path, _ = self.run_program("grown.rscope", "trace", baseline="baseline")
        report = cli_json("suspects", path, "--baseline", path + ".baseline", "--top", "5")
        rows = {row["type"]: row for row in report["rows"]}
        order = rows["__main__.Order"]
        self.assertEqual(order["traced_objects"], order["objects"])
        self.assertEqual(order["allocation_sites"][0],
                         {"site": self.site(21, "Shop.create_order"), "objects": order["objects"]})
        expected = "%d of %d from %s" % (order["objects"], order["objects"], self.site(21, "Shop.create_order"))
        self.assertEqual(order["allocation_text"], expected)
        self.assertIn("allocated: " + expected, order["reason"])

    def test_without_tracing_nothing_is_recorded(self):
        path, out = self.run_program("plain.rscope", "plain")
        self.assertIn("'tracing': False", out)
        found = cli_json("path", path, "--type", "Order")
        self.assertNotIn("allocated", found["hops"][-1]["node"])
        self.assertIsNone(cli_json("info", path)["allocations"])
        report = cli_json("suspects", path, "--top", "3")
        for row in report["rows"]:
            self.assertEqual(row["traced_objects"], 0)
            self.assertEqual(row["allocation_sites"], [])

    def test_tracing_from_startup_without_importing_tracemalloc(self):
        # -X tracemalloc=2: tracing starts before any import; the program's
        # own tracemalloc.start() is then skipped (mode "plain").
        path, out = self.run_program("xoption.rscope", "plain", extra_args=("-X", "tracemalloc=2"))
        found = cli_json("path", path, "--type", "Order")
        allocated = found["hops"][-1]["node"]["allocated"]
        self.assertEqual(allocated["site"], self.site(21, "Shop.create_order"))
        self.assertEqual(len(allocated["traceback"]), 2)
        self.assertEqual(cli_json("info", path)["allocations"]["traceback_limit"], 2)

    def test_runner_option_traces_the_script(self):
        snapshot = os.path.join(self.dir.name, "runner.rscope")
        script = os.path.join(self.dir.name, "plain.py")
        with open(script, "w") as f:
            f.write("class Order:\n    pass\nKEEP = []\ndef make():\n    KEEP.append(Order())\n"
                    "for _ in range(5):\n    make()\n")
        done = subprocess.run([sys.executable, "-m", "refscope", "run", "--trace-allocations", "--trace-frames", "3",
                               script, "--snapshot-at-exit", snapshot],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        allocated = cli_json("path", snapshot, "--type", "Order")["hops"][-1]["node"]["allocated"]
        self.assertEqual(allocated["site"], "%s:5 in make" % script)
        self.assertEqual(len(allocated["traceback"]), 3)


if __name__ == "__main__":
    unittest.main(verbosity=2)

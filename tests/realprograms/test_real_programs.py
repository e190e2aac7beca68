"""The real-program tier: programs on real libraries (programs/), each run
under this interpreter with the built probe — once per planted leak (two
per program, each by a different mechanism: LEAKS below) and once without —
taking a baseline, an `after` and a `third` snapshot. Checked through
`refscope-cli --json` (docs/cli-json.md):

- every snapshot has 0 objects with negative surplus (exact accounting:
  docs/probe.md, "One owned edge per real reference");
- with each leak, `suspects --baseline --third` ranks the planted leak's
  type first, names the container it accumulates in, and `path` reaches it
  there;
- the leaking run traces allocations after its baseline (tracemalloc, 8
  frames): the leak's row and its path say which line of the program made
  the leaked objects;
- without the leak, no high-confidence suspect has unexplained surplus: what
  C code holds beyond the interpreter's and extensions' static state is
  listed in KNOWN_C_HOLDERS, each with the reason.

Environment (set by tests/realprograms/CMakeLists.txt):
  REFSCOPE_CLI          path of the refscope-cli binary
  REFSCOPE_PYTHONPATH   the built `refscope` package dir
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

# Types whose objects real C code holds in a program that does not leak,
# so their unexplained surplus is right. Each entry says who holds them.
KNOWN_C_HOLDERS = {
    # Django's SQLite backend makes four aggregate classes per connection
    # (list_aggregate(): STDDEV_POP, ...) and registers them with
    # sqlite3.Connection.create_aggregate: SQLite's function table (C) holds
    # one reference to each.
    "django.db.backends.sqlite3.base.ListAggregate": "SQLite's function table",
    # pandas' tslibs.timezones (Cython) keeps dateutil's UTC tzfile in a
    # cdef module variable, a C static.
    "dateutil.tz.tz.tzfile": "a Cython module variable of pandas",
    # asyncio's C accelerator keeps each thread's running loop (3.11: in a
    # _RunningLoopHolder in the thread state dict; later: thread state).
    "asyncio.unix_events._UnixSelectorEventLoop": "asyncio's running-loop state",
}


# The planted leaks of each program (its LEAKS, programs/*.py), one run each.
LEAKS = {
    "sympy_calc.py": ["history", "method_cache"],
    "django_shop.py": ["recent_orders", "strong_receiver"],
    "asyncio_service.py": ["done_callback", "idle_timer"],
    "pandas_report.py": ["memoised", "kept_errors"],
}


def libraries_missing(program):
    """The import error if this interpreter lacks the program's libraries."""
    needs = {"sympy_calc.py": "sympy", "django_shop.py": "django", "pandas_report.py": "pandas",
             "asyncio_service.py": "asyncio"}[program]
    done = subprocess.run([sys.executable, "-c", f"import {needs}"], capture_output=True, text=True)
    return done.stderr.strip().splitlines()[-1] if done.returncode else None


def run_program(program, leak, trace=True):
    """`leak`: the planted leak's name, or None for the clean run; a leaking
    run traces allocations unless `trace` is false."""
    workdir = tempfile.mkdtemp(prefix="refscope-real-")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([PROGRAMS, os.environ.get("REFSCOPE_PYTHONPATH", "")])
    args = [sys.executable, os.path.join(PROGRAMS, program), workdir]
    if leak:
        # A leaking run traces allocations after its baseline.
        args += ["--leak", leak] + (["--trace"] if trace else [])
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"{program} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def cli_json(*args):
    done = subprocess.run([CLI, *args, "--json"], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"refscope-cli {' '.join(args)} failed: {done.stderr}")
    return json.loads(done.stdout)


class RealProgram:
    """Mixed into one TestCase per program (below)."""
    program = ""

    @classmethod
    def setUpClass(cls):
        missing = libraries_missing(cls.program)
        if missing:
            raise unittest.SkipTest(f"{cls.program}: {missing}")
        cls.leaking = [run_program(cls.program, leak) for leak in LEAKS[cls.program]]
        cls.clean = run_program(cls.program, None)

    def for_each_leak(self, check):
        """`check(run)` for each leaking run, as a subtest named after its leak."""
        for run in self.leaking:
            with self.subTest(leak=run["leak"]["name"]):
                check(run)

    def test_no_object_has_negative_surplus(self):
        for run in self.leaking + [self.clean]:
            for snapshot in run["snapshots"]:
                roots = cli_json("roots", snapshot)
                if roots["negative_surplus_objects"]:
                    worst = cli_json("query", snapshot, "surplus<0", "--top", "10")["top"]
                    self.fail(f"{snapshot}: {roots['negative_surplus_objects']} objects with negative surplus: "
                              + "; ".join(f"{o['description']} ({o['surplus']})" for o in worst))

    def test_the_planted_leak_ranks_first(self):
        self.for_each_leak(self.check_ranked_first)

    def check_ranked_first(self, run):
        baseline, after, third = run["snapshots"]
        leak = run["leak"]
        report = cli_json("suspects", after, "--baseline", baseline, "--third", third, "--top", "5")
        rows = report["rows"]
        ranked = [row["type"] for row in rows]
        self.assertEqual(rows[0]["type"], leak["type"], f"ranked: {ranked}")
        first = rows[0]
        self.assertIn("growing holder", first["kinds"], first["reason"])
        self.assertIn(leak["holder"], first["lead_holder"]["name"] or first["lead_holder"]["description"],
                      first["reason"])
        # (Nearly) every new object of the type sits in that one holder.
        self.assertGreaterEqual(first["lead_holder"]["objects"], 0.99 * first["lead_objects"], first["reason"])

    def test_path_reaches_the_holder(self):
        self.for_each_leak(self.check_path)

    def check_path(self, run):
        leak = run["leak"]
        bare = leak["type"].rsplit(".", 1)[-1]  # users type bare class names
        path = cli_json("path", run["snapshots"][2], "--type", bare)
        self.assertTrue(path["found"], path)
        self.assertEqual(path["hops"][-1]["node"]["type"], leak["type"])
        self.assertIn(leak["holder"], json.dumps(path["hops"]))

    def test_the_leak_says_where_it_was_allocated(self):
        self.for_each_leak(self.check_allocation_site)

    def check_allocation_site(self, run):
        baseline, after, third = run["snapshots"]
        first = cli_json("suspects", after, "--baseline", baseline, "--third", third, "--top", "1")["rows"][0]
        # Nearly every leaked object comes from one line of the program
        # itself (not of Django, SymPy or pandas), and the reason says so.
        site = first["allocation_sites"][0]
        self.assertTrue(site["site"].startswith(PROGRAMS + os.sep), first["allocation_sites"])
        self.assertGreaterEqual(site["objects"], 0.9 * first["objects"], first["allocation_sites"])
        self.assertIn("allocated: " + first["allocation_text"], first["reason"])
        # The path to a leaked object made after tracing started (the
        # warm-up's, from before the baseline, were not traced) ends there.
        objects = cli_json("query", third, "type:" + run["leak"]["type"], "--top", "0")["top"]
        traced = [o for o in objects if o["allocated"]]
        self.assertTrue(traced, "no leaked object was traced")
        path = cli_json("path", third, "--to", traced[0]["address"])
        self.assertEqual(path["hops"][-1]["node"]["allocated"]["site"], site["site"])

    def test_clean_run_has_no_unexplained_surplus_outside_static_state(self):
        report = cli_json("suspects", self.clean["snapshots"][2], "--top", "0")
        def known(row):
            # A class held from C is a row of type `type`: its description names it.
            described = row["representative"]["description"] if row["representative"] else ""
            return any(name == row["type"] or name in described for name in KNOWN_C_HOLDERS)
        held = [row["type"] for row in report["rows"]
                if row["confidence"] == "high" and "unexplained surplus" in row["kinds"] and not known(row)]
        self.assertEqual(held, [], [row["reason"] for row in report["rows"] if row["type"] in held])


def make_case(program):
    name = "Test_" + program[:-3]
    return type(name, (RealProgram, unittest.TestCase), {"program": program})


for _program in ("sympy_calc.py", "django_shop.py", "asyncio_service.py", "pandas_report.py"):
    _case = make_case(_program)
    globals()[_case.__name__] = _case
del _case  # unittest would collect it a second time under this name


@unittest.skipUnless(CLI and os.path.exists(CLI), "REFSCOPE_CLI not set")
class CliPresent(unittest.TestCase):
    def test_cli_is_built(self):
        self.assertTrue(os.access(CLI, os.X_OK))


if __name__ == "__main__":
    unittest.main()

"""The real-program tier in the desktop window (issue 16, "Done when": a
first-time user finds each of the four leaks of the trial without sideways
scrolling or zooming the graph by hand, can go back after following a link,
sees growth drawn for a live session). For each program, with the leak the
trial planted (TRIAL), the window test gui_window_real_programs
(tests/gui_window/real_program_window_test.cpp) opens its three snapshots
in the real window, headless, at 1280×800, and checks the first suspect row,
the path, the columns, the graph's zoom, Back and the growth chart; it keeps
a screenshot per program in its build folder (real-PROGRAM*.png).

The asyncio service is the live one, as in the trial: the window listens,
runs it connected (`--live`, programs/real_common.py) and takes its three
snapshots itself; the others run first and write their snapshot files
(without tracemalloc: where the leak was allocated is
test_real_programs.py's to check, and tracing would make SymPy's run
minutes long).

Environment (set by tests/realprograms/CMakeLists.txt):
  REFSCOPE_WINDOW_TEST  path of the gui_window_real_programs binary
  REFSCOPE_PYTHONPATH   the built `refscope` package dir
  QT_QPA_PLATFORM       offscreen
"""
import ast
import os
import shutil
import subprocess
import sys
import unittest

from test_real_programs import PROGRAMS, libraries_missing, run_program

WINDOW_TEST = os.environ.get("REFSCOPE_WINDOW_TEST", "")

# The planted leak of each program that the trial of issue 16 used.
TRIAL = {
    "asyncio_service.py": "done_callback",
    "sympy_calc.py": "method_cache",
    "pandas_report.py": "kept_errors",
    "django_shop.py": "strong_receiver",
}
LIVE = {"asyncio_service.py"}


def planted(program, leak):
    """The program's own LEAKS entry for `leak`: {"type": ..., "holder": ...}
    (read from its source: importing it would run it)."""
    with open(os.path.join(PROGRAMS, program)) as source:
        tree = ast.parse(source.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "LEAKS":
            return ast.literal_eval(node.value)[leak]
    raise AssertionError(f"{program} has no LEAKS")


class ProgramInWindow:
    """Mixed into one TestCase per program (below)."""
    program = ""

    def test_a_first_time_user_finds_the_leak(self):
        missing = libraries_missing(self.program)
        if missing:
            self.skipTest(f"{self.program}: {missing}")
        name = self.program[:-3]
        leak = planted(self.program, TRIAL[self.program])
        env = dict(os.environ, REFSCOPE_REAL_NAME=name, REFSCOPE_REAL_LEAK_TYPE=leak["type"],
                   REFSCOPE_REAL_LEAK_HOLDER=leak["holder"], PYTHONDONTWRITEBYTECODE="1",
                   PYTHONPATH=os.pathsep.join([PROGRAMS, os.environ.get("REFSCOPE_PYTHONPATH", "")]))
        if self.program in LIVE:
            env["REFSCOPE_REAL_LIVE"] = " ".join(
                [sys.executable, os.path.join(PROGRAMS, self.program), TRIAL[self.program]])
        else:
            run = run_program(self.program, TRIAL[self.program], trace=False)
            env["REFSCOPE_REAL_SNAPSHOTS"] = ":".join(run["snapshots"])
            self.addCleanup(shutil.rmtree, os.path.dirname(run["snapshots"][0]), ignore_errors=True)
        done = subprocess.run([WINDOW_TEST], env=env, capture_output=True, text=True, timeout=600)
        report = (done.stdout + done.stderr)[-6000:]
        self.assertEqual(done.returncode, 0, report)
        # Qt Test passes a skipped function too: this one must have run.
        self.assertIn("PASS   : RealProgramWindowTest::aFirstTimeUserFindsTheLeak", done.stdout, report)


for _program in TRIAL:
    _case = type("Test_" + _program[:-3], (ProgramInWindow, unittest.TestCase), {"program": _program})
    globals()[_case.__name__] = _case
del _case  # unittest would collect it a second time under this name


# Runs whatever the host lacks: Python 3.12.1's unittest fails a module
# whose every test skips.
class WindowTestPresent(unittest.TestCase):
    def test_window_test_is_built(self):
        self.assertTrue(WINDOW_TEST and os.access(WINDOW_TEST, os.X_OK), WINDOW_TEST)


if __name__ == "__main__":
    unittest.main()

"""(e) python -m refscope run SCRIPT ARGS --snapshot-at-exit FILE runs the
program like `python SCRIPT ARGS`, preserves its exit status and argv, and
writes a snapshot when it ends (normally, by sys.exit or by an exception)."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from probe_support import cli, cli_json

MAGIC = b"RSCOPE\r\n"

SCRIPT = textwrap.dedent("""
    import json, sys
    class Leaky:
        pass
    KEEP = [Leaky() for _ in range(10)]
    with open(sys.argv[1], "w") as out:
        json.dump({"argv": sys.argv, "name": __name__, "path0": sys.path[0]}, out)
    mode = sys.argv[2]
    if mode == "exit":
        sys.exit(int(sys.argv[3]))
    if mode == "raise":
        raise RuntimeError("boom")
""")


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="refscope-runner-")
        self.script = os.path.join(self.dir.name, "app.py")
        with open(self.script, "w") as f:
            f.write(SCRIPT)
        self.report = os.path.join(self.dir.name, "report.json")
        self.snapshot = os.path.join(self.dir.name, "exit.rscope")

    def tearDown(self):
        self.dir.cleanup()

    def run_refscope(self, *args):
        return subprocess.run([sys.executable, "-m", "refscope"] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                              env=dict(os.environ))

    def read_report(self):
        with open(self.report) as f:
            return json.load(f)

    def assertSnapshotWritten(self):
        with open(self.snapshot, "rb") as f:
            self.assertEqual(f.read(len(MAGIC)), MAGIC)

    def test_exit_code_and_argv_are_preserved(self):
        done = self.run_refscope("run", self.script, self.report, "exit", "3", "--flag",
                                 "--snapshot-at-exit", self.snapshot)
        self.assertEqual(done.returncode, 3, done.stderr)
        report = self.read_report()
        self.assertEqual(report["argv"], [self.script, self.report, "exit", "3", "--flag"])
        self.assertEqual(report["name"], "__main__")
        self.assertEqual(report["path0"], self.dir.name)
        self.assertSnapshotWritten()

    def test_option_before_script_and_normal_exit(self):
        done = self.run_refscope("run", "--snapshot-at-exit", self.snapshot, self.script,
                                 self.report, "normal")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertSnapshotWritten()

    def test_exception_exit_status_and_snapshot(self):
        done = self.run_refscope("run", self.script, self.report, "raise",
                                 "--snapshot-at-exit", self.snapshot)
        self.assertEqual(done.returncode, 1)
        self.assertIn(b"RuntimeError: boom", done.stderr)
        self.assertSnapshotWritten()

    def test_help_documents_run_and_snapshot(self):
        done = self.run_refscope("--help")
        self.assertEqual(done.returncode, 0)
        self.assertIn(b"run", done.stdout)
        self.assertIn(b"refscope.snapshot", done.stdout)
        done = self.run_refscope("run", "--help")
        self.assertEqual(done.returncode, 0)
        self.assertIn(b"--snapshot-at-exit", done.stdout)

    @unittest.skipUnless(cli(), "REFSCOPE_CLI not set (refscope-cli not built)")
    def test_snapshot_header_through_cli(self):
        done = self.run_refscope("run", self.script, self.report, "normal",
                                 "--snapshot-at-exit", self.snapshot)
        self.assertEqual(done.returncode, 0, done.stderr)
        info = cli_json("info", self.snapshot)
        self.assertTrue(info["header"]["collected_first"])
        self.assertEqual(info["header"]["argv"], [self.script, self.report, "normal"])


if __name__ == "__main__":
    unittest.main()

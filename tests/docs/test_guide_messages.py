"""The user guide's troubleshooting chapter quotes what the tools print
(docs/guide/troubleshooting.md). Each quoted block follows a marker
`<!-- checked: NAME -->`; this test makes each tool print its message for
real and checks that the block still matches it, `…` in the block standing
for any text (a path, the list of Pythons a build has). A message that
changes, or a block without a case here, fails.

Environment (tests/docs/CMakeLists.txt): REFSCOPE_CLI, REFSCOPE_PACKAGE_DIR
(the build's refscope package), REFSCOPE_PYTHON (a Python it has a probe
for), REFSCOPE_OTHER_PYTHON (one it has none for: pyenv's 3.8 when present).
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHAPTER = os.path.join(HERE, "..", "..", "docs", "guide", "troubleshooting.md")
DATA = os.path.join(HERE, "..", "data")
BLOCK = re.compile(r"<!-- checked: ([\w-]+) -->\n```\n(.*?)\n```", re.S)


def quoted_blocks():
    with open(CHAPTER, encoding="utf-8") as f:
        return dict(BLOCK.findall(f.read()))


def pattern(block):
    """The block as a regular expression: … matches any text."""
    return re.compile("".join(".*?" if part == "…" else re.escape(part)
                              for part in re.split("(…)", block)) + r"\Z", re.S)


def run(command, **kwargs):
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, **kwargs)
    return done.stdout.decode("utf-8", "replace") + done.stderr.decode("utf-8", "replace")


def probe_env():
    return dict(os.environ, PYTHONPATH=os.environ["REFSCOPE_PACKAGE_DIR"], PYTHONDONTWRITEBYTECODE="1")


# The refusals of ptrace_obstacle as `python -m refscope attach` prints them
# (its own _print_outcome), for a Yama setting written to a file of ours
# and an identity without CAP_SYS_PTRACE: the kernel's real setting on this
# machine is whatever it is.
OBSTACLE = """
import sys
from refscope import _attach, _processes
scope, pid, uid, euid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
obstacle = _processes.ptrace_obstacle(pid, uid, scope_path=scope, euid=euid, capabilities=0)
class Options: json = False
_attach._print_outcome(Options(), {"ok": False, "pid": pid, "code": obstacle[0], "message": obstacle[1]})
"""


def attach_refusal(scope, pid=1, target_uid=1000, euid=1000):
    with tempfile.NamedTemporaryFile("w", suffix=".ptrace_scope") as f:
        f.write(scope + "\n")
        f.flush()
        return run([os.environ["REFSCOPE_PYTHON"], "-c", OBSTACLE, f.name, str(pid), str(target_uid), str(euid)],
                   env=probe_env()).strip()


def other_python():
    python = os.environ.get("REFSCOPE_OTHER_PYTHON", "")
    if not python or not os.path.exists(python):
        raise unittest.SkipTest("no Python without a probe here (REFSCOPE_OTHER_PYTHON=%r)" % python)
    return python


def attach_without_probe():
    """A real `attach` of a process of a Python the package has no probe for:
    refused before anything is done to the process."""
    sleeper = subprocess.Popen([other_python(), "-c", "import time; time.sleep(120)"])
    try:
        with tempfile.TemporaryDirectory() as tmp:
            return run([os.environ["REFSCOPE_PYTHON"], "-m", "refscope", "attach", str(sleeper.pid),
                        "--address", "unix:" + os.path.join(tmp, "live.sock"),
                        "--token", "00112233445566778899aabbccddeeff"], env=probe_env()).strip()
    finally:
        sleeper.kill()
        sleeper.wait()


def import_under_other_python():
    output = run([other_python(), "-c", "import refscope"], env=probe_env())
    return output.strip().splitlines()[-1]


def newer_snapshot():
    return run([os.environ["REFSCOPE_CLI"], "info", "newer-version.rscope"], cwd=DATA).strip()


CASES = {
    "attach-ptrace-scope-1": lambda: attach_refusal("1"),
    "attach-ptrace-scope-2": lambda: attach_refusal("2"),
    "attach-ptrace-scope-3": lambda: attach_refusal("3"),
    "attach-other-user": lambda: attach_refusal("0", pid=4242, target_uid=1001, euid=1000),
    "attach-no-probe": attach_without_probe,
    "import-other-python": import_under_other_python,
    "newer-snapshot": newer_snapshot,
}


class GuideMessagesTest(unittest.TestCase):
    def test_every_checked_block_has_a_case(self):
        self.assertEqual(sorted(quoted_blocks()), sorted(CASES))

    def test_the_blocks_match_what_the_tools_print(self):
        blocks = quoted_blocks()
        for name, produce in sorted(CASES.items()):
            with self.subTest(name):
                if name not in blocks:
                    self.fail("troubleshooting.md has no block marked 'checked: %s'" % name)
                try:
                    printed = produce()
                except unittest.SkipTest as skipped:
                    self.skipTest(str(skipped))
                self.assertRegex(printed, pattern(blocks[name]),
                                 "the guide quotes\n  %s\nthe tool prints\n  %s" % (blocks[name], printed))

    def test_an_ellipsis_stands_for_any_text_only(self):
        self.assertRegex("a /x/y b", pattern("a … b"))
        self.assertNotRegex("a /x/y c", pattern("a … b"))
        self.assertNotRegex("a (x) b", pattern("a (y) b"))


if __name__ == "__main__":
    unittest.main()

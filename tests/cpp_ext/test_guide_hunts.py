"""The user guide's leak hunts (docs/guide/hunt-*.md, issue 15 item 4): each
chapter's program (programs/hunt_*.py, shown whole in the chapter) runs
twice, with the leak and with its fix, each writing a before and an after
snapshot. The test checks what the chapter says refscope shows, through
refscope-cli (the leaking type's suspects row and its place, the path's
holder and C++ hops; the fix: no such row, no growth), then, where the
window tests are built, runs gui_window_hunts
(tests/gui_window/hunt_window_test.cpp) on the four snapshots: it checks
the same in the real window and takes the chapter's pictures into
$REFSCOPE_GUIDE_IMAGES.

The snapshots are kept in $REFSCOPE_GUIDE_SNAPSHOTS/<chapter>/ (the build
tree's guide/snapshots). PyTorch is only in the Debian 13/testing roots
(packaging/distro-root.sh), where the window tests are not built: there the
torch hunts run and keep their snapshots in the root's build tree; on the
host, a hunt whose library does not import is pictured from those
snapshots when a root has made them ($REFSCOPE_ROOT_GUIDE_SNAPSHOTS, the
roots' guide/snapshots folders of this checkout, joined by ':') and
REFSCOPE_USE_ROOT_SNAPSHOTS=1 says they are this commit's, and skipped
otherwise.

Environment (tests/cpp_ext/CMakeLists.txt): REFSCOPE_CLI, REFSCOPE_FIXTURES,
REFSCOPE_GUIDE_SNAPSHOTS, REFSCOPE_ROOT_GUIDE_SNAPSHOTS, REFSCOPE_WINDOW_TEST
(REFSCOPE_USE_ROOT_SNAPSHOTS from the caller)
(absent without window tests), REFSCOPE_GUIDE_IMAGES, QT_QPA_PLATFORM."""
import functools
import glob
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import unittest

from cpp_ext_support import FIXTURES, cli, cli_json

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
GUIDE = os.path.join(HERE, "..", "..", "docs", "guide")
WINDOW_TEST = os.environ.get("REFSCOPE_WINDOW_TEST", "")
SNAPSHOTS = os.environ.get("REFSCOPE_GUIDE_SNAPSHOTS", "")
# Only when asked (REFSCOPE_USE_ROOT_SNAPSHOTS=1: bootstrap.sh test, right
# after the roots ran): a root's folder is per checkout, not per commit, so
# at other times it may hold an older commit's snapshots.
ROOT_SNAPSHOTS = [d for d in os.environ.get("REFSCOPE_ROOT_GUIDE_SNAPSHOTS", "").split(":")
                  if d and os.environ.get("REFSCOPE_USE_ROOT_SNAPSHOTS") == "1"]

# What each chapter says refscope shows. rank: the place the leaking type's
# row may have at worst. path: words the path to the row's object must contain.
# gone: the type the fix frees, which must grow from before to after with
# the leak and not with the fix (default: the row's type; the Numba program
# keeps ten numbers of each run by design, fixed or not, but not their 8 MB).
HUNTS = {
    "hunt-nanobind": {
        "program": "hunt_nanobind.py", "needs": "_nanobindfix",
        "type": "function", "rank": 1,
        "reason": "probably held by `_nanobindfix.UndescribedWrapper`",
        "path": ["_nanobindfix.UndescribedWrapper"],
    },
    "hunt-numba": {
        "program": "hunt_numba.py", "needs": "numba",
        "type": "numpy.ndarray", "rank": 1,
        "reason": "accumulate in __main__.ENDINGS",
        "path": ["['ENDINGS']"], "gone": "NRT_MemInfo",
        # what each view keeps alive: the path to it ends with these edges
        "retained": "NRT_MemInfo", "retained_edges": [".base", ".base", "<native: meminfo>"],
    },
    "hunt-torch-compile": {
        "program": "hunt_torch_compile.py", "needs": "torch",
        "type": "torch.nn.modules.linear.Linear", "rank": 1,
        "reason": "kept alive only by the state of a callback waiting for",
        "path": ["['_registry']", "functools.partial", "['output_graph']", "finalizer trap"],
    },
    "hunt-pyobject-preservation": {
        "program": "hunt_pyobject_preservation.py", "needs": "torch",
        "type": "__main__.Checkpoint", "rank": 1,
        "reason": "accumulate in __main__.model",
        # the tensor's attribute: ['history'] from its __dict__ or .history
        # from its inline values, as the Python version keeps and reports it
        "path": ["<native: cdata>", "<native: autograd_meta_->grad_>", "<native: pyobj_slot_ (preserved)>",
                 "history"],
    },
}


@functools.lru_cache(maxsize=None)
def importable(module):
    """Whether `module` really imports here: a package can be installed for
    another of the distribution's Pythons (Debian testing's torch and Numba
    are built for one of its two), so finding it is not enough."""
    if importlib.util.find_spec(module) is None:
        return False
    done = subprocess.run([sys.executable, "-c", "import " + module], capture_output=True, timeout=300)
    return done.returncode == 0


def nanobind_fixture_dir():
    """The newest nanobind release's fixture directory with a module for
    this interpreter, or None."""
    found = []
    for path in glob.glob(os.path.join(FIXTURES, "nanobind-*")):
        parts = os.path.basename(path)[len("nanobind-"):].split(".")
        if not all(p.isdigit() for p in parts):
            continue  # not a release folder the probe's CMake makes (2.5.0, 2.12.0...)
        release = tuple(int(p) for p in parts)
        if any(os.path.exists(os.path.join(path, "_nanobindfix" + s))
               for s in importlib.machinery.EXTENSION_SUFFIXES):
            found.append((release, path))
    return max(found)[1] if found else None


def extra_path(hunt):
    return [nanobind_fixture_dir() or ""] if hunt["needs"] == "_nanobindfix" else []


def available(hunt):
    if hunt["needs"] == "_nanobindfix":
        return nanobind_fixture_dir() is not None
    return importable(hunt["needs"])


def run(hunt, folder, fixed):
    """Runs the hunt's program into `folder`; returns its JSON line."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join(extra_path(hunt) + [PROGRAMS, env.get("PYTHONPATH", "")])
    argv = [sys.executable, os.path.join(PROGRAMS, hunt["program"]), folder] + (["--fixed"] if fixed else [])
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (hunt["program"], done.returncode, done.stdout,
                                                          done.stderr[-4000:]))
    info = json.loads(done.stdout.strip().splitlines()[-1])
    with open(os.path.join(folder, "versions.json"), "w") as out:
        json.dump(info, out)
    return info


def pair(folder):
    return [os.path.join(folder, "before.rscope"), os.path.join(folder, "after.rscope")]


class Hunt:
    """Mixed into one TestCase per chapter (below)."""
    name = ""

    @classmethod
    def setUpClass(cls):
        cls.hunt = HUNTS[cls.name]
        cls.folder = None
        if available(cls.hunt):
            if not SNAPSHOTS:
                raise unittest.SkipTest("REFSCOPE_GUIDE_SNAPSHOTS not set")
            cls.folder = os.path.join(SNAPSHOTS, cls.name)
            run(cls.hunt, os.path.join(cls.folder, "leak"), fixed=False)
            run(cls.hunt, os.path.join(cls.folder, "fixed"), fixed=True)
        else:  # made in a test root, if one has run this checkout's suites
            for root in ROOT_SNAPSHOTS:
                made = os.path.join(root, cls.name)
                if all(os.path.exists(p) for p in pair(os.path.join(made, "leak")) + pair(os.path.join(made, "fixed"))):
                    cls.folder = made
                    break

    def setUp(self):
        if self.folder is None:
            self.skipTest("%s does not import here and no test root has made %s's snapshots"
                          " (or REFSCOPE_USE_ROOT_SNAPSHOTS=1 is not set)"
                          % (self.hunt["needs"], self.name))

    def test_the_chapter_shows_the_program(self):
        with open(os.path.join(PROGRAMS, self.hunt["program"])) as source:
            program = source.read()
        with open(os.path.join(GUIDE, self.name + ".md")) as chapter:
            self.assertIn(program, chapter.read(), "the chapter's copy of %s is stale" % self.hunt["program"])

    @unittest.skipUnless(cli(), "REFSCOPE_CLI missing")
    def test_suspects_and_path_name_the_leak(self):
        before, after = pair(os.path.join(self.folder, "leak"))
        rows = cli_json("suspects", after, "--baseline", before, "--top", "0")["rows"]
        place = next((i for i, r in enumerate(rows) if r["type"] == self.hunt["type"]), None)
        self.assertIsNotNone(place, [r["type"] for r in rows[:10]])
        self.assertLess(place, self.hunt["rank"], [r["type"] for r in rows[:place + 1]])
        row = rows[place]
        self.assertEqual(row["confidence"], "high")
        self.assertIn(self.hunt["reason"], row["reason"])
        path = subprocess.run([cli(), "path", after, "--to", row["representative"]["address"]],
                              check=True, capture_output=True, text=True).stdout
        for words in self.hunt["path"]:
            self.assertIn(words, path)
        if "retained" in self.hunt:  # kept alive by such objects: its path runs through the holder
            target = cli_json("path", after, "--type", self.hunt["retained"])
            self.assertTrue(target["found"], target)
            edges = [h["edge"] for h in target["hops"]]
            self.assertIn(self.hunt["path"][0], edges)
            tail = self.hunt["retained_edges"]
            self.assertEqual(edges[-len(tail):], tail)

    @unittest.skipUnless(cli(), "REFSCOPE_CLI missing")
    def test_the_fix_leaves_no_suspect_and_no_growth(self):
        gone = self.hunt.get("gone", self.hunt["type"])
        for kind, grows in (("leak", True), ("fixed", False)):
            before, after = pair(os.path.join(self.folder, kind))
            diff = cli_json("diff", before, after, "--top", "0")
            grew = [t for t in diff["types"] if t["name"] == gone and t["object_delta"] > 0]
            self.assertEqual(bool(grew), grows, (kind, gone))
        # The fixed run has no high-confidence suspect of the freed type.
        before, after = pair(os.path.join(self.folder, "fixed"))
        rows = cli_json("suspects", after, "--baseline", before, "--top", "0")["rows"]
        self.assertFalse([r for r in rows if r["type"] == gone and r["confidence"] == "high"])

    @unittest.skipUnless(WINDOW_TEST, "the window tests are not built here")
    def test_the_window_shows_it_and_takes_the_pictures(self):
        hunt = self.hunt
        env = dict(os.environ, REFSCOPE_HUNT=self.name, REFSCOPE_HUNT_TYPE=hunt["type"],
                   REFSCOPE_HUNT_GONE=hunt.get("gone", hunt["type"]),
                   REFSCOPE_HUNT_RANK=str(hunt["rank"]), REFSCOPE_HUNT_REASON=hunt["reason"],
                   REFSCOPE_HUNT_PATH="|".join(hunt["path"]), REFSCOPE_HUNT_RETAINED=hunt.get("retained", ""),
                   REFSCOPE_HUNT_LEAK=":".join(pair(os.path.join(self.folder, "leak"))),
                   REFSCOPE_HUNT_FIXED=":".join(pair(os.path.join(self.folder, "fixed"))))
        done = subprocess.run([WINDOW_TEST], env=env, capture_output=True, text=True, timeout=600)
        report = (done.stdout + done.stderr)[-6000:]
        self.assertEqual(done.returncode, 0, report)
        # Qt Test passes a skipped function too: this one must have run.
        self.assertIn("PASS   : HuntWindowTest::theChapterShowsTheLeakAndItsFix", done.stdout, report)


for _name in HUNTS:
    _case = type("Test_" + _name.replace("-", "_"), (Hunt, unittest.TestCase), {"name": _name})
    globals()[_case.__name__] = _case
del _case  # unittest would collect it a second time under this name


# Runs wherever the others skip: Python 3.12.1's unittest fails a module
# whose every test skips.
class ProgramsPresent(unittest.TestCase):
    def test_every_hunt_has_its_program(self):
        for hunt in HUNTS.values():
            self.assertTrue(os.path.exists(os.path.join(PROGRAMS, hunt["program"])), hunt["program"])


if __name__ == "__main__":
    unittest.main()

"""The probe's wheel for this interpreter (packaging/make_wheel.py,
docs/packaging.md): what it holds, that packing it again gives the same
bytes, and that it installs, works and uninstalls cleanly in a fresh venv.

The venv part runs the way a user would: a new `python -m venv` (pip from
ensurepip's bundled wheel), `pip install` with PIP_NO_INDEX=1, and programs
started from a temporary directory with PYTHONPATH unset, so the only
refscope they can import is the installed one. An interpreter without
venv/ensurepip skips that part and says so; the contents checks always run
(and keep unittest from failing a run in which every test skipped, as
3.12.1's does).

Environment (set by CTest): REFSCOPE_WHEEL (the wheel), REFSCOPE_CLI
(refscope-cli, optional), and the packer's REFSCOPE_MAKE_WHEEL,
REFSCOPE_PACKAGE_DIR, REFSCOPE_REQUIRES_PYTHON, REFSCOPE_STRIP.
"""

import base64
import csv
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import unittest
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "live"))
from live_support import Receiver, cli, read_snapshot_info  # noqa: E402

WHEEL = os.environ.get("REFSCOPE_WHEEL", "")
PACKAGE_DIR = os.environ.get("REFSCOPE_PACKAGE_DIR", "")
EXTENSION = "_probe" + sysconfig.get_config_var("EXT_SUFFIX")
PTRACE_CODES = ("permission", "ptrace-scope", "ptrace-disabled")

# Run inside the venv from a temporary directory: where refscope came from,
# a snapshot, the headers, and the pytest11 entry point as installed.
PROBE_SCRIPT = textwrap.dedent("""
    import json, sys
    from importlib import metadata
    import refscope
    stats = refscope.snapshot(sys.argv[1], label="from a venv")
    entry_points = [(e.group, e.name, e.value) for e in metadata.distribution("refscope").entry_points]
    print(json.dumps({"file": refscope.__file__, "include": refscope.get_include(),
                      "version": refscope.__version__, "nodes": stats.nodes,
                      "entry_points": entry_points, "sys_path": sys.path}))
""")

# A program to stream from and attach to: says it is ready, then runs Python
# code (a pending call needs that) until a line "exit" arrives.
TARGET_SCRIPT = textwrap.dedent("""
    import json, os, select, sys
    print(json.dumps({"event": "ready", "pid": os.getpid()}), flush=True)
    while True:
        ready, _, _ = select.select([sys.stdin], [], [], 0.05)
        if ready:
            line = sys.stdin.readline()
            if not line or "exit" in line:
                break
""")


def read_wheel():
    with zipfile.ZipFile(WHEEL) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def dist_info_name():
    name, version = os.path.basename(WHEEL).split("-")[:2]
    return "%s-%s.dist-info" % (name, version)


def header_fields(data):
    return [tuple(line.split(": ", 1)) for line in data.decode("utf-8").splitlines() if ": " in line]


class WheelContents(unittest.TestCase):
    """The wheel as a file; runs under every interpreter."""

    def setUp(self):
        if not WHEEL:
            self.fail("REFSCOPE_WHEEL is not set (CTest sets it)")
        self.files = read_wheel()
        self.dist_info = dist_info_name()

    def test_name_and_tags_are_this_interpreters(self):
        tag = "cp%d%d" % sys.version_info[:2]
        name, version, python_tag, abi_tag, platform_tag = os.path.basename(WHEEL)[:-len(".whl")].split("-")
        self.assertEqual((name, python_tag, abi_tag), ("refscope", tag, tag))
        self.assertEqual(platform_tag, sysconfig.get_platform().replace("-", "_").replace(".", "_"))
        wheel = dict(header_fields(self.files[self.dist_info + "/WHEEL"]))
        self.assertEqual(wheel, {"Wheel-Version": "1.0", "Root-Is-Purelib": "false",
                                 "Generator": "refscope packaging/make_wheel.py",
                                 "Tag": "-".join((python_tag, abi_tag, platform_tag))})
        metadata = header_fields(self.files[self.dist_info + "/METADATA"])
        self.assertEqual(metadata[:3], [("Metadata-Version", "2.1"), ("Name", "refscope"), ("Version", version)])
        self.assertIn("Summary", dict(metadata))
        requires = dict(metadata).get("Requires-Python")
        self.assertEqual(requires, os.environ.get("REFSCOPE_REQUIRES_PYTHON", requires))

    def test_package_is_the_build_trees_with_only_this_pythons_extension(self):
        names = set(self.files)
        extensions = sorted(n for n in names if n.endswith(".so"))
        self.assertEqual(extensions, ["refscope/" + EXTENSION])
        for header in ("describe.h", "describe_pybind11.h"):
            self.assertIn("refscope/include/refscope/" + header, names)
        self.assertFalse([n for n in names if "__pycache__" in n or n.endswith(".pyc")])
        if PACKAGE_DIR:
            built = sorted("refscope/" + n for n in os.listdir(PACKAGE_DIR) if n.endswith(".py"))
            self.assertEqual(sorted(n for n in names if n.endswith(".py")), built)
            with open(os.path.join(PACKAGE_DIR, "_version.py"), "rb") as version:
                self.assertEqual(self.files["refscope/_version.py"], version.read())
            if os.environ.get("REFSCOPE_STRIP"):
                # Debug information stays in the build tree (23 MB), not in the wheel.
                self.assertLess(len(self.files["refscope/" + EXTENSION]),
                                os.path.getsize(os.path.join(PACKAGE_DIR, EXTENSION)) // 4)
        # The pytest plugin's entry point comes with its module, never alone
        # (pytest imports every pytest11 entry point when it starts).
        entry_points = self.files.get(self.dist_info + "/entry_points.txt")
        if "refscope/pytest_plugin.py" in names:
            self.assertEqual(entry_points, b"[pytest11]\nrefscope = refscope.pytest_plugin\n")
        else:
            self.assertIsNone(entry_points)

    def test_record_lists_every_file_with_its_hash_and_size(self):
        record_name = self.dist_info + "/RECORD"
        self.assertEqual(list(self.files)[-1], record_name)
        rows = list(csv.reader(io.StringIO(self.files[record_name].decode("utf-8"))))
        self.assertEqual(rows[-1], [record_name, "", ""])
        listed = {}
        for path, digest, size in rows[:-1]:
            data = self.files[path]
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            self.assertEqual((digest, int(size)), ("sha256=" + expected, len(data)), path)
            listed[path] = True
        self.assertEqual(sorted(listed), sorted(p for p in self.files if p != record_name))

    def test_entries_are_sorted_with_fixed_times_and_modes(self):
        with zipfile.ZipFile(WHEEL) as archive:
            infos = archive.infolist()
        names = [i.filename for i in infos]
        package = [n for n in names if n.startswith("refscope/")]
        self.assertEqual(package, sorted(package))
        self.assertEqual(names[:len(package)], package)  # dist-info last
        self.assertEqual({i.date_time for i in infos}, {(1980, 1, 1, 0, 0, 0)})
        for info in infos:
            mode = info.external_attr >> 16
            self.assertEqual(mode, 0o100755 if info.filename.endswith(".so") else 0o100644, info.filename)

    def test_packing_again_gives_the_same_bytes(self):
        script = os.environ.get("REFSCOPE_MAKE_WHEEL")
        if not script:
            self.skipTest("REFSCOPE_MAKE_WHEEL is not set")
        out = tempfile.mkdtemp(prefix="refscope-wheel-again-")
        self.addCleanup(shutil.rmtree, out)
        command = [sys.executable, "-B", script, "--package-dir", PACKAGE_DIR, "--out-dir", out,
                   "--requires-python", os.environ.get("REFSCOPE_REQUIRES_PYTHON", "")]
        if os.environ.get("REFSCOPE_STRIP"):
            command += ["--strip", os.environ["REFSCOPE_STRIP"]]
        environment = dict(os.environ)
        environment.pop("SOURCE_DATE_EPOCH", None)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=environment, timeout=120)
        with open(WHEEL, "rb") as built, open(os.path.join(out, os.path.basename(WHEEL)), "rb") as again:
            self.assertTrue(built.read() == again.read(), "packing the same build twice differs")


def user_environment():
    """The environment of someone outside this build: no PYTHONPATH, no
    user site, no pip configuration or index."""
    environment = {k: v for k, v in os.environ.items()
                   if not k.startswith(("PYTHON", "PIP_", "REFSCOPE_")) and k != "VIRTUAL_ENV"}
    environment.update(PYTHONNOUSERSITE="1", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
                       PIP_NO_CACHE_DIR="1", PIP_CONFIG_FILE=os.devnull)
    return environment


def run(command, cwd, timeout=180, check=True, env=None):
    done = subprocess.run(command, cwd=cwd, env=env or user_environment(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=timeout)
    output = done.stdout.decode("utf-8", "replace")
    if check and done.returncode != 0:
        raise AssertionError("%s exited with %d:\n%s" % (" ".join(command), done.returncode, output))
    return done.returncode, output


class InstalledInAVenv(unittest.TestCase):
    """One venv per run, used by the tests in name order (unittest sorts
    them): install, snapshot, stream, attach, then uninstall."""

    @classmethod
    def setUpClass(cls):
        missing = [m for m in ("venv", "ensurepip") if importlib.util.find_spec(m) is None]
        if missing:
            raise unittest.SkipTest("%s has no %s module (Debian: apt install python3-venv); "
                                    "the venv install is not tested" % (sys.executable, " or ".join(missing)))
        cls.dir = tempfile.mkdtemp(prefix="refscope-wheel-venv-")
        cls.venv = os.path.join(cls.dir, "venv")
        cls.work = os.path.join(cls.dir, "work")
        os.mkdir(cls.work)
        status, output = run([sys.executable, "-m", "venv", cls.venv], cls.work, check=False)
        if status != 0:
            shutil.rmtree(cls.dir)
            if "ensurepip" in output:
                raise unittest.SkipTest("%s cannot make a venv with pip (ensurepip is not available; "
                                        "Debian: apt install python3-venv):\n%s" % (sys.executable, output))
            raise AssertionError("python -m venv failed:\n" + output)
        cls.python = os.path.join(cls.venv, "bin", "python")
        run([cls.python, "-m", "pip", "install", WHEEL], cls.work)
        _, platlib = run([cls.python, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"],
                         cls.work)
        cls.site_packages = os.path.realpath(platlib.strip())
        for name in ("probe.py", "target.py"):
            with open(os.path.join(cls.work, name), "w") as f:
                f.write(PROBE_SCRIPT if name == "probe.py" else TARGET_SCRIPT)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def require_cli(self):
        if not cli():
            self.skipTest("REFSCOPE_CLI is not set (refscope-cli not built)")

    def test_1_imports_from_the_venv_and_snapshots(self):
        snapshot = os.path.join(self.work, "heap.rscope")
        _, output = run([self.python, "probe.py", snapshot], self.work)
        facts = json.loads(output.strip().splitlines()[-1])
        package = os.path.join(self.site_packages, "refscope")
        self.assertEqual(os.path.dirname(os.path.realpath(facts["file"])), package)
        self.assertEqual(os.path.realpath(facts["include"]), os.path.join(package, "include"))
        self.assertTrue(os.path.isfile(os.path.join(facts["include"], "refscope", "describe.h")))
        self.assertEqual(facts["version"], os.path.basename(WHEEL).split("-")[1])
        self.assertGreater(facts["nodes"], 1000)
        plugin_shipped = os.path.exists(os.path.join(package, "pytest_plugin.py"))
        self.assertEqual(facts["entry_points"],
                         [["pytest11", "refscope", "refscope.pytest_plugin"]] if plugin_shipped else [])
        if cli():
            info = read_snapshot_info(snapshot)
            self.assertEqual(info["header"]["label"], "from a venv")
            self.assertTrue(info["header"]["python_version"].startswith("%d.%d." % sys.version_info[:2]),
                            info["header"])
            self.assertEqual(info["counts"]["objects"], facts["nodes"])

    def start_target(self, *command, env=None):
        target = subprocess.Popen(list(command), cwd=self.work, env=env or user_environment(),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

        def finish():
            try:
                target.stdin.write(b"exit\n")
                target.stdin.close()
                target.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                target.kill()
                target.wait()
            target.stdout.close()
        self.addCleanup(finish)
        ready = json.loads(target.stdout.readline().decode())
        self.assertEqual(ready, {"event": "ready", "pid": target.pid})
        return target

    def snapshot_through(self, receiver, pid):
        """Asks the connected `pid` for a snapshot; checks the saved file."""
        connected = receiver.out.wait_event("connected", pid=pid, timeout=60)
        receiver.command("snapshot %d" % connected["connection"])
        saved = receiver.out.wait_event("saved", connection=connected["connection"], timeout=60)
        info = read_snapshot_info(saved["path"])
        self.assertEqual(info["header"]["pid"], pid)
        self.assertEqual(info["counts"]["objects"], saved["nodes"])
        return connected

    def test_2_streams_to_a_receiver(self):
        self.require_cli()
        receiver = Receiver()
        self.addCleanup(receiver.close)
        environment = user_environment()
        environment.update(receiver.env())
        target = self.start_target(self.python, "-m", "refscope", "run", "target.py", env=environment)
        connected = self.snapshot_through(receiver, target.pid)
        self.assertFalse(connected["attached"])

    def test_3_attaches_to_a_program_that_never_imported_it(self):
        self.require_cli()
        receiver = Receiver()
        self.addCleanup(receiver.close)
        target = self.start_target(self.python, "target.py")
        _, output = run([self.python, "-m", "refscope", "attach", str(target.pid), "--address",
                         receiver.address, "--token-file", receiver.token_file, "--json"],
                        self.work, check=False)
        outcome = json.loads(output.strip().splitlines()[-1])
        if not outcome.get("ok") and outcome.get("code") in PTRACE_CODES + ("no-gdb",):
            self.skipTest("attach is not possible here: " + outcome["message"])
        self.assertTrue(outcome.get("ok"), output)
        connected = self.snapshot_through(receiver, target.pid)
        self.assertTrue(connected["attached"])

    def test_4_uninstall_leaves_nothing_behind(self):
        run([self.python, "-m", "pip", "uninstall", "-y", "refscope"], self.work)
        left = []
        for root, dirs, files in os.walk(self.venv):
            left += [os.path.join(root, n) for n in dirs + files if "refscope" in n.lower()]
        self.assertEqual(left, [])
        status, output = run([self.python, "-c", "import refscope"], self.work, check=False)
        self.assertNotEqual(status, 0)
        self.assertIn("No module named 'refscope'", output)


if __name__ == "__main__":
    unittest.main()

"""The Debian package and its .tar.gz (packaging/make_deb.py,
docs/packaging.md "The Debian package"): packs the build into a temporary
folder, checks the control fields, that apt on this machine resolves the
Depends, the contents, and that packing again gives the same bytes; then
installs the package with dpkg into a scratch root and runs the installed
CLI, app (headless) and probe from there, with nothing of the build tree on
any path, including an attach to a program of each built Python as the
installed app runs it; and checks the desktop integration: the AppStream metainfo
validates, and the shared-mime-info database built from the installed
files types a snapshot by its magic bytes, without the extension, and
names the app as its handler.

Environment (tests/packaging/CMakeLists.txt): REFSCOPE_MAKE_DEB,
REFSCOPE_BUILD_DIR, REFSCOPE_VERSION, REFSCOPE_CMAKE (make_deb.py's), and
REFSCOPE_PYTHONS (the interpreters the probe was built for, ':'-separated).
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "live"))
from live_support import Receiver, read_snapshot_info  # noqa: E402
from test_wheel import PTRACE_CODES, TARGET_SCRIPT  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SNAPSHOT = os.path.abspath(os.path.join(HERE, "..", "data", "good-v1.3.rscope"))
BUILD_DIR = os.environ.get("REFSCOPE_BUILD_DIR", "")
VERSION = os.environ.get("REFSCOPE_VERSION", "")
PYTHONS = [p for p in os.environ.get("REFSCOPE_PYTHONS", "").split(":") if p]
MIME_TYPE = "application/x-refscope-snapshot"


def run(command, **kwargs):
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    done = subprocess.run(command, **kwargs)
    if done.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s%s" % (command, done.returncode, done.stdout, done.stderr))
    return done


def pack(out_dir):
    run([sys.executable, "-B", os.environ["REFSCOPE_MAKE_DEB"], "--build-dir", BUILD_DIR,
         "--version", VERSION, "--cmake", os.environ.get("REFSCOPE_CMAKE", "cmake"), "--out-dir", out_dir])
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    name = "refscope_%s_%s" % (VERSION, arch)
    return os.path.join(out_dir, name + ".deb"), os.path.join(out_dir, name + ".tar.gz"), name


def clean_environment(**extra):
    """No path into the build tree: the installed files must stand alone."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("LD_LIBRARY_PATH", "PYTHONPATH", "REFSCOPE_PYTHON", "REFSCOPE_PYTHON_PACKAGE_DIR")}
    env.update(extra)
    return env


@unittest.skipUnless(shutil.which("dpkg-deb") and os.environ.get("REFSCOPE_MAKE_DEB"),
                     "no dpkg-deb here, or REFSCOPE_MAKE_DEB is not set")
class DebianPackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="refscope-deb-test-")
        cls.deb, cls.tarball, cls.name = pack(os.path.join(cls.work, "out"))
        # Installed into a scratch root by dpkg itself, with a database of
        # its own (empty, so the Depends are not checked there: apt does
        # that in test_apt_resolves_the_depends).
        cls.root = os.path.join(cls.work, "root")
        admin = os.path.join(cls.root, "var/lib/dpkg")
        for sub in ("updates", "info"):
            os.makedirs(os.path.join(admin, sub))
        for name in ("status", "available"):
            open(os.path.join(admin, name), "w").close()
        command = ["dpkg", "--root=" + cls.root, "--force-depends", "--force-not-root",
                   "--force-script-chrootless", "--log=/dev/null", "--install", cls.deb]
        cls.install = subprocess.run(command, capture_output=True, text=True)
        cls.usr = os.path.join(cls.root, "usr")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.install.returncode, 0, self.install.stdout + self.install.stderr)

    def field(self, name):
        return run(["dpkg-deb", "--field", self.deb, name]).stdout.strip()

    def test_control_fields(self):
        self.assertEqual(self.field("Package"), "refscope")
        self.assertEqual(self.field("Version"), VERSION)
        self.assertEqual(self.field("Architecture"), run(["dpkg", "--print-architecture"]).stdout.strip())
        depends = self.field("Depends")
        # The libraries the binaries link, as dpkg-shlibdeps names them.
        for package in ("libc6", "libstdc++6", "libzstd1", "libqt6widgets6", "libqt6svg6", "libgvc6", "libcgraph6"):
            self.assertRegex(depends, r"(^|, )%s( |,|$)" % re.escape(package))
        self.assertIn("python3", self.field("Recommends"))
        self.assertGreater(int(self.field("Installed-Size")), 1000)

    @unittest.skipUnless(shutil.which("apt-get") and os.path.isdir("/var/lib/apt/lists"), "no apt here")
    def test_apt_resolves_the_depends(self):
        # A simulated install of the file: apt must find every dependency
        # (this machine is Debian 12, the target of the Depends).
        done = subprocess.run(["apt-get", "--simulate", "-o", "Debug::NoLocking=1", "install", self.deb],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertRegex(done.stdout, r"(?m)^Inst refscope ")

    def test_contents(self):
        files = {os.path.relpath(os.path.join(folder, name), self.root)
                 for folder, dirs, names in os.walk(self.root) for name in names + dirs}
        for path in ("usr/bin/refscope", "usr/bin/refscope-cli",
                     "usr/share/applications/refscope.desktop",
                     "usr/share/icons/hicolor/scalable/apps/refscope.svg",
                     "usr/share/mime/packages/refscope-snapshot.xml",
                     "usr/share/metainfo/refscope.metainfo.xml",
                     "usr/share/man/man1/refscope.1.gz", "usr/share/man/man1/refscope-cli.1.gz",
                     "usr/share/bash-completion/completions/refscope-cli",
                     "usr/lib/refscope/python/refscope/__init__.py",
                     "usr/lib/refscope/python/refscope/include/refscope/describe.h",
                     "usr/lib/python3/dist-packages/refscope"):
            self.assertIn(path, files)
        self.assertEqual(os.path.realpath(os.path.join(self.usr, "lib/python3/dist-packages/refscope")),
                         os.path.realpath(os.path.join(self.usr, "lib/refscope/python/refscope")))
        # The wheels as built, and each wheel's extension in the one package folder.
        built = sorted(glob.glob(os.path.join(BUILD_DIR, "wheels", "refscope-*.whl")))
        self.assertTrue(built)
        installed = os.path.join(self.usr, "lib/refscope/wheels")
        self.assertEqual(sorted(os.listdir(installed)), [os.path.basename(w) for w in built])
        for wheel in built:
            with open(wheel, "rb") as a, open(os.path.join(installed, os.path.basename(wheel)), "rb") as b:
                self.assertEqual(a.read(), b.read())
            with zipfile.ZipFile(wheel) as z:
                extension = [n for n in z.namelist() if n.startswith("refscope/_probe.")]
                self.assertEqual(len(extension), 1)
                with open(os.path.join(self.usr, "lib/refscope/python", extension[0]), "rb") as f:
                    self.assertEqual(f.read(), z.read(extension[0]))
        # Stripped, and no run path into the build tree.
        for binary in ("refscope", "refscope-cli"):
            dynamic = run(["readelf", "-d", "-S", os.path.join(self.usr, "bin", binary)]).stdout
            self.assertNotIn(".debug_info", dynamic)
            self.assertNotIn("RUNPATH", dynamic)
            self.assertNotIn("RPATH", dynamic)

    def test_tarball_holds_the_same_tree(self):
        # Entries as "top/usr/..." in the tarball and "./usr/..." in the deb.
        in_tar = {p.rstrip("/").split("/", 1)[1]
                  for p in run(["tar", "-tzf", self.tarball]).stdout.split() if "/" in p.rstrip("/")}
        data = subprocess.run(["dpkg-deb", "--fsys-tarfile", self.deb], capture_output=True, check=True).stdout
        in_deb = {p.rstrip("/")[2:] for p in run(["tar", "-t"], input=data, text=False).stdout.decode().split()
                  if p.rstrip("/") != "."}
        self.assertIn("usr/bin/refscope", in_tar)
        self.assertEqual(in_tar, in_deb)

    def test_packing_again_gives_the_same_bytes(self):
        deb, tarball, _ = pack(os.path.join(self.work, "again"))
        for first, second in ((self.deb, deb), (self.tarball, tarball)):
            with open(first, "rb") as a, open(second, "rb") as b:
                self.assertTrue(a.read() == b.read(), "%s differs from a second packing" % os.path.basename(first))

    def test_installed_cli(self):
        cli = os.path.join(self.usr, "bin/refscope-cli")
        env = clean_environment()
        self.assertEqual(run([cli, "--version"], env=env).stdout.strip(), "refscope-cli " + VERSION)
        summary = run([cli, "summary", SNAPSHOT], env=env, cwd=self.work).stdout
        self.assertIn("objects", summary)
        # Every library it needs is the system's.
        self.assertNotIn("not found", run(["ldd", cli]).stdout)

    def test_installed_app_headless(self):
        app = os.path.join(self.usr, "bin/refscope")
        home = os.path.join(self.work, "home")
        os.makedirs(home, exist_ok=True)
        env = clean_environment(QT_QPA_PLATFORM="offscreen", HOME=home, XDG_CONFIG_HOME=home + "/config",
                                XDG_DATA_HOME=home + "/data", XDG_CACHE_HOME=home + "/cache")
        self.assertEqual(run([app, "--version"], env=env).stdout.strip(), "refscope " + VERSION)
        picture = os.path.join(self.work, "window.png")
        done = run([app, SNAPSHOT, "--select-top-suspect", "--print-path", "--screenshot", picture,
                    "--quit-after-screenshot", "--window-size", "1200x800"], env=env, cwd=self.work, timeout=120)
        self.assertIn("→", done.stdout)  # the retention path, hop by hop
        with open(picture, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertNotIn("not found", run(["ldd", app]).stdout)

    def test_installed_probe_for_each_python(self):
        # The package folder the app puts on PYTHONPATH for attach
        # (app/gui/session/probe_location.cpp), with every built Python.
        package = os.path.join(self.usr, "lib/refscope/python")
        cli = os.path.join(self.usr, "bin/refscope-cli")
        program = os.path.join(self.work, "program.py")
        with open(program, "w") as f:
            f.write("class Kept:\n    pass\nkept = [Kept() for _ in range(10)]\n")
        for python in PYTHONS:
            with self.subTest(python=python):
                out = os.path.join(self.work, "probe-%s.rscope" % os.path.basename(python))
                env = clean_environment(PYTHONPATH=package, PYTHONDONTWRITEBYTECODE="1")
                where = run([python, "-c", "import refscope; print(refscope.__file__)"], env=env, cwd=self.work)
                self.assertTrue(where.stdout.strip().startswith(package + "/"), where.stdout)
                run([python, "-m", "refscope", "run", program, "--snapshot-at-exit", out], env=env, cwd=self.work)
                summary = run([cli, "summary", out, "--top", "0"], env=clean_environment()).stdout
                self.assertRegex(summary, r"(?m)^ +10 .* __main__\.Kept$")

    @unittest.skipUnless(os.access("/usr/bin/python3", os.X_OK) and shutil.which("gdb"),
                         "no Debian python3 or no gdb here")
    def test_attach_as_the_installed_app_does(self):
        # The command "Attach to process…" runs from an installed app
        # (app/gui/session/probe_location.cpp): /usr/bin/python3 with the
        # installed package folder on PYTHONPATH, against a target of each
        # Python the package has a probe for; the snapshot goes to the
        # installed refscope-cli's listener.
        package = os.path.join(self.usr, "lib/refscope/python")
        os.environ["REFSCOPE_CLI"] = os.path.join(self.usr, "bin/refscope-cli")  # for Receiver
        target_script = os.path.join(self.work, "target.py")
        with open(target_script, "w") as f:
            f.write(TARGET_SCRIPT)
        for python in PYTHONS:
            with self.subTest(target=python):
                receiver = Receiver()
                self.addCleanup(receiver.close)
                target = subprocess.Popen([python, target_script], cwd=self.work, env=clean_environment(),
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL)
                try:
                    target.stdout.readline()  # ready
                    done = subprocess.run(
                        ["/usr/bin/python3", "-m", "refscope", "attach", str(target.pid), "--address",
                         receiver.address, "--token-file", receiver.token_file, "--json"],
                        cwd=self.work, env=clean_environment(PYTHONPATH=package), capture_output=True,
                        text=True, timeout=180)
                    outcome = json.loads(done.stdout.strip().splitlines()[-1])
                    if not outcome.get("ok") and outcome.get("code") in PTRACE_CODES:
                        self.skipTest("attach is not possible here: " + outcome["message"])
                    self.assertTrue(outcome.get("ok"), done.stdout + done.stderr)
                    connected = receiver.out.wait_event("connected", pid=target.pid, timeout=60)
                    self.assertTrue(connected["attached"])
                    receiver.command("snapshot %d" % connected["connection"])
                    saved = receiver.out.wait_event("saved", connection=connected["connection"], timeout=60)
                    self.assertEqual(read_snapshot_info(saved["path"])["header"]["pid"], target.pid)
                finally:
                    target.stdin.close()
                    target.wait(timeout=30)
                    target.stdout.close()

    @unittest.skipUnless(os.access("/usr/bin/python3", os.X_OK), "no Debian python3 here")
    def test_system_python_finds_the_probe_in_dist_packages(self):
        # As installed in /, Debian's python3 has dist-packages on its path;
        # in the scratch root, that folder is named explicitly.
        env = clean_environment(PYTHONPATH=os.path.join(self.usr, "lib/python3/dist-packages"))
        done = run(["/usr/bin/python3", "-c", "import refscope, sys; print(refscope.__version__)"],
                   env=env, cwd=self.work)
        self.assertEqual(done.stdout.strip(), VERSION)

    @unittest.skipUnless(shutil.which("appstreamcli"), "no appstreamcli here")
    def test_appstream_metainfo_validates(self):
        # The one warning lowered: the id is the desktop file's name, not
        # reverse DNS (resources/refscope.metainfo.xml says why).
        run(["appstreamcli", "validate", "--no-net", "--override=cid-desktopapp-is-not-rdns=info",
             os.path.join(self.usr, "share/metainfo/refscope.metainfo.xml")])

    @unittest.skipUnless(shutil.which("desktop-file-validate"), "no desktop-file-validate here")
    def test_desktop_entry_validates(self):
        run(["desktop-file-validate", os.path.join(self.usr, "share/applications/refscope.desktop")])

    @unittest.skipUnless(shutil.which("update-mime-database") and shutil.which("gio"),
                         "no update-mime-database or gio here")
    def test_snapshots_are_typed_by_magic_and_extension(self):
        share = os.path.join(self.usr, "share")
        run(["update-mime-database", os.path.join(share, "mime")])
        # Only the scratch root's data: the machine's own mime database and
        # desktop files must not answer for it. PATH: the entry's TryExec.
        home = os.path.join(self.work, "mime-home")
        os.makedirs(home, exist_ok=True)
        env = clean_environment(XDG_DATA_DIRS=share, XDG_DATA_HOME=home, HOME=home,
                                PATH=os.path.join(self.usr, "bin") + os.pathsep + os.environ["PATH"])
        files = os.path.join(self.work, "typed")
        os.makedirs(files, exist_ok=True)
        no_extension = os.path.join(files, "heap-snapshot")
        shutil.copyfile(SNAPSHOT, no_extension)
        # A .rscope file whose first bytes are not the magic: by name only.
        by_name = os.path.join(files, "bad-magic.rscope")
        shutil.copyfile(os.path.join(os.path.dirname(SNAPSHOT), "bad-magic.rscope"), by_name)
        with open(by_name, "rb") as f:
            self.assertNotEqual(f.read(8), b"RSCOPE\r\n")
        not_a_snapshot = os.path.join(files, "notes")
        with open(not_a_snapshot, "w") as f:
            f.write("RSCOPE is not at the start here\n")
        for path, expected in ((no_extension, MIME_TYPE), (by_name, MIME_TYPE), (not_a_snapshot, "text/plain")):
            with self.subTest(file=os.path.basename(path)):
                info = run(["gio", "info", "--attributes=standard::content-type", path], env=env).stdout
                self.assertIn("standard::content-type: %s\n" % expected, info)

        # Double-click: GIO finds a type's handlers in applications/
        # mimeinfo.cache, which dpkg's trigger writes with
        # update-desktop-database from the entries' MimeType; where that
        # tool is missing (desktop-file-utils, not on every machine), the
        # same cache is written here from the installed entry.
        applications = os.path.join(share, "applications")
        if shutil.which("update-desktop-database"):
            run(["update-desktop-database", applications])
        else:
            with open(os.path.join(applications, "refscope.desktop")) as f:
                types = [line.split("=", 1)[1].strip() for line in f if line.startswith("MimeType=")]
            self.assertEqual(types, [MIME_TYPE + ";"])
            with open(os.path.join(applications, "mimeinfo.cache"), "w") as f:
                f.write("[MIME Cache]\n%s=refscope.desktop;\n" % MIME_TYPE)
        handlers = run(["gio", "mime", MIME_TYPE], env=env).stdout
        self.assertIn("refscope.desktop", handlers)

if __name__ == "__main__":
    unittest.main()

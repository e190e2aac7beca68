"""Packs the installed tree of a build into a Debian package and a .tar.gz of
the same tree (docs/packaging.md, "The Debian package").

    python3 packaging/make_deb.py --build-dir build/dev --version 0.1.0 \
        --out-dir build/dev/packages
    -> build/dev/packages/refscope_0.1.0_amd64.deb, refscope_0.1.0_amd64.tar.gz

The tree is `cmake --install --prefix /usr --strip` of the build (the
install rules of app/ and packaging/debian.cmake), plus what only a Debian
system wants: man pages compressed, the probe linked into the system
Python's dist-packages, a DEBIAN/control whose Depends come from
dpkg-shlibdeps (the libraries the binaries and extensions link, as the
Debian packages that provide them), and DEBIAN/md5sums.

Reproducible: every time in both archives is SOURCE_DATE_EPOCH (else the
time of the checkout's last commit), owners are root and modes are fixed,
so the same build gives the same bytes. Standard library and dpkg tools only.
"""

import argparse
import gzip
import hashlib
import os
import stat
import subprocess
import sys
import tarfile
import tempfile

PACKAGE = "refscope"
# The probe's folder (packaging/debian.cmake) and where Debian's python3
# looks for packages: the link makes `python3 -m refscope` work for the
# system Python without PYTHONPATH.
PROBE_PACKAGE = "usr/lib/refscope/python/refscope"
DIST_PACKAGES_LINK = "usr/lib/python3/dist-packages/refscope"
# Attach (python -m refscope attach, the app's "Attach to process…") runs the
# system Python and gdb; the app and CLI work without them.
RECOMMENDS = "python3, gdb"
MAINTAINER = "refscope developers <refscope@invalid>"
DESCRIPTION = """\
heap and reference-graph viewer for Python processes
 refscope explains why Python objects stay alive: retention paths from the
 garbage collector's roots, leak suspects ranked by evidence, references
 held from C and C++ extensions, reference cycles, and the reference graph
 drawn with Graphviz.
 .
 This package holds the desktop app (refscope), the command-line tool
 (refscope-cli) and the probe that takes snapshots inside a Python process,
 for the system's python3 and, as wheels in /usr/lib/refscope/wheels, for
 the other CPython versions it was built for."""


def run(command, **kwargs):
    return subprocess.run(command, check=True, **kwargs)


def source_date_epoch(source_dir):
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    done = subprocess.run(["git", "-C", source_dir, "log", "-1", "--format=%ct"],
                          capture_output=True, text=True)
    text = done.stdout.strip()
    if done.returncode != 0 or not text.isdigit():
        raise SystemExit("make_deb.py: set SOURCE_DATE_EPOCH (not a git checkout: %s)" % source_dir)
    return int(text)


def install_tree(cmake, build_dir, root):
    """The build's install rules, into root/usr, binaries stripped."""
    run([cmake, "--install", build_dir, "--prefix", "/usr", "--strip"],
        env=dict(os.environ, DESTDIR=root), stdout=subprocess.DEVNULL)
    man1 = os.path.join(root, "usr/share/man/man1")
    for name in sorted(os.listdir(man1)):
        if name.endswith(".1"):
            path = os.path.join(man1, name)
            with open(path, "rb") as f:
                data = f.read()
            # mtime 0 in the gzip header: Debian policy's "gzip -9n".
            with open(path + ".gz", "wb") as f:
                with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as z:
                    z.write(data)
            os.unlink(path)
    if not os.path.isfile(os.path.join(root, PROBE_PACKAGE, "__init__.py")):
        raise SystemExit("make_deb.py: the install has no probe in /%s (no wheels built?)" % PROBE_PACKAGE)
    link = os.path.join(root, DIST_PACKAGES_LINK)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    os.symlink(os.path.relpath(os.path.join(root, PROBE_PACKAGE), os.path.dirname(link)), link)


def normalise(root):
    """Modes that do not depend on the umask."""
    for folder, dirs, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            executable = os.stat(path).st_mode & stat.S_IXUSR
            os.chmod(path, 0o755 if executable else 0o644)


def elf_files(root):
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    found.append(path)
    return sorted(found)


def shlib_depends(root):
    """Depends from dpkg-shlibdeps (dpkg-dev, which build-essential brings):
    the Debian packages (with versions) of the libraries the binaries and
    the probe's extensions link. Python's
    own symbols in the extensions come from the interpreter that loads them,
    so their warnings are expected and hidden."""
    with tempfile.TemporaryDirectory() as work:
        # dpkg-shlibdeps reads the source package's debian/control.
        os.makedirs(os.path.join(work, "debian"))
        with open(os.path.join(work, "debian/control"), "w") as f:
            f.write("Source: %s\n\nPackage: %s\nArchitecture: any\n" % (PACKAGE, PACKAGE))
        done = run(["dpkg-shlibdeps", "-O", "--warnings=0"] + elf_files(root),
                   cwd=work, capture_output=True, text=True)
    for line in done.stdout.splitlines():
        if line.startswith("shlibs:Depends="):
            return line.split("=", 1)[1].strip()
    raise SystemExit("make_deb.py: dpkg-shlibdeps gave no Depends:\n" + done.stdout + done.stderr)


def installed_size_kib(root):
    """As dpkg-gencontrol counts it: each file's size in KiB, rounded up,
    and one for each directory and symbolic link."""
    total = 0
    for folder, _, files in os.walk(root):
        total += 1
        for name in files:
            path = os.path.join(folder, name)
            total += 1 if os.path.islink(path) else (os.path.getsize(path) + 1023) // 1024
    return total


def write_control(root, version, architecture):
    sums = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as f:
                sums.append("%s  %s\n" % (hashlib.md5(f.read()).hexdigest(), os.path.relpath(path, root)))
    fields = [
        ("Package", PACKAGE),
        ("Version", version),
        ("Architecture", architecture),
        ("Maintainer", MAINTAINER),
        ("Installed-Size", str(installed_size_kib(root))),
        ("Depends", shlib_depends(root)),
        ("Recommends", RECOMMENDS),
        ("Section", "devel"),
        ("Priority", "optional"),
        ("Description", DESCRIPTION),
    ]
    debian = os.path.join(root, "DEBIAN")
    os.makedirs(debian)
    with open(os.path.join(debian, "control"), "w") as f:
        f.write("".join("%s: %s\n" % field for field in fields))
    with open(os.path.join(debian, "md5sums"), "w") as f:
        f.write("".join(sorted(sums, key=lambda line: line.split("  ", 1)[1])))
    for name in ("control", "md5sums"):
        os.chmod(os.path.join(debian, name), 0o644)


def write_tarball(root, top, path, epoch):
    """root's usr/ under top/, sorted, owned by root, every time epoch."""
    def entry(info):
        info.uid = info.gid = 0
        info.uname = info.gname = "root"
        info.mtime = min(info.mtime, epoch)
        return info

    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as z:
            with tarfile.open(fileobj=z, mode="w", format=tarfile.GNU_FORMAT) as tar:
                tar.add(root, arcname=top, recursive=False, filter=entry)
                for folder, dirs, files in os.walk(os.path.join(root, "usr")):
                    dirs.sort()
                    relative = os.path.relpath(folder, root)
                    tar.add(folder, arcname=os.path.join(top, relative), recursive=False, filter=entry)
                    for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]):
                        tar.add(os.path.join(folder, name), arcname=os.path.join(top, relative, name),
                                recursive=False, filter=entry)
                    dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--cmake", default="cmake", help="the cmake that configured the build")
    parser.add_argument("--source-dir", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()

    architecture = run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    epoch = source_date_epoch(args.source_dir)
    name = "%s_%s_%s" % (PACKAGE, args.version, architecture)
    os.makedirs(args.out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=args.out_dir, prefix=".staging-") as work:
        root = os.path.join(work, name)
        os.makedirs(root)
        install_tree(args.cmake, os.path.abspath(args.build_dir), root)
        normalise(root)
        # The tarball first: it has no DEBIAN/.
        tarball = os.path.join(work, name + ".tar.gz")
        write_tarball(root, name, tarball, epoch)
        write_control(root, args.version, architecture)
        deb = os.path.join(work, name + ".deb")
        # dpkg-deb clamps every file time to SOURCE_DATE_EPOCH.
        run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", root, deb],
            env=dict(os.environ, SOURCE_DATE_EPOCH=str(epoch)), stdout=subprocess.DEVNULL)
        for made in (deb, tarball):
            os.replace(made, os.path.join(args.out_dir, os.path.basename(made)))
    for suffix in (".deb", ".tar.gz"):
        print(os.path.join(args.out_dir, name + suffix))


if __name__ == "__main__":
    sys.exit(main())

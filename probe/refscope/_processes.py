"""The facts attach decides with, read from /proc and the environment:
which processes are Python and of what version, which probes this package
has built, whether the kernel lets us ptrace a process (Yama, capabilities,
another tracer), and how to run the bootstrap in it. Shared by `attach` and
`processes` (_attach.py); nothing here touches the target.
"""

import glob
import os
import re

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

CAP_SYS_PTRACE = 19


class AttachError(Exception):
    """Attach cannot work; `code` names the reason for programs (the app)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _read(path, limit=1 << 20):
    with open(path, "rb") as f:
        return f.read(limit)


def version_from_name(name):
    """"python3.11" -> (3, 11), "libpython3.12.so.1.0" -> (3, 12), else None."""
    match = re.match(r"^(?:lib)?python(\d+)\.(\d+)", os.path.basename(name))
    return (int(match.group(1)), int(match.group(2))) if match else None


def _is_python_name(name):
    return re.match(r"^python(\d+(\.\d+)?[dm]?)?$", os.path.basename(name)) is not None


def process_facts(pid):
    """pid, uid, user, executable, argv, version (major, minor) or None,
    embedded; raises AttachError("gone"/"not-python")."""
    base = "/proc/%d" % pid
    try:
        uid = os.stat(base).st_uid
    except FileNotFoundError:
        raise AttachError("gone", "no process %d (it exited, or the pid is wrong)" % pid)
    try:
        argv = [a.decode("utf-8", "replace") for a in _read(base + "/cmdline").split(b"\0") if a]
    except OSError:
        argv = []
    try:
        executable = os.readlink(base + "/exe")
    except OSError:
        executable = ""
    if executable.endswith(" (deleted)"):
        executable = executable[:-len(" (deleted)")]
    name = executable or (argv[0] if argv else "")
    version = version_from_name(name)
    embedded = False
    if version is None:
        try:
            for line in _read(base + "/maps", 8 << 20).decode("utf-8", "replace").splitlines():
                if "libpython" in line:
                    version = version_from_name(line.split("/")[-1])
                    if version:
                        break
        except OSError:
            pass
        embedded = version is not None and not _is_python_name(name)
    if not _is_python_name(name) and not embedded:
        if not argv and not executable:
            raise AttachError("gone", "process %d has exited or is a kernel thread" % pid)
        raise AttachError("not-python", "process %d (%s) is not a Python process"
                          % (pid, os.path.basename(name) or "?"))
    try:
        import pwd
        user = pwd.getpwuid(uid).pw_name
    except (KeyError, ImportError):
        user = str(uid)
    return {"pid": pid, "uid": uid, "user": user, "executable": executable, "argv": argv,
            "version": version, "embedded": embedded}


def python_processes():
    """Every Python process but this one, by pid."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            found.append(process_facts(int(entry)))
        except (AttachError, OSError):
            continue
    return sorted(found, key=lambda p: p["pid"])


def built_probe_versions(package_dir=PACKAGE_DIR):
    """The (major, minor) versions this package has a probe extension for
    (not free-threaded builds, "cpython-313t": the probe refuses them)."""
    versions = set()
    for path in glob.glob(os.path.join(package_dir, "_probe.cpython-*.so")):
        match = re.match(r"_probe\.cpython-(\d)(\d+)-", os.path.basename(path))
        if match:
            versions.add((int(match.group(1)), int(match.group(2))))
    return sorted(versions)


def _version_text(version):
    return "%d.%d" % version if version else "?"


def _effective_capabilities():
    try:
        for line in _read("/proc/self/status").decode().splitlines():
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    except (OSError, ValueError):
        pass
    return 0


def _is_descendant(pid, ancestor):
    for _ in range(256):
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
        try:
            stat = _read("/proc/%d/stat" % pid).decode("utf-8", "replace")
            pid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError):
            return False
    return False


def ptrace_obstacle(pid, target_uid, scope_path="/proc/sys/kernel/yama/ptrace_scope",
                    euid=None, capabilities=None):
    """Why the kernel will not let us ptrace `pid`, or None if it should."""
    euid = os.geteuid() if euid is None else euid
    capabilities = _effective_capabilities() if capabilities is None else capabilities
    can_ptrace_any = bool(capabilities & (1 << CAP_SYS_PTRACE))
    if euid != 0 and euid != target_uid and not can_ptrace_any:
        return ("permission", "process %d belongs to another user (uid %d); attach as that user or as root"
                % (pid, target_uid))
    try:
        scope = int(_read(scope_path).strip() or b"0")
    except (OSError, ValueError):
        scope = 0  # no Yama: classic ptrace rules (same user) apply
    if scope == 3:
        return ("ptrace-disabled", "the kernel forbids attaching to processes "
                "(/proc/sys/kernel/yama/ptrace_scope is 3, which only a reboot undoes)")
    if scope == 2 and not can_ptrace_any:
        return ("ptrace-scope", "only an administrator may attach here "
                "(/proc/sys/kernel/yama/ptrace_scope is 2): run as root, or with CAP_SYS_PTRACE")
    if scope == 1 and not can_ptrace_any and not _is_descendant(pid, os.getpid()):
        return ("ptrace-scope", "/proc/sys/kernel/yama/ptrace_scope is 1: a process may only be attached "
                "by its parent; run as root, or allow it with "
                "'sudo sysctl kernel.yama.ptrace_scope=0'")
    tracer = _tracer_of(pid)
    if tracer:
        return ("traced", _traced_message(pid, tracer))
    return None


def _tracer_of(pid):
    """The pid of the process tracing `pid` (a debugger, another attach), or 0."""
    try:
        for line in _read("/proc/%d/status" % pid).decode().splitlines():
            if line.startswith("TracerPid:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _traced_message(pid, tracer):
    return ("process %d is already traced by process %d (a debugger, or another refscope attach?); "
            "a process can have only one tracer" % (pid, tracer))


def choose_method(target_version, attacher_has_remote_exec, gdb_path):
    """How to run the bootstrap in the target: "remote_exec" (3.14+, PEP 768,
    from this interpreter), "remote_exec_subprocess" (3.14+ target, run
    through the target's own interpreter because this one is older), or
    "gdb". Raises AttachError("no-gdb") when gdb is needed and missing."""
    if target_version is not None and target_version >= (3, 14):
        return "remote_exec" if attacher_has_remote_exec else "remote_exec_subprocess"
    if not gdb_path:
        raise AttachError("no-gdb", "gdb is not installed; attaching to Python %s needs it "
                          "(Debian/Ubuntu: apt-get install gdb)" % _version_text(target_version))
    return "gdb"

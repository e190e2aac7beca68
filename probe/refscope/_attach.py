"""`python -m refscope attach PID`: connect a running Python process to a
receiver without changing its code; `python -m refscope processes`: the
Python processes one could attach to.

How attach works (docs/live-probe.md, "Attaching"):

1. Checks, each failing with one clear sentence and an error code: the
   process exists, belongs to this user (or we are root), is a Python
   process, of a version this package has a probe for; the kernel lets us
   ptrace it (Yama's ptrace_scope, CAP_SYS_PTRACE, no other tracer); gdb is
   installed.
2. Writes, in a new private (0700) directory, a parameters file (0600: it
   holds the token) and the bootstrap script (_attach_bootstrap.py).
3. Python 3.14+: sys.remote_exec(pid, script) (PEP 768) runs the script at
   the target's next safe point. Older: gdb attaches, maps one page in the
   target with mmap(), writes a two-line Python statement into it, and calls
   Py_AddPendingCall(PyRun_SimpleString, page) on a thread that is waiting
   in the C library (never on one inside the interpreter), then detaches at
   once. Nothing Python runs while gdb holds the process: the pending call
   runs later in the main thread, at the interpreter's own eval-breaker
   check, exactly where signal handlers run.
4. The bootstrap imports refscope from this package's directory (the probe
   built for the target's version), calls refscope.connect() (which starts
   the connection's thread) and writes a result file that step 5 waits for.

5. Cancel (SIGTERM/SIGINT, from main()): held while gdb is inside the
   target, then the attacher and the bootstrap race to create the file
   `decision` (O_EXCL). The attacher winning removes the directory, so the
   pending call finds no script and does nothing (sys.remote_exec would
   complain of a missing script in the program's stderr: there the script
   is replaced by one that only removes the directory, and the token goes
   at once); the bootstrap winning is already connecting, and the outcome
   says so.

The main thread must run Python code for the pending call to run: a
process blocked for good in a C call (a join() without timeout in 3.13, a
long time.sleep()) connects only when it gets back to Python; attach says so
when the result does not arrive in time.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from ._processes import (  # noqa: F401 (also this module's interface: tests, the app)
    PACKAGE_DIR, AttachError, _traced_message, _tracer_of, _version_text, built_probe_versions,
    choose_method, process_facts, ptrace_obstacle, python_processes, version_from_name)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNCONFIRMED = 3



class _Cancelled(BaseException):
    """SIGTERM or SIGINT reached the attacher (the app's Cancel)."""


class Cancellation:
    """Turns SIGTERM/SIGINT into _Cancelled, except while gdb runs: killing
    gdb inside its call into the target could leave the target broken, so a
    cancel that arrives then waits for gdb's short batch run to end."""

    def __init__(self):
        self.requested = False
        self.deferring = False

    def install(self):
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, self._handler)

    def _handler(self, number, frame):
        self.requested = True
        if not self.deferring:
            raise _Cancelled()

    def check(self):
        if self.requested:
            raise _Cancelled()


def _claim(workdir, decision):
    """The attacher (cancelling) and the bootstrap (connecting) race for one
    decision: whoever creates the file first decides. True if we did."""
    try:
        fd = os.open(os.path.join(workdir, "decision"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as f:
        f.write(decision)
    return True


# ---- injection ----------------------------------------------------------------

_GDB_SCRIPT = r"""
set pagination off
set confirm off
set print thread-events off
python
import gdb
# Run the calls on a thread that is waiting inside the C library (futex,
# poll, sleep...): such a thread holds none of the interpreter's own locks,
# so Py_AddPendingCall cannot deadlock on the pending-call lock.
waiting = ("futex", "nanosleep", "poll", "select", "epoll", "read", "recv", "accept",
           "wait", "pthread_cond", "sem_", "sleep", "pause")
chosen = None
for thread in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
    thread.switch()
    try:
        frame = gdb.newest_frame()
        name = frame.name() or ""
        library = gdb.solib_name(frame.pc()) or ""
    except gdb.error:
        continue
    if "libc" in library and any(w in name for w in waiting):
        chosen = thread
        break
if chosen is None:
    chosen = sorted(gdb.selected_inferior().threads(), key=lambda t: t.num)[0]
chosen.switch()
gdb.write("REFSCOPE_THREAD %%d\n" %% chosen.ptid[1])
end
set $refscope_page = ((void *(*)(void *, unsigned long, int, int, int, long)) mmap)(0, %(size)d, 3, 0x22, -1, 0)
printf "REFSCOPE_PAGE %%lu\n", (unsigned long) $refscope_page
restore %(payload)s binary $refscope_page
set $refscope_result = ((int (*)(void *, void *)) Py_AddPendingCall)((void *) PyRun_SimpleString, $refscope_page)
printf "REFSCOPE_RESULT %%d\n", $refscope_result
detach
quit
"""


def _pending_statement(script_path):
    """The statement PyRun_SimpleString runs in __main__: it binds no name
    there, and it cannot raise (an error from a pending call would surface
    in whatever the main thread was doing)."""
    return ("try:exec(compile(open(%r,'rb').read(),%r,'exec'),{'__name__':'__refscope_attach__'})\n"
            "except BaseException:pass\n" % (script_path, script_path))


def inject_with_gdb(pid, script_path, workdir, gdb_path, timeout=60):
    payload = _pending_statement(script_path).encode() + b"\0"
    payload_path = os.path.join(workdir, "payload")
    with open(payload_path, "wb") as f:
        f.write(payload)
    size = (len(payload) + 4095) // 4096 * 4096
    commands_path = os.path.join(workdir, "commands.gdb")
    with open(commands_path, "w") as f:
        f.write(_GDB_SCRIPT % {"size": size, "payload": payload_path})
    # -nx: no ~/.gdbinit; auto-load off: gdb must not run scripts found next
    # to the target's libraries.
    command = [gdb_path, "-nx", "-batch", "-iex", "set auto-load off", "-p", str(pid), "-x", commands_path]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AttachError("gdb-timeout", "gdb did not finish within %d s" % timeout)
    output = done.stdout.decode("utf-8", "replace")
    if "ptrace: Operation not permitted" in output or "Could not attach to process" in output:
        # Another tracer may have come between the checks and gdb (two
        # attaches at once): that is the reason, not a missing privilege.
        tracer = _tracer_of(pid)
        if tracer:
            raise AttachError("traced", _traced_message(pid, tracer))
        raise AttachError("permission", "the kernel refused to let gdb attach to process %d "
                          "(ptrace: Operation not permitted; a container without CAP_SYS_PTRACE, "
                          "or a security module?)" % pid)
    if "No such process" in output:
        raise AttachError("gone", "process %d exited while attaching" % pid)
    page = re.search(r"REFSCOPE_PAGE (\d+)", output)
    result = re.search(r"REFSCOPE_RESULT (-?\d+)", output)
    if not page or int(page.group(1)) in (0, 2 ** 64 - 1):
        raise AttachError("inject-failed", "gdb could not map memory in process %d:\n%s"
                          % (pid, _tail(output)))
    if not result:
        missing = "No symbol" in output
        raise AttachError("not-python" if missing else "inject-failed",
                          ("process %d does not export Py_AddPendingCall/PyRun_SimpleString "
                           "(not CPython?)" if missing else "gdb could not schedule the call in process %d")
                          % pid + ":\n" + _tail(output))
    if int(result.group(1)) != 0:
        raise AttachError("busy", "the interpreter's pending-call queue is full; try again")
    return output


def _tail(text, lines=8):
    return "\n".join("  " + line for line in text.strip().splitlines()[-lines:])


def inject_with_remote_exec(pid, script_path, executable, in_process):
    if in_process:
        sys.remote_exec(pid, script_path)
        return
    done = subprocess.run([executable, "-I", "-c", "import sys; sys.remote_exec(%d, %r)" % (pid, script_path)],
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=60)
    if done.returncode != 0:
        raise AttachError("inject-failed", "sys.remote_exec failed:\n" + _tail(done.stdout.decode("utf-8", "replace")))


def _write_private(path, data, uid):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(data)
    if uid is not None:
        os.chown(path, uid, -1)


def _disarm_remote_exec(workdir, script_path, target_uid):
    """A cancelled sys.remote_exec: the target's interpreter will still open
    the script at its next safe point, and prints an error into the
    program's stderr if it is missing. Leave in its place one that only
    removes the directory (binding no name), and nothing else: the token
    goes now."""
    inert = "__import__('shutil').rmtree(%r, True)\n" % workdir
    replacement = script_path + ".inert"
    _write_private(replacement, inert, target_uid)
    os.replace(replacement, script_path)
    for name in os.listdir(workdir):
        if name != os.path.basename(script_path):
            os.unlink(os.path.join(workdir, name))


def attach(pid, address, token, label="", timeout=10.0, method=None, gdb_path=None, cancellation=None):
    """Connects process `pid` to the receiver at `address`. Returns a dict
    (ok, pid, method, message); raises AttachError. With a `cancellation`
    (installed by main()), SIGTERM/SIGINT end the attach as "cancelled": the
    process then does not connect, or, if its bootstrap had already claimed
    the connection, the outcome says it connected."""
    if cancellation is None:
        cancellation = Cancellation()  # never installed: nothing to cancel
    facts = process_facts(pid)
    version = facts["version"]
    built = built_probe_versions()
    if version is None:
        raise AttachError("not-python", "cannot tell which Python process %d runs" % pid)
    if version not in built:
        message = ("no refscope probe built for Python %s (this package has probes for %s)"
                   % (_version_text(version), ", ".join(map(_version_text, built)) or "none"))
        if version >= (3, 14):
            message += "; with one, attach would use sys.remote_exec (PEP 768)"
        raise AttachError("no-probe", message)
    # sys.remote_exec writes into the target with process_vm_writev, which
    # the kernel allows exactly when it would allow ptrace: same checks.
    obstacle = ptrace_obstacle(pid, facts["uid"])
    if obstacle:
        raise AttachError(*obstacle)
    if gdb_path is None:
        gdb_path = shutil.which("gdb")
    if method is None:
        method = choose_method(version, hasattr(sys, "remote_exec"), gdb_path)

    workdir = tempfile.mkdtemp(prefix="refscope-attach-")  # 0700
    target_uid = facts["uid"] if facts["uid"] != os.geteuid() else None
    injected = False
    try:
        if target_uid is not None:  # root attaching to another user's process
            os.chown(workdir, target_uid, -1)
        params_path = os.path.join(workdir, "params.json")
        result_path = os.path.join(workdir, "result.json")
        script_path = os.path.join(workdir, "attach.py")
        _write_private(params_path, json.dumps({
            "package_dir": PACKAGE_DIR, "address": address, "token": token, "label": label,
            "result": result_path}), target_uid)
        with open(os.path.join(PACKAGE_DIR, "_attach_bootstrap.py")) as f:
            bootstrap = f.read()
        _write_private(script_path, "PARAMS = %r\n" % params_path + bootstrap, target_uid)

        if method == "gdb":
            inject = lambda: inject_with_gdb(pid, script_path, workdir, gdb_path)  # noqa: E731
        elif method in ("remote_exec", "remote_exec_subprocess"):
            inject = lambda: inject_with_remote_exec(  # noqa: E731
                pid, script_path, facts["executable"], method == "remote_exec")
        else:
            raise AttachError("usage", "unknown method %r" % method)
        # `injected` is set before a deferred cancel can be raised: a cancel
        # then finds the call scheduled and claims the decision.
        cancellation.deferring = True
        try:
            inject()
            injected = True
        finally:
            cancellation.deferring = False
        cancellation.check()

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(result_path):
                with open(result_path) as f:
                    outcome = json.load(f)
                if outcome.get("ok"):
                    return {"ok": True, "pid": pid, "method": method,
                            "message": "process %d is connected to %s" % (pid, address)}
                raise AttachError("connect-failed", "process %d could not connect: %s"
                                  % (pid, outcome.get("error", "?")))
            if not os.path.exists("/proc/%d" % pid):
                raise AttachError("gone", "process %d exited before connecting" % pid)
            time.sleep(0.02)
        # Tell the bootstrap, which may still run, to remove the directory
        # (or do it here if it ran in between).
        open(os.path.join(workdir, "abandoned"), "w").close()
        if target_uid is not None:
            os.chown(os.path.join(workdir, "abandoned"), target_uid, -1)
        raise AttachError("unconfirmed",
                          "the connection is scheduled, but process %d has not run Python code in its "
                          "main thread for %.0f s (blocked in a system call or in C code?); it will "
                          "connect when it does" % (pid, timeout))
    except _Cancelled:
        cancellation.deferring = True  # a second signal changes nothing now
        if not injected or _claim(workdir, "cancel"):
            # Nothing scheduled, or the bootstrap has not begun to connect and
            # now never will: removing the directory (finally) makes gdb's
            # pending call, if it ever runs, a silent no-op.
            if injected and method != "gdb":
                _disarm_remote_exec(workdir, script_path, target_uid)
            else:
                injected = False
            raise AttachError("cancelled", "attach cancelled: process %d will not connect" % pid)
        # The bootstrap claimed first: it is connecting. Report what it did.
        deadline = time.monotonic() + 10
        while not os.path.exists(result_path) and time.monotonic() < deadline:
            time.sleep(0.02)
        outcome = {}
        if os.path.exists(result_path):
            with open(result_path) as f:
                outcome = json.load(f)
        if outcome.get("ok"):
            return {"ok": True, "pid": pid, "method": method,
                    "message": "process %d connected to %s before the cancel took effect" % (pid, address)}
        raise AttachError("cancelled", "attach cancelled while process %d was connecting: %s"
                          % (pid, outcome.get("error", "no outcome")))
    finally:
        # Nothing scheduled (the injection failed), a result, or no process:
        # the directory goes. Otherwise the pending call may still run the
        # script: the bootstrap removes the directory ("abandoned").
        if (not injected or os.path.exists(os.path.join(workdir, "result.json"))
                or not os.path.exists("/proc/%d" % pid)):
            shutil.rmtree(workdir, ignore_errors=True)


# ---- command line ---------------------------------------------------------------

def _parser():
    parser = argparse.ArgumentParser(prog="python -m refscope")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    attach_cmd = commands.add_parser(
        "attach", help="connect a running Python process to a receiver, without changing its code",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    attach_cmd.add_argument("pid", type=_process_id, metavar="PID")
    attach_cmd.add_argument("--address", help="the receiver's address (default: $REFSCOPE_CONNECT)")
    attach_cmd.add_argument("--token-file", help="file holding the token (default: $REFSCOPE_TOKEN_FILE)")
    attach_cmd.add_argument("--token", help="the token itself (visible to other users in ps: "
                            "prefer --token-file or $REFSCOPE_TOKEN)")
    attach_cmd.add_argument("--label", default="", help="label the receiver shows for the process")
    attach_cmd.add_argument("--timeout", type=float, default=10.0,
                            help="seconds to wait for the process to connect (default 10)")
    attach_cmd.add_argument("--method", choices=["gdb", "remote_exec", "remote_exec_subprocess"],
                            help="force an injection method (default: chosen by the target's version)")
    attach_cmd.add_argument("--json", action="store_true", help="print the outcome as one JSON object")
    processes_cmd = commands.add_parser("processes", help="list the Python processes one could attach to")
    processes_cmd.add_argument("--json", action="store_true")
    return parser


def _print_outcome(options, outcome):
    if options.json:
        print(json.dumps(outcome))
    elif outcome["ok"]:
        print("refscope: " + outcome["message"])
    else:
        print("refscope: attach: " + outcome["message"], file=sys.stderr)


def _printable(text):
    """Another user's command line as it may reach a terminal: control
    characters escaped (\x1b, \n...), so no one can forge a row or move the
    cursor."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)


def _process_id(text):
    """A PID is a positive number: `attach -- -5` is a usage error (exit 2),
    not a process that is gone."""
    try:
        pid = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a process id: %r" % text)
    if pid <= 0:
        raise argparse.ArgumentTypeError("a process id is a positive number, not %d" % pid)
    return pid


def main(argv):
    from . import _live
    parser = _parser()
    options = parser.parse_args(argv)
    if options.command == "processes":
        found = python_processes()
        if options.json:
            print(json.dumps({"processes": [dict(p, version=_version_text(p["version"])) for p in found]}))
        else:
            for p in found:
                print("%7d  %-5s  %-8s  %s" % (p["pid"], _version_text(p["version"]), _printable(p["user"][:8]),
                                               _printable(" ".join(p["argv"])[:100])))
        return EXIT_OK
    address = options.address or os.environ.get(_live.ENV_ADDRESS)
    try:
        token = _live.find_token(options.token, options.token_file)
        if not address or not token:
            raise AttachError("usage", "give the receiver's --address and --token-file "
                              "(refscope-cli listen prints both)")
        cancellation = Cancellation()
        cancellation.install()
        outcome = attach(options.pid, address, token, label=options.label, timeout=options.timeout,
                         method=options.method, cancellation=cancellation)
    except _Cancelled:  # before anything was written or scheduled
        error = AttachError("cancelled", "attach cancelled: process %d will not connect" % options.pid)
        outcome = {"ok": False, "pid": options.pid, "code": error.code, "message": str(error)}
        _print_outcome(options, outcome)
        return EXIT_FAILED
    except AttachError as error:
        outcome = {"ok": False, "pid": options.pid, "code": error.code, "message": str(error)}
        _print_outcome(options, outcome)
        if error.code == "usage":
            return EXIT_USAGE
        return EXIT_UNCONFIRMED if error.code == "unconfirmed" else EXIT_FAILED
    except OSError as error:
        outcome = {"ok": False, "pid": options.pid, "code": "os-error", "message": str(error)}
        _print_outcome(options, outcome)
        return EXIT_FAILED
    _print_outcome(options, outcome)
    return EXIT_OK

"""Shared helpers for the live-connection tests (stdlib only: they run under
every interpreter the probe is built for).

Receiver: `refscope-cli listen --json` as a child process; its events
(JSON Lines on stdout) are collected by a thread, commands go to its stdin.
Target: a Python program from programs/ run with the probe on PYTHONPATH;
the programs print JSON lines too (heartbeats, connection status) which the
Target collects the same way.

Environment (set by CTest): REFSCOPE_CLI (the refscope-cli binary),
PYTHONPATH (the built refscope package).
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")


def cli():
    return os.environ.get("REFSCOPE_CLI")


def require_cli(test):
    if not cli():
        raise unittest.SkipTest("REFSCOPE_CLI is not set (refscope-cli not built)")


class JsonLines:
    """Collects the JSON objects a child prints, one per line, in a thread."""

    def __init__(self, stream, name):
        self.events = []
        self.other = []
        self.lock = threading.Condition()
        self.name = name
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self.thread.start()

    def _pump(self, stream):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self.lock:
                try:
                    value = json.loads(line)
                    if isinstance(value, dict):
                        self.events.append(value)
                    else:
                        self.other.append(line)
                except ValueError:
                    self.other.append(line)
                self.lock.notify_all()
        with self.lock:
            self.events.append({"event": "__eof__"})
            self.lock.notify_all()

    def wait(self, predicate, timeout=30, after=0, what="an event"):
        """The first event at index >= after matching predicate."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for index in range(after, len(self.events)):
                    if predicate(self.events[index]):
                        return self.events[index]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("%s: timed out after %.0f s waiting for %s; events: %s; other: %s"
                                         % (self.name, timeout, what, self.events[-20:], self.other[-20:]))
                self.lock.wait(left)

    def wait_event(self, kind, timeout=30, after=0, **fields):
        def match(e):
            return e.get("event") == kind and all(e.get(k) == v for k, v in fields.items())
        return self.wait(match, timeout, after, what="%s %s" % (kind, fields))

    def count(self, kind):
        with self.lock:
            return sum(1 for e in self.events if e.get("event") == kind)

    def mark(self):
        with self.lock:
            return len(self.events)


class Receiver:
    """refscope-cli listen --json in a temporary session folder."""

    def __init__(self, *extra):
        self.dir = tempfile.mkdtemp(prefix="refscope-live-test-")
        self.session = os.path.join(self.dir, "session")
        self.stderr_path = os.path.join(self.dir, "listen.stderr")
        self._stderr = open(self.stderr_path, "wb")
        self.process = subprocess.Popen(
            [cli(), "listen", "--json", "--dir", self.session] + list(extra),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)
        self.out = JsonLines(self.process.stdout, "receiver")
        listening = self.out.wait_event("listening", timeout=20)
        self.address = listening["address"]
        self.token_file = listening["token_file"]
        self.token = listening["token"]
        self.tcp_address = listening["tcp_address"]

    def command(self, line):
        self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()

    def stderr(self):
        with open(self.stderr_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def wait_stderr(self, text, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.stderr():
                return
            time.sleep(0.05)
        raise AssertionError("receiver stderr never said %r:\n%s" % (text, self.stderr()))

    def env(self):
        """What a program needs to connect to this receiver."""
        return {"REFSCOPE_CONNECT": self.address, "REFSCOPE_TOKEN_FILE": self.token_file}

    def rss_bytes(self):
        return rss_of(self.process.pid)

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)

    def close(self):
        if self.process.poll() is None:
            try:
                self.command("quit")
            except (BrokenPipeError, OSError):
                pass
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)
        self._stderr.close()
        close_pipes(self.process)
        import shutil
        shutil.rmtree(self.dir, ignore_errors=True)
        # A receiver killed with SIGKILL could not remove its private
        # directory (socket and token file): the test does.
        if self.address.startswith("unix:"):
            shutil.rmtree(os.path.dirname(self.address[len("unix:"):]), ignore_errors=True)


class Target:
    """A test program (programs/NAME) run under this interpreter."""

    def __init__(self, program, *args, env=None, via_runner=False):
        path = os.path.join(PROGRAMS, program)
        command = [sys.executable]
        if via_runner:
            command += ["-m", "refscope", "run"]
        command += [path] + [str(a) for a in args]
        environment = dict(os.environ)
        for key in ("REFSCOPE_CONNECT", "REFSCOPE_TOKEN", "REFSCOPE_TOKEN_FILE", "REFSCOPE_LABEL"):
            environment.pop(key, None)
        environment.update(env or {})
        self.stderr_file = tempfile.TemporaryFile()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr_file, env=environment)
        self.pid = self.process.pid
        self.out = JsonLines(self.process.stdout, "target")

    def send(self, line):
        self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()

    def stderr(self):
        self.stderr_file.seek(0)
        return self.stderr_file.read().decode("utf-8", "replace")

    def threads(self):
        return len(os.listdir("/proc/%d/task" % self.pid))

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.pid))

    def rss_bytes(self):
        return rss_of(self.pid)

    def peak_rss_bytes(self):
        """VmHWM: the most resident memory the process ever had."""
        with open("/proc/%d/status" % self.pid) as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        return 0

    def alive(self):
        return self.process.poll() is None

    def finish(self, timeout=30):
        """Asks the program to exit; returns its exit status."""
        if self.process.poll() is None:
            try:
                self.send("exit")
            except (BrokenPipeError, OSError):
                pass
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
                raise AssertionError("the target did not exit; stderr:\n" + self.stderr())
        return self.process.returncode

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        close_pipes(self.process)
        self.stderr_file.close()


def close_pipes(process):
    for pipe in (process.stdin, process.stdout):
        try:
            if pipe is not None:
                pipe.close()
        except OSError:
            pass


def rss_of(pid):
    with open("/proc/%d/statm" % pid) as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def read_snapshot_info(path):
    """`refscope-cli info --json` of a saved snapshot (decodes it fully)."""
    done = subprocess.run([cli(), "info", path, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120)
    if done.returncode != 0:
        raise AssertionError("refscope-cli info %s failed: %s" % (path, done.stderr.decode()))
    return json.loads(done.stdout.decode())


def scaled(name, default):
    """A count the environment may raise for a full run (REFSCOPE_SOAK_SNAPSHOTS...)."""
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default

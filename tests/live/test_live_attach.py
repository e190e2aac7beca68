"""`python -m refscope attach`: a running program that never imported
refscope is connected without any change to its code, repeatedly, while its
threads work; and every case where attaching cannot work says why.

Rounds: REFSCOPE_ATTACH_ROUNDS (default 10; a full run is 50, docs/protocol.md
"Tests and fuzzing").
If this machine does not let us ptrace (Yama, containers), the attach tests
skip and say so; the checks that need no ptrace still run."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from live_support import Receiver, Target, require_cli, scaled

from refscope import _attach


def run_attach(*args, env=None, timeout=120):
    environment = dict(os.environ)
    environment.update(env or {})
    done = subprocess.run([sys.executable, "-m", "refscope", "attach"] + [str(a) for a in args] + ["--json"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment, timeout=timeout)
    lines = done.stdout.decode().strip().splitlines()
    outcome = json.loads(lines[-1]) if lines else {}
    return done.returncode, outcome


PTRACE_CODES = ("permission", "ptrace-scope", "ptrace-disabled")


class AttachDecisions(unittest.TestCase):
    """The checks and choices, without attaching to anything."""

    def test_version_from_names(self):
        self.assertEqual(_attach.version_from_name("/usr/bin/python3.11"), (3, 11))
        self.assertEqual(_attach.version_from_name("libpython3.12.so.1.0"), (3, 12))
        self.assertEqual(_attach.version_from_name("/root/.pyenv/versions/3.9.18/bin/python3.9"), (3, 9))
        self.assertIsNone(_attach.version_from_name("/usr/bin/python3"))
        self.assertIsNone(_attach.version_from_name("/usr/bin/perl"))

    def test_this_interpreter_has_a_probe(self):
        self.assertIn(sys.version_info[:2], _attach.built_probe_versions())

    def test_method_choice(self):
        self.assertEqual(_attach.choose_method((3, 11), False, "/usr/bin/gdb"), "gdb")
        self.assertEqual(_attach.choose_method((3, 13), True, "/usr/bin/gdb"), "gdb")
        # 3.14+: sys.remote_exec (PEP 768), no gdb needed; from an older
        # attaching interpreter, through the target's own executable.
        self.assertEqual(_attach.choose_method((3, 14), True, None), "remote_exec")
        self.assertEqual(_attach.choose_method((3, 14), False, None), "remote_exec_subprocess")
        self.assertEqual(_attach.choose_method((3, 15), False, "/usr/bin/gdb"), "remote_exec_subprocess")
        with self.assertRaises(_attach.AttachError) as caught:
            _attach.choose_method((3, 12), False, None)
        self.assertEqual(caught.exception.code, "no-gdb")
        self.assertIn("apt-get install gdb", str(caught.exception))
        self.assertFalse(hasattr(sys, "remote_exec") and sys.version_info < (3, 14))

    def test_ptrace_rules(self):
        scope = tempfile.NamedTemporaryFile("w", delete=False)
        self.addCleanup(os.unlink, scope.name)

        def obstacle(value, euid, target_uid, caps=0, pid=None):
            with open(scope.name, "w") as f:
                f.write(value)
            return _attach.ptrace_obstacle(pid or os.getpid(), target_uid, scope_path=scope.name,
                                           euid=euid, capabilities=caps)

        self.assertEqual(obstacle("0", 1000, 1001)[0], "permission")
        self.assertIn("another user", obstacle("0", 1000, 1001)[1])
        self.assertIsNone(obstacle("0", 1000, 1000))
        self.assertIsNone(obstacle("0", 0, 1001))  # root
        self.assertEqual(obstacle("3", 0, 0)[0], "ptrace-disabled")
        self.assertEqual(obstacle("2", 1000, 1000)[0], "ptrace-scope")
        self.assertIsNone(obstacle("2", 1000, 1000, caps=1 << 19))
        parent = os.getppid()  # not our descendant
        code, message = obstacle("1", 1000, 1000, pid=parent)
        self.assertEqual(code, "ptrace-scope")
        self.assertIn("ptrace_scope=0", message)
        self.assertIsNone(obstacle("1", 1000, 1000, caps=1 << 19, pid=parent))


class AttachRefusals(unittest.TestCase):
    def setUp(self):
        require_cli(self)
        self.receiver = Receiver()
        self.addCleanup(self.receiver.close)

    def attach(self, pid, env=None):
        return run_attach(pid, "--address", self.receiver.address, "--token-file", self.receiver.token_file,
                          env=env)

    def test_process_gone(self):
        finished = subprocess.Popen([sys.executable, "-c", "pass"])
        finished.wait()
        status, outcome = self.attach(finished.pid)
        self.assertEqual(status, 1)
        self.assertEqual(outcome["code"], "gone")
        self.assertIn("no process %d" % finished.pid, outcome["message"])

    def test_not_a_python_process(self):
        sleeper = subprocess.Popen(["sleep", "30"])
        self.addCleanup(sleeper.wait)
        self.addCleanup(sleeper.kill)
        status, outcome = self.attach(sleeper.pid)
        self.assertEqual((status, outcome["code"]), (1, "not-python"))
        self.assertIn("(sleep) is not a Python process", outcome["message"])

    def test_gdb_missing(self):
        target = Target("busy_target.py", "--no-import")
        self.addCleanup(target.kill)
        target.out.wait_event("ready")
        status, outcome = self.attach(target.pid, env={"PATH": "/nonexistent"})
        if outcome.get("code") in PTRACE_CODES:
            self.skipTest("ptrace not permitted here: " + outcome["message"])
        if sys.version_info >= (3, 14):
            # PEP 768: the target's interpreter runs the bootstrap itself.
            self.assertEqual((status, outcome.get("method")), (0, "remote_exec"), outcome)
            self.receiver.out.wait_event("connected", pid=target.pid, timeout=30)
            return
        self.assertEqual(status, 1)
        self.assertEqual(outcome["code"], "no-gdb")
        self.assertIn("gdb is not installed", outcome["message"])

    def test_python_without_a_probe(self):
        old = [p for p in ("/root/.pyenv/versions/3.8.18/bin/python3.8", "/usr/bin/python3.8", "/usr/bin/python2.7")
               if os.path.exists(p)]
        if not old:
            self.skipTest("no Python outside 3.9-3.13 installed to try")
        other = subprocess.Popen([old[0], "-c", "import time; time.sleep(30)"])
        self.addCleanup(other.wait)
        self.addCleanup(other.kill)
        time.sleep(0.2)
        status, outcome = self.attach(other.pid)
        self.assertEqual((status, outcome["code"]), (1, "no-probe"))
        self.assertIn("no refscope probe built for Python", outcome["message"])

    def test_a_negative_or_zero_pid_is_a_usage_error(self):
        for pid in ("-5", "0", "abc"):
            done = subprocess.run([sys.executable, "-m", "refscope", "attach", "--", pid],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            self.assertEqual(done.returncode, 2, (pid, done.stderr))
            self.assertIn(b"process id", done.stderr)

    def test_missing_address(self):
        status, outcome = run_attach(os.getpid(), env={"REFSCOPE_CONNECT": "", "REFSCOPE_TOKEN_FILE": ""})
        self.assertEqual((status, outcome["code"]), (2, "usage"))


class AttachToRunningPrograms(unittest.TestCase):
    def setUp(self):
        require_cli(self)
        if not shutil.which("gdb"):
            self.skipTest("gdb is not installed")
        self.receiver = Receiver()
        self.addCleanup(self.receiver.close)

    def attach(self, pid, *extra):
        status, outcome = run_attach(pid, "--address", self.receiver.address, "--token-file",
                                     self.receiver.token_file, *extra)
        if not outcome.get("ok") and outcome.get("code") in PTRACE_CODES:
            self.skipTest("this machine does not let us ptrace: " + outcome["message"])
        return status, outcome

    def test_a_process_another_tracer_holds_is_reported_as_traced(self):
        # A second attach while gdb (a debugger, or the first attach) holds
        # the process names the tracer, not a missing privilege.
        target = Target("busy_target.py", "--no-import", "--workers", "1", "--heap", "100")
        self.addCleanup(target.kill)
        target.out.wait_event("ready")
        holder = subprocess.Popen(["gdb", "-nx", "-batch", "-p", str(target.pid), "-ex", "shell sleep 8"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(holder.wait)
        self.addCleanup(holder.kill)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with open("/proc/%d/status" % target.pid) as f:
                if any(line.startswith("TracerPid:") and line.split()[1] != "0" for line in f):
                    break
            time.sleep(0.05)
        else:
            self.skipTest("gdb could not trace the target here")
        status, outcome = self.attach(target.pid)
        self.assertEqual((status, outcome["code"]), (1, "traced"), outcome)
        self.assertIn("already traced by process", outcome["message"])

    def test_attach_repeatedly_to_a_busy_multithreaded_program(self):
        rounds = scaled("REFSCOPE_ATTACH_ROUNDS", 10)
        target = Target("busy_target.py", "--no-import", "--workers", "4", "--heap", "5000")
        self.addCleanup(target.kill)
        target.out.wait_event("ready")
        time.sleep(0.2)
        baseline_threads = target.threads()
        out = self.receiver.out
        work = 0
        for round_number in range(rounds):
            mark = out.mark()
            status, outcome = self.attach(target.pid)
            self.assertEqual(status, 0, outcome)
            connected = out.wait_event("connected", after=mark, pid=target.pid)
            self.assertTrue(connected["attached"])
            cid = connected["connection"]
            self.assertEqual(target.threads(), baseline_threads + 1)  # the probe's one thread
            self.receiver.command("snapshot %d" % cid)
            saved = out.wait_event("saved", after=mark, connection=cid, timeout=60)
            self.assertGreater(saved["nodes"], 5000)
            self.receiver.command("disconnect %d" % cid)
            out.wait_event("disconnected", after=mark, connection=cid)
            # The probe's thread ends: nothing leaks from one round to the next.
            deadline = time.monotonic() + 10
            while target.threads() != baseline_threads and time.monotonic() < deadline:
                time.sleep(0.02)
            self.assertEqual(target.threads(), baseline_threads, "round %d" % round_number)
            mark = target.out.mark()
            target.send("status")
            status_line = target.out.wait_event("status", after=mark)
            self.assertGreater(status_line["work"], work, "the program's threads stopped working")
            work = status_line["work"]
            self.assertFalse(status_line["status"]["connected"])
        self.assertEqual(out.count("connected"), rounds)
        self.assertEqual(out.count("discarded") + out.count("failed"), 0)
        self.assertEqual(target.finish(), 0)
        self.assertNotIn("Traceback", target.stderr())

    def test_main_thread_busy_in_c_connects_when_it_returns(self):
        target = Target("sleepy_target.py", "4")
        self.addCleanup(target.kill)
        target.out.wait_event("ready")
        started = time.monotonic()
        status, outcome = self.attach(target.pid, "--timeout", "1")
        self.assertEqual(status, 3, outcome)
        self.assertEqual(outcome["code"], "unconfirmed")
        self.assertIn("has not run Python code in its main thread", outcome["message"])
        # The scheduled call runs once time.sleep() returns.
        connected = self.receiver.out.wait_event("connected", pid=target.pid, timeout=30)
        self.assertTrue(connected["attached"])
        self.assertGreater(time.monotonic() - started, 2.0)
        target.out.wait_event("awake")
        self.assertEqual(target.finish(), 0)

    def test_cancelled_attach_never_connects(self):
        # The main thread sleeps in C: the scheduled call cannot run before
        # the cancel (SIGTERM, what the app's Cancel sends) is honoured.
        target = Target("sleepy_target.py", "6")
        self.addCleanup(target.kill)
        target.out.wait_event("ready")
        workdirs = tempfile.mkdtemp(prefix="refscope-attach-test-")
        self.addCleanup(shutil.rmtree, workdirs, True)
        environment = dict(os.environ, TMPDIR=workdirs)
        attacher = subprocess.Popen(
            [sys.executable, "-m", "refscope", "attach", str(target.pid), "--address", self.receiver.address,
             "--token-file", self.receiver.token_file, "--timeout", "30", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
        self.addCleanup(attacher.kill)
        # Wait until the injection has started: gdb's commands file (a cancel
        # arriving while gdb runs is honoured once it has finished), or on
        # 3.14+ the bootstrap that sys.remote_exec is given.
        method = _attach.choose_method(sys.version_info[:2], hasattr(sys, "remote_exec"), shutil.which("gdb"))
        marker = "commands.gdb" if method == "gdb" else "attach.py"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(
                os.path.exists(os.path.join(workdirs, d, marker)) for d in os.listdir(workdirs)):
            time.sleep(0.02)
        time.sleep(0.5)
        attacher.send_signal(signal.SIGTERM)
        out, err = attacher.communicate(timeout=90)
        outcome = json.loads(out.decode().strip().splitlines()[-1])
        if outcome.get("code") in PTRACE_CODES:
            self.skipTest("this machine does not let us ptrace: " + outcome["message"])
        self.assertEqual(attacher.returncode, 1, outcome)
        self.assertEqual(outcome["code"], "cancelled", outcome)
        self.assertIn("will not connect", outcome["message"])
        self.assertNotIn("Traceback", err.decode())
        left = sorted(name for _root, _dirs, names in os.walk(workdirs) for name in names)
        if method == "gdb":
            self.assertEqual(os.listdir(workdirs), [])  # nothing left behind, the token included
        else:
            # The interpreter will open the script it was given: an inert one
            # that removes its directory; the token is gone already.
            self.assertEqual(left, ["attach.py"])
        # The scheduled call runs when the sleep ends, and does nothing.
        target.out.wait_event("awake", timeout=30)
        time.sleep(1.5)
        self.assertEqual(os.listdir(workdirs), [])
        self.assertEqual(self.receiver.out.count("connected"), 0)
        self.assertTrue(target.alive())
        self.assertEqual(target.finish(), 0)
        self.assertEqual(target.stderr().strip(), "")


if __name__ == "__main__":
    unittest.main()

"""refscope-cli's live verbs as a script uses them: listen's options, exit
statuses and clean stop; processes' JSON. (The events themselves are
exercised by the other test_live_* modules.)"""

import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from live_support import Receiver, Target, cli, require_cli


def run_cli(*args, timeout=60):
    done = subprocess.run([cli()] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


class ListenCommandLine(unittest.TestCase):
    def setUp(self):
        require_cli(self)
        self.tmp = tempfile.TemporaryDirectory(prefix="refscope-cli-live-")
        self.addCleanup(self.tmp.cleanup)

    def test_usage_errors_exit_2(self):
        status, _, err = run_cli("listen", "--bogus")
        self.assertEqual(status, 2)
        self.assertIn("unknown option or argument '--bogus'", err)
        status, _, err = run_cli("listen", "--no-unix")
        self.assertEqual(status, 2)
        self.assertIn("--no-unix needs --tcp PORT", err)
        status, _, err = run_cli("listen", "--every", "soon")
        self.assertEqual(status, 2)
        status, _, err = run_cli("processes", "--all")
        self.assertEqual(status, 2)

    def test_a_programs_argv_cannot_forge_listener_lines(self):
        session = os.path.join(self.tmp.name, "forged")
        listen = subprocess.Popen([cli(), "listen", "--dir", session, "--on-connect", "--count", "1",
                                   "--timeout", "60"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(listen.stderr.close)
        self.addCleanup(listen.stdout.close)
        address = listen.stdout.readline().decode().split()[-1]
        token_file = listen.stdout.readline().decode().split()[2]
        env = dict(os.environ, REFSCOPE_CONNECT=address, REFSCOPE_TOKEN_FILE=token_file)
        forged = "\x1b[2J\rconnected 99: pid 1, Python 3.99, forged\n"
        target = subprocess.Popen([sys.executable, "-c", "import refscope, time; time.sleep(60)", forged],
                                  env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        self.addCleanup(target.wait)
        self.addCleanup(target.kill)
        self.assertEqual(listen.wait(timeout=60), 0, listen.stderr.read())
        out = listen.stdout.read().decode()
        self.assertNotIn("\x1b", out)
        self.assertNotIn("\r", out)
        connected = [line for line in out.splitlines() if line.startswith("connected ")]
        self.assertEqual(len(connected), 1, out)  # no forged second line
        self.assertIn("\\x1b[2J\\rconnected 99", connected[0])
        # Process listings show the same command line escaped.
        for listing in ([cli(), "processes"], [sys.executable, "-m", "refscope", "processes"]):
            done = subprocess.run(listing, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            text = done.stdout.decode()
            self.assertNotIn("\x1b", text, listing)
            rows = [line for line in text.splitlines() if str(target.pid) in line.split()[:1]]
            self.assertEqual(len(rows), 1, (listing, text))
            self.assertIn("\\x1b[2J\\rconnected 99", rows[0])

    def test_another_users_folder_is_refused(self):
        if os.geteuid() == 0:
            folder = os.path.join(self.tmp.name, "theirs")
            os.mkdir(folder)
            os.chmod(folder, 0o777)
            os.chown(folder, 65534, 65534)  # nobody's
        else:
            folder = "/tmp"  # root's
        status, _, err = run_cli("listen", "--dir", folder, "--timeout", "1")
        self.assertNotEqual(status, 0)
        self.assertIn("belongs to another user", err)

    def test_count_not_reached_by_timeout_exits_1(self):
        started = time.monotonic()
        status, out, err = run_cli("listen", "--dir", os.path.join(self.tmp.name, "s"), "--count", "2",
                                   "--timeout", "1")
        self.assertEqual(status, 1)
        self.assertIn("timed out after 1 s", err)  # not "1.000000 s"
        self.assertIn("0 of 2 snapshots saved", err)
        self.assertIn("listening on unix:", out)
        self.assertLess(time.monotonic() - started, 20)

    def test_refuses_a_socket_directory_others_can_enter(self):
        shared = os.path.join(self.tmp.name, "shared")
        os.mkdir(shared)
        os.chmod(shared, 0o755)
        status, _, err = run_cli("listen", "--dir", os.path.join(self.tmp.name, "s"), "--socket-dir", shared)
        self.assertEqual(status, 1)
        self.assertIn("it must be private (0700)", err)

    def test_connect_lines_quote_a_socket_directory_with_a_space_and_a_quote(self):
        sockets = os.path.join(self.tmp.name, "Bob's sockets")
        status, out, _ = run_cli("listen", "--dir", os.path.join(self.tmp.name, "s"), "--socket-dir", sockets,
                                 "--timeout", "0.5")
        self.assertEqual(status, 0)
        lines = out.splitlines()
        run = shlex.split(lines[lines.index("connect a program:") + 1])
        attach = shlex.split(lines[lines.index("or a running one:") + 1])
        address = "unix:" + os.path.join(sockets, "live.sock")
        token_file = os.path.join(sockets, "token")
        self.assertEqual(run, ["REFSCOPE_CONNECT=" + address, "REFSCOPE_TOKEN_FILE=" + token_file,
                               "python3", "-m", "refscope", "run", "app.py"])
        self.assertEqual(attach, ["python3", "-m", "refscope", "attach", "PID", "--address", address,
                                  "--token-file", token_file])

    def test_sigterm_and_sighup_stop_cleanly_and_remove_the_private_directory(self):
        # SIGHUP: the terminal that ran `listen` was closed.
        for signum in (signal.SIGTERM, signal.SIGHUP):
            receiver = Receiver()
            self.addCleanup(receiver.close)
            socket_dir = os.path.dirname(receiver.address[len("unix:"):])
            self.assertTrue(os.path.isdir(socket_dir))
            receiver.process.send_signal(signum)
            self.assertEqual(receiver.process.wait(timeout=20), 0, signum)
            self.assertFalse(os.path.exists(socket_dir), signum)

    def test_on_connect_and_count_save_one_snapshot_and_exit(self):
        session = os.path.join(self.tmp.name, "session")
        listen = subprocess.Popen([cli(), "listen", "--json", "--dir", session, "--on-connect", "--collect",
                                   "--count", "1", "--timeout", "60", "--verify"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(listen.stderr.close)
        self.addCleanup(listen.stdout.close)
        first = json.loads(listen.stdout.readline().decode())
        env = {"REFSCOPE_CONNECT": first["address"], "REFSCOPE_TOKEN_FILE": first["token_file"]}
        target = Target("busy_target.py", env=env)
        self.addCleanup(target.kill)
        self.assertEqual(listen.wait(timeout=60), 0)
        events = [json.loads(line) for line in listen.stdout.read().decode().splitlines()]
        saved = [e for e in events if e["event"] == "saved"]
        self.assertEqual(len(saved), 1)
        self.assertTrue(saved[0]["collected"])
        self.assertIn("objects decoded", saved[0]["verified"])
        self.assertEqual(saved[0]["label"], "on connect")
        # The program outlives its receiver.
        target.send("status")
        self.assertFalse(target.out.wait_event("status")["status"]["connected"])
        self.assertEqual(target.finish(), 0)


class Processes(unittest.TestCase):
    def test_lists_this_interpreters_processes(self):
        require_cli(self)
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        self.addCleanup(sleeper.wait)
        self.addCleanup(sleeper.kill)
        time.sleep(0.3)
        status, out, _ = run_cli("processes", "--json")
        self.assertEqual(status, 0)
        found = {p["pid"]: p for p in json.loads(out)["processes"]}
        self.assertIn(sleeper.pid, found)
        entry = found[sleeper.pid]
        self.assertEqual(entry["python_version"], "%d.%d" % sys.version_info[:2])
        self.assertEqual(entry["argv"][1:], ["-c", "import time; time.sleep(30)"])
        self.assertTrue(entry["attachable"])
        self.assertLess(abs(entry["start_time_unix_ns"] / 1e9 - time.time()), 60)
        status, text, _ = run_cli("processes")
        self.assertIn(str(sleeper.pid), text)
        # The Python side lists it the same way.
        done = subprocess.run([sys.executable, "-m", "refscope", "processes", "--json"], stdout=subprocess.PIPE,
                              timeout=60)
        python_side = {p["pid"]: p for p in json.loads(done.stdout.decode())["processes"]}
        self.assertEqual(python_side[sleeper.pid]["version"], entry["python_version"])


if __name__ == "__main__":
    unittest.main()

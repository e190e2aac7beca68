"""The probe's side of the live connection against `refscope-cli listen`:
REFSCOPE_CONNECT at start-up, refscope.connect() and its errors, snapshots
saved as valid files with the right header, labels, ping, disconnects from
either side, fork, TCP."""

import json
import os
import stat
import sys
import tempfile
import time
import unittest

from live_support import Receiver, Target, read_snapshot_info, require_cli

import refscope


def wait_until(predicate, timeout=15, what="a condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out waiting for " + what)


class ConnectFromEnvironment(unittest.TestCase):
    def setUp(self):
        require_cli(self)
        self.receiver = Receiver()
        self.addCleanup(self.receiver.close)

    def test_run_connects_at_start_and_snapshots_are_valid_files(self):
        target = Target("busy_target.py", "--heap", "3000", env=self.receiver.env(), via_runner=True)
        self.addCleanup(target.kill)
        out = self.receiver.out
        connected = out.wait_event("connected", pid=target.pid)
        self.assertTrue(connected["argv"][0].endswith("busy_target.py"), connected["argv"])
        self.assertFalse(connected["attached"])
        self.assertTrue(connected["python_version"].startswith("%d.%d.%d" % sys.version_info[:3]))
        self.assertEqual(connected["peer_pid"], target.pid)  # the kernel's word agrees
        self.assertLess(abs(connected["start_time_unix_ns"] / 1e9 - time.time()), 120)
        cid = connected["connection"]

        self.receiver.command("snapshot %d" % cid)
        first = out.wait_event("saved", connection=cid)
        self.assertFalse(first["collected"])
        mark = out.mark()
        self.receiver.command("collect %d" % cid)
        second = out.wait_event("saved", after=mark, connection=cid)
        self.assertTrue(second["collected"])
        self.assertEqual(second["sequence"], first["sequence"] + 1)

        mark = out.mark()
        self.receiver.command("label %d phase two" % cid)
        self.receiver.command("snapshot %d" % cid)
        third = out.wait_event("saved", after=mark, connection=cid)

        for saved in (first, second, third):
            self.assertEqual(os.stat(saved["path"]).st_mode & 0o777, 0o600)
            info = read_snapshot_info(saved["path"])
            self.assertEqual(info["header"]["pid"], target.pid)
            self.assertEqual(info["header"]["sequence"], saved["sequence"])
            self.assertEqual(info["counts"]["objects"], saved["nodes"])
        self.assertEqual(read_snapshot_info(third["path"])["header"]["label"], "phase two")
        self.assertEqual(read_snapshot_info(second["path"])["header"]["collected_first"], True)

        # The session index lists the process and its three files.
        with open(os.path.join(self.receiver.session, "session.jsonl")) as index:
            lines = [json.loads(line) for line in index]
        self.assertEqual(lines[0]["event"], "connected")
        self.assertEqual(lines[0]["pid"], target.pid)
        files = [line["file"] for line in lines if line["event"] == "snapshot"]
        self.assertEqual(files, [os.path.basename(s["path"]) for s in (first, second, third)])
        self.assertEqual(target.finish(), 0)
        gone = out.wait_event("disconnected", connection=cid)
        self.assertEqual(gone["reason"], "goodbye")
        self.assertEqual(gone["message"], "process exiting")

    def test_unreachable_receiver_never_stops_the_program(self):
        env = {"REFSCOPE_CONNECT": "unix:/nonexistent/refscope/live.sock", "REFSCOPE_TOKEN": "0" * 31 + "1"}
        target = Target("busy_target.py", env=env)
        self.addCleanup(target.kill)
        target.out.wait_event("ready")
        target.send("status")
        status = target.out.wait_event("status")
        self.assertIsNone(status["status"])
        self.assertEqual(target.finish(), 0)
        self.assertIn("refscope: not connected to unix:/nonexistent/refscope/live.sock", target.stderr())
        self.assertIn("is the receiver running?", target.stderr())

    def test_fork_child_does_not_inherit_the_connection(self):
        target = Target("busy_target.py", env=self.receiver.env())
        self.addCleanup(target.kill)
        out = self.receiver.out
        cid = out.wait_event("connected", pid=target.pid)["connection"]
        target.send("fork")
        child = target.out.wait_event("child")
        self.assertIsNone(child["status"])  # nothing connected in the child
        target.out.wait_event("forked")
        # The parent's connection is intact after the child's exit.
        mark = out.mark()
        self.receiver.command("ping %d" % cid)
        out.wait_event("pong", after=mark, connection=cid)
        self.receiver.command("snapshot %d" % cid)
        out.wait_event("saved", after=mark, connection=cid)
        self.assertEqual(out.count("connected"), 1)
        self.assertEqual(out.count("disconnected"), 0)
        target.send("status")
        self.assertTrue(target.out.wait_event("status")["status"]["connected"])
        self.assertEqual(target.finish(), 0)

    def test_receiver_disconnect_leaves_the_program_running(self):
        target = Target("busy_target.py", env=self.receiver.env())
        self.addCleanup(target.kill)
        cid = self.receiver.out.wait_event("connected", pid=target.pid)["connection"]
        self.receiver.command("disconnect %d" % cid)
        self.assertEqual(self.receiver.out.wait_event("disconnected", connection=cid)["reason"],
                         "disconnect requested")

        def closed():
            mark = target.out.mark()
            target.send("status")
            status = target.out.wait_event("status", after=mark)["status"]
            return status if not status["connected"] else None
        status = wait_until(closed, what="the probe to see the disconnect")
        self.assertIn("the receiver closed the connection", status["closed_reason"])
        # The program runs on and can connect again.
        target.send("connect %s %s" % (self.receiver.address, self.receiver.token_file))
        self.assertIsNone(target.out.wait_event("connect")["error"])
        self.receiver.out.wait_event("connected", after=1, connection=cid + 1)
        self.assertEqual(target.finish(), 0)


class ConnectApi(unittest.TestCase):
    """refscope.connect() in this test process itself."""

    def setUp(self):
        require_cli(self)
        self.receiver = Receiver("--tcp", "0")
        self.addCleanup(self.receiver.close)
        self.addCleanup(refscope.disconnect)

    def test_errors_say_what_is_wrong(self):
        with self.assertRaisesRegex(ConnectionError, "wrong token"):
            refscope.connect(self.receiver.address, "0" * 31 + "1")
        self.receiver.wait_stderr("wrong token")
        with self.assertRaisesRegex(ValueError, "loopback"):
            refscope.connect("tcp:10.1.2.3:80", self.receiver.token)
        with self.assertRaisesRegex(ValueError, "32 hexadecimal digits"):
            refscope.connect(self.receiver.address, "not-a-token")
        with self.assertRaisesRegex(ConnectionError, "is the receiver running"):
            refscope.connect("unix:/nonexistent/refscope.sock", self.receiver.token)
        saved = os.environ.pop("REFSCOPE_CONNECT", None)
        try:
            with self.assertRaisesRegex(ValueError, "no address"):
                refscope.connect()
        finally:
            if saved is not None:
                os.environ["REFSCOPE_CONNECT"] = saved
        with tempfile.NamedTemporaryFile("w", suffix=".token") as loose:
            loose.write(self.receiver.token)
            loose.flush()
            os.chmod(loose.name, 0o644)
            with self.assertRaisesRegex(PermissionError, "owner only"):
                refscope.connect(self.receiver.address, token_file=loose.name)
        self.assertFalse(refscope.disconnect())

    def test_connect_status_ping_and_disconnect(self):
        refscope.connect(self.receiver.address, token_file=self.receiver.token_file, label="api test")
        out = self.receiver.out
        connected = out.wait_event("connected", pid=os.getpid())
        self.assertEqual(connected["label"], "api test")
        status = refscope.connection_status()
        self.assertTrue(status["connected"])
        self.assertEqual(status["address"], self.receiver.address)
        with self.assertRaisesRegex(RuntimeError, "already connected"):
            refscope.connect(self.receiver.address, token_file=self.receiver.token_file)
        cid = connected["connection"]
        self.receiver.command("ping %d" % cid)
        out.wait_event("pong", connection=cid)
        self.receiver.command("snapshot %d" % cid)
        saved = out.wait_event("saved", connection=cid)
        self.assertEqual(read_snapshot_info(saved["path"])["header"]["pid"], os.getpid())
        wait_until(lambda: refscope.connection_status()["snapshots_sent"] == 1, what="snapshots_sent")
        self.assertTrue(refscope.disconnect())
        gone = out.wait_event("disconnected", connection=cid)
        self.assertEqual((gone["reason"], gone["message"]), ("goodbye", "disconnect() called"))
        self.assertFalse(refscope.connection_status()["connected"])
        self.assertFalse(refscope.disconnect())

    def test_live_snapshots_leave_nothing_behind(self):
        # Probe rule: no leaked references, no Python objects left over. The
        # walk runs on the connection's thread; this process's allocated
        # blocks must not grow with the number of snapshots.
        refscope.connect(self.receiver.address, token_file=self.receiver.token_file)
        out = self.receiver.out
        cid = out.wait_event("connected", pid=os.getpid())["connection"]

        def snapshots(n, collect):
            for _ in range(n):
                mark = out.mark()
                self.receiver.command(("collect %d" if collect else "snapshot %d") % cid)
                saved = out.wait_event("saved", after=mark, connection=cid)
                os.unlink(saved["path"])
                with out.lock:  # the harness's own event list must not grow either
                    del out.events[:]

        snapshots(3, True)
        import gc
        gc.collect()
        before = sys.getallocatedblocks()
        snapshots(20, False)
        snapshots(5, True)
        gc.collect()
        grown = sys.getallocatedblocks() - before
        self.assertLess(grown, 100, "allocated blocks grew by %d over 25 snapshots" % grown)

    def test_tcp_on_loopback(self):
        refscope.connect(self.receiver.tcp_address, self.receiver.token)
        connected = self.receiver.out.wait_event("connected", pid=os.getpid())
        self.assertEqual(connected["transport"], "tcp")
        self.receiver.command("collect %d" % connected["connection"])
        saved = self.receiver.out.wait_event("saved", connection=connected["connection"])
        self.assertTrue(saved["collected"])
        self.assertEqual(stat.S_IMODE(os.stat(saved["path"]).st_mode), 0o600)


if __name__ == "__main__":
    unittest.main()

"""Describe callbacks that break the rules (fixtures/misbehavefix.cpp): the
probe keeps the target process safe. The walk completes, a failed call's
reports are dropped, reports are bounded, stale sinks and handles do
nothing, no C++ exception and no Python exception escapes."""
import os
import sys
import tempfile
import unittest

import _misbehavefix
import refscope
from cpp_ext_support import EDGE_OWNED, cli, in_edges, walk
from refscope import _probe

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "live"))
from live_support import Receiver  # noqa: E402


class Payload:
    pass


def described(value_id, label="Target::value"):
    report, (facts,) = walk(value_id)
    return report, [e for e in in_edges(facts, "Native") if e[2] == label], facts


class Misbehaving(unittest.TestCase):
    def setUp(self):
        self.value = Payload()
        self.target = _misbehavefix.Target()
        self.target.value = self.value

    def tearDown(self):
        _misbehavefix.set_mode("good")
        # unittest keeps finished TestCase objects: drop this one's Target so
        # that the next test's walk describes its own only.
        self.target = self.value = None

    def test_good_mode_is_the_control(self):
        report, edges, _ = described(id(self.value))
        self.assertEqual(edges, [("Native", EDGE_OWNED, "Target::value")])
        self.assertEqual(report["describe"]["failed_calls"], 0)

    def test_a_failed_call_applies_nothing(self):
        _misbehavefix.set_mode("fail")
        report, edges, _ = described(id(self.value))
        self.assertEqual(edges, [])
        self.assertEqual(report["describe"]["failed_calls"], 1)
        self.assertEqual(report["describe"]["native_nodes"], 0)

    def test_a_callback_that_keeps_failing_is_switched_off(self):
        _misbehavefix.set_mode("fail")
        more = [_misbehavefix.Target() for _ in range(30)]
        report, _edges, _ = described(id(self.value))
        self.assertEqual(report["describe"]["failed_calls"], 16)
        self.assertEqual(report["describe"]["disabled"], 1)
        del more

    def test_a_cpp_exception_never_reaches_python(self):
        _misbehavefix.set_mode("throw")
        report, edges, _ = described(id(self.value))
        self.assertEqual(edges, [])
        self.assertEqual(report["describe"]["failed_calls"], 1)

    def test_the_helper_catches_its_lambda_exceptions(self):
        _misbehavefix.set_mode("throw_helper")
        helper = _misbehavefix.HelperTarget()
        held = Payload()
        helper.value = held
        report, edges, _ = described(id(held), "HelperTarget::value")
        self.assertEqual(edges, [])
        self.assertGreaterEqual(report["describe"]["failed_calls"], 1)
        _misbehavefix.set_mode("good")
        report, edges, _ = described(id(held), "HelperTarget::value")
        self.assertEqual(len(edges), 1)

    def test_reports_are_bounded_per_call(self):
        _misbehavefix.set_mode("flood")
        report, edges, _ = described(id(self.value), "flood")
        self.assertEqual(len(edges), 1 << 16)
        self.assertEqual(report["describe"]["dropped_reports"], 100000 - (1 << 16))

    def test_garbage_arguments_are_ignored(self):
        _misbehavefix.set_mode("garbage")
        for _ in range(2):  # the second walk sees a handle from the first
            report, (facts,) = walk(id(self.value))
            labels = sorted(e[2] for e in in_edges(facts, "Native"))
            self.assertEqual(labels, ["", "x" * 256])
            self.assertEqual(report["describe"]["failed_calls"], 0)
            self.assertEqual(report["describe"]["native_nodes"], 1)  # "Kept"

    def test_a_sink_kept_past_its_call_does_nothing(self):
        _misbehavefix.set_mode("stale")
        described(id(self.value))
        stranger = Payload()
        self.assertTrue(_misbehavefix.use_stale_sink(stranger))  # no crash
        _misbehavefix.set_mode("good")
        _report, edges, _ = described(id(self.value))
        self.assertEqual(len(edges), 1)
        _report, (facts,) = walk(id(stranger))
        self.assertNotIn("stale", [e[2] for e in in_edges(facts)])

    def test_a_python_exception_left_set_fails_the_call_and_is_cleared(self):
        _misbehavefix.set_mode("pyerr")
        report, edges, _ = described(id(self.value))
        self.assertEqual(edges, [])
        self.assertEqual(report["describe"]["failed_calls"], 1)

    def test_reentering_the_probe_is_refused(self):
        _misbehavefix.set_reenter(_probe._debug_walk)
        _misbehavefix.set_mode("reenter")
        try:
            report, _edges, _ = described(id(self.value))
            self.assertEqual(report["describe"]["failed_calls"], 1)
        finally:
            _misbehavefix.set_reenter(None)

    def test_snapshot_files_are_written_whatever_the_callbacks_do(self):
        with tempfile.TemporaryDirectory() as directory:
            for mode in ("fail", "throw", "flood", "garbage", "pyerr"):
                _misbehavefix.set_mode(mode)
                path = os.path.join(directory, mode + ".rscope")
                stats = refscope.snapshot(path)
                self.assertTrue(os.path.getsize(path) > 0)
                self.assertGreaterEqual(stats.describe["calls"], 1)


class LiveSnapshotDuringAWalk(unittest.TestCase):
    """A callback that lets the GIL go in the middle of a walk (here: by
    running Python code that waits) gives the live connection's thread its
    chance to take the GIL. Its snapshot request must be refused like a
    re-entered one, not start a second walk over the first one's state."""

    def setUp(self):
        if not cli():
            self.skipTest("REFSCOPE_CLI not set")
        self.receiver = Receiver()
        self.addCleanup(self.receiver.close)
        self.addCleanup(refscope.disconnect)
        self.value = Payload()
        self.target = _misbehavefix.Target()
        self.target.value = self.value

    def tearDown(self):
        _misbehavefix.set_mode("good")
        _misbehavefix.set_reenter(None)
        self.target = self.value = None

    def test_the_live_request_is_refused_and_both_walks_end(self):
        refscope.connect(self.receiver.address, token_file=self.receiver.token_file)
        out = self.receiver.out
        cid = out.wait_event("connected", pid=os.getpid())["connection"]
        outcomes = []

        def wait_for_the_live_snapshot():
            if outcomes:
                return  # once (the live walk, if any, calls this again)
            outcomes.append(None)
            self.receiver.command("snapshot %d" % cid)
            # Waiting on a condition releases the GIL: the connection's
            # thread takes it now, in the middle of this walk.
            outcomes[0] = out.wait(lambda e: e.get("event") in ("saved", "failed") and
                                   e.get("connection") == cid, what="the live snapshot's outcome")

        _misbehavefix.set_reenter(wait_for_the_live_snapshot)
        _misbehavefix.set_mode("reenter")
        report, edges, _ = described(id(self.value))
        self.assertEqual(report["describe"]["failed_calls"], 0)
        self.assertEqual(outcomes[0]["event"], "failed", outcomes[0])
        self.assertIn("already being taken", outcomes[0]["reason"])

        # The connection is still good once the walk is over.
        _misbehavefix.set_mode("good")
        mark = out.mark()
        self.receiver.command("snapshot %d" % cid)
        out.wait_event("saved", after=mark, connection=cid)


if __name__ == "__main__":
    unittest.main()

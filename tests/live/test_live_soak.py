"""Many snapshots streamed from a target whose threads mutate containers all
the while: no crash, every snapshot a valid file, consecutive sequence
numbers, and no leak in the target (memory, threads, file descriptors) or
in the receiver (memory).

The default count keeps CI fast; a full run is
    REFSCOPE_SOAK_SNAPSHOTS=1000 python -m unittest test_live_soak
(docs/protocol.md, "Tests and fuzzing"; its numbers are in docs/performance-app.md)."""

import os
import time
import unittest

from live_support import Receiver, Target, read_snapshot_info, require_cli, scaled


class Soak(unittest.TestCase):
    def setUp(self):
        require_cli(self)

    def test_snapshots_while_threads_mutate(self):
        count = scaled("REFSCOPE_SOAK_SNAPSHOTS", 60)
        receiver = Receiver()
        self.addCleanup(receiver.close)
        target = Target("busy_target.py", "--heap", "3000", "--workers", "4", env=receiver.env())
        self.addCleanup(target.kill)
        out = receiver.out
        cid = out.wait_event("connected", pid=target.pid)["connection"]
        target.out.wait_event("ready")
        warm_up = min(10, count // 2)
        sequences = []
        started = time.monotonic()
        baseline = None
        for i in range(count):
            mark = out.mark()
            receiver.command(("collect %d" if i % 10 == 0 else "snapshot %d") % cid)
            saved = out.wait(lambda e: e.get("event") in ("saved", "discarded", "failed")
                             and e.get("connection") == cid, after=mark, timeout=120,
                             what="snapshot %d of %d" % (i + 1, count))
            self.assertEqual(saved["event"], "saved", saved)
            sequences.append(saved["sequence"])
            # Decode a sample fully (every file would make a 1000-run slow);
            # the receiver checked every one's framing and checksums.
            if i % 25 == 0 or i == count - 1:
                info = read_snapshot_info(saved["path"])
                self.assertEqual(info["header"]["pid"], target.pid)
                self.assertEqual(info["counts"]["objects"], saved["nodes"])
            os.unlink(saved["path"])  # keep the disk use flat in long runs
            if i + 1 == warm_up:
                baseline = (target.rss_bytes(), target.threads(), target.fds(), receiver.rss_bytes())
        elapsed = time.monotonic() - started
        self.assertEqual(sequences, list(range(sequences[0], sequences[0] + count)))
        self.assertTrue(target.alive())
        rss, threads, fds, receiver_rss = target.rss_bytes(), target.threads(), target.fds(), receiver.rss_bytes()
        self.assertEqual(threads, baseline[1])
        self.assertEqual(fds, baseline[2])
        # Memory after the warm-up may drift with the program's own churn
        # and allocator fragmentation, never grow with the snapshot count.
        self.assertLess(rss, baseline[0] * 1.3 + (24 << 20), (rss, baseline[0]))
        self.assertLess(receiver_rss, baseline[3] * 1.3 + (16 << 20), (receiver_rss, baseline[3]))
        self.assertEqual(out.count("discarded") + out.count("failed"), 0)
        print("\n%d snapshots in %.1f s; target RSS %.1f -> %.1f MB, receiver RSS %.1f -> %.1f MB"
              % (count, elapsed, baseline[0] / 1e6, rss / 1e6, baseline[3] / 1e6, receiver_rss / 1e6))
        self.assertEqual(target.finish(), 0)


if __name__ == "__main__":
    unittest.main()

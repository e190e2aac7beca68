"""(b) 1,000 snapshots leave the process as they found it: the number of
GC-tracked objects, the refcounts of sampled objects and the RSS stay flat."""

import gc
import os
import sys
import unittest

from probe_support import TempSnapshot, _probe, refscope, rss_bytes


class Sample:
    pass


SAMPLES = [Sample(), {"k": 1}, [1, 2, 3], "a string held by a global %d" % os.getpid(), Sample]
ITERATIONS = int(os.environ.get("REFSCOPE_LEAK_ITERATIONS", "1000"))


def refcounts():
    return [sys.getrefcount(o) for o in SAMPLES + [refscope, _probe, _probe.snapshot]]


class NoLeakTest(unittest.TestCase):
    def test_repeated_snapshots_do_not_leak(self):
        with TempSnapshot() as path:
            for _ in range(20):  # warm up allocator pools and caches
                refscope.snapshot(path, collect=False)
            gc.collect()
            objects_before = len(gc.get_objects())
            counts_before = refcounts()
            rss_before = rss_bytes()
            for i in range(ITERATIONS):
                stats = refscope.snapshot(path, collect=(i % 100 == 0))
                self.assertGreater(stats.nodes, 0)
            gc.collect()
            objects_after = len(gc.get_objects())
            counts_after = refcounts()
            rss_after = rss_bytes()
        self.assertEqual(counts_before, counts_after, "sampled refcounts changed")
        # Only the loop's own locals may differ (stats, i).
        self.assertLessEqual(objects_after - objects_before, 5,
                             "GC-tracked objects grew: %d -> %d" % (objects_before, objects_after))
        growth = rss_after - rss_before
        self.assertLess(growth, 16 << 20, "RSS grew by %d bytes" % growth)

    def test_debug_walk_does_not_leak(self):
        target = SAMPLES[0]
        for _ in range(5):
            _probe._debug_walk(False, (id(target),))
        before = refcounts()
        for _ in range(100):
            _probe._debug_walk(False, (id(target),))
        self.assertEqual(before, refcounts())


if __name__ == "__main__":
    unittest.main()

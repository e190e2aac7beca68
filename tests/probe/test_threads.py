"""(c) Four threads mutate dicts, lists and sets while the main thread takes
snapshots: the probe must not crash, and must name the threads."""

import random
import threading
import unittest

from probe_support import TempSnapshot, _probe, refscope


class Mutator(threading.Thread):
    def __init__(self, index, stop):
        super().__init__(name="mutator-%d" % index, daemon=True)
        self.stop = stop
        self.seed = index

    def run(self):
        rng = random.Random(self.seed)
        d, items, members = {}, [], set()
        while not self.stop.is_set():
            for _ in range(200):
                k = rng.randrange(1000)
                d[k] = [k] * rng.randrange(4)
                d.pop(rng.randrange(1000), None)
                items.append({"k": k})
                if len(items) > 500:
                    del items[: rng.randrange(500)]
                members.add(str(k))
                members.discard(str(rng.randrange(1000)))
            if rng.random() < 0.1:
                d = {}


class ThreadSafetyTest(unittest.TestCase):
    def test_snapshots_while_threads_mutate(self):
        stop = threading.Event()
        threads = [Mutator(i, stop) for i in range(4)]
        for t in threads:
            t.start()
        try:
            with TempSnapshot() as path:
                for i in range(60):
                    stats = refscope.snapshot(path, collect=(i % 10 == 0))
                    self.assertGreater(stats.nodes, 0)
                    report = _probe._debug_walk(False, ())
                    self.assertTrue(report["edges_grouped"])
                    self.assertTrue(report["ids_valid"])
            names = {name for _ident, name, _main in report["threads"]}
            for t in threads:
                self.assertIn(t.name, names)
            mains = [name for _ident, name, main in report["threads"] if main]
            self.assertEqual(mains, ["MainThread"])
        finally:
            stop.set()
            for t in threads:
                t.join()


if __name__ == "__main__":
    unittest.main()

"""pandas/NumPy: build frames, group, join and summarise them, as a
reporting job does. The planted leak: the report function is memoised with
an unbounded functools.lru_cache keyed by the request id, so every Report
(and the frame it holds) stays in the cache."""
import functools

import numpy
import pandas

from real_common import Run

run = Run()
counter = [0]
rng = numpy.random.default_rng(7)


class Report:
    def __init__(self, frame):
        self.frame = frame
        self.total = float(frame["amount"].sum())


def build(request_id):
    frame = pandas.DataFrame({"region": rng.choice(["n", "s", "e", "w"], 200),
                              "amount": rng.random(200), "units": rng.integers(1, 9, 200)})
    summary = frame.groupby("region").agg({"amount": "sum", "units": "mean"}).reset_index()
    regions = pandas.DataFrame({"region": ["n", "s", "e", "w"], "name": ["N", "S", "E", "W"]})
    return Report(summary.merge(regions, on="region"))


memoised_build = functools.lru_cache(maxsize=None)(build)


def work():
    for _ in range(20):
        counter[0] += 1
        report = memoised_build(counter[0]) if run.leak else build(counter[0])
        assert report.total > 0


run.rounds(work)
run.finish(type="__main__.Report", holder="memoised_build")

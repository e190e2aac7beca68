"""pandas/NumPy: build frames, group, join and summarise them, as a
reporting job does. The planted leaks, one per run:
- memoised: the report function is memoised with an unbounded
  functools.lru_cache keyed by the request id, so every Report (and the
  frame it holds) stays in the cache;
- kept_errors: each report's validation fails, and the job keeps the
  exceptions "for the summary e-mail": each ReportError's traceback holds
  the frame of build(), whose locals hold its DataFrames."""
import functools

import numpy
import pandas

from real_common import Run

LEAKS = {"memoised": {"type": "__main__.Report", "holder": "memoised_build"},
         "kept_errors": {"type": "__main__.ReportError", "holder": "FAILURES"}}
run = Run(LEAKS)
FAILURES = []
counter = [0]
rng = numpy.random.default_rng(7)


class ReportError(Exception):
    pass


class Report:
    def __init__(self, frame):
        self.frame = frame
        self.total = float(frame["amount"].sum())


def build(request_id):
    frame = pandas.DataFrame({"region": rng.choice(["n", "s", "e", "w"], 200),
                              "amount": rng.random(200), "units": rng.integers(1, 9, 200)})
    summary = frame.groupby("region").agg({"amount": "sum", "units": "mean"}).reset_index()
    regions = pandas.DataFrame({"region": ["n", "s", "e", "w"], "name": ["N", "S", "E", "W"]})
    merged = summary.merge(regions, on="region")
    if run.leak == "kept_errors" and len(merged) < 5:
        raise ReportError(f"request {request_id}: only {len(merged)} regions")
    return Report(merged)


memoised_build = functools.lru_cache(maxsize=None)(build)


def work():
    for _ in range(20):
        counter[0] += 1
        try:
            report = memoised_build(counter[0]) if run.leak == "memoised" else build(counter[0])
        except ReportError as error:
            FAILURES.append(error)
            continue
        assert report.total > 0


run.rounds(work)
run.finish()

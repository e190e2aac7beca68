"""Runs the demo service in two rounds and snapshots the process after each.

One snapshot shows what is alive; two snapshots of the same process show
what grows. This driver handles 100 requests, takes snapshot #1, handles 200
more (and churns some collectable cycles), takes snapshot #2. Opened together
in refscope, the growth between them points straight at the leak: the cache
dict where every Response accumulates.

    python3 snapshot_service.py OUT_DIR    (with the refscope package importable)
writes OUT_DIR/before.rscope and OUT_DIR/after.rscope.
"""
import os
import sys

import refscope

import leaky_service  # noqa: E402  (next to this script)


def serve(first, last):
    served = 0
    for request_id in range(first, last):
        served += leaky_service.handle(leaky_service.Request(request_id, "payload-%d" % request_id))
    return served


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    before = os.path.join(out_dir, "before.rscope")
    after = os.path.join(out_dir, "after.rscope")
    serve(0, 100)
    refscope.snapshot(before, collect=True, label="after 100 requests")
    serve(100, 300)
    leaky_service.churn_cycles(100)
    refscope.snapshot(after, collect=True, label="after 300 requests")
    print("snapshots: %s (100 requests), %s (300 requests); %d responses cached"
          % (before, after, len(leaky_service.response_cache.cache)))


if __name__ == "__main__":
    main(sys.argv[1])

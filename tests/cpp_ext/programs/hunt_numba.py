"""The user guide's Numba hunt (docs/guide/hunt-numba.md; reference
document 004, "Debugging Leaks"): a jitted function returns a large array
whose memory is an NRT MemInfo; the program keeps the last ten points of
each result. A slice is a view: its `.base` is the MemInfo's Python object, so
every 8 MB allocation stays alive for the sake of ten numbers, and NRT's
allocation statistics never balance.

  hunt_numba.py DIR [--fixed]

writes DIR/before.rscope (after one batch) and DIR/after.rscope (after ten
more). With --fixed the slice is copied (`.copy()`): the copy owns its ten
numbers and the MemInfo is freed with the result."""
import gc
import json
import os
import sys

os.environ.setdefault("NUMBA_NRT_STATS", "1")  # Numba 0.59+ counts allocations only when asked
import numba  # noqa: E402
import numpy as np  # noqa: E402
import refscope  # noqa: E402
from numba.core.runtime import rtsys  # noqa: E402

fixed = "--fixed" in sys.argv[2:]


@numba.njit
def simulate(n, seed):
    np.random.seed(seed)
    return np.cumsum(np.random.standard_normal(n))  # allocated by NRT


ENDINGS = []  # the last ten points of each run, for the report


def run_batch(seed):
    path = simulate(1_000_000, seed)  # 8 MB
    ending = path[-10:]  # a view: its .base holds all 8 MB
    ENDINGS.append(ending.copy() if fixed else ending)


def snapshot(name):
    gc.collect()
    refscope.snapshot(os.path.join(sys.argv[1], name), collect=True)


run_batch(0)
snapshot("before.rscope")
for seed in range(1, 11):
    run_batch(seed)
snapshot("after.rscope")
stats = rtsys.get_allocation_stats()
print(json.dumps({"numba": numba.__version__, "numpy": np.__version__, "python": sys.version.split()[0],
                  "nrt_alloc": stats.alloc, "nrt_free": stats.free}))

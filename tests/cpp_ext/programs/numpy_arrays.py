"""NumPy arrays and Numba MemInfo objects (the probe's recognisers): an
8 MB array only a view keeps alive, an 80 MB array two views share, an object array in a cycle, and,
when Numba imports, an array allocated by a jitted function (its memory is
an NRT MemInfo). Snapshot path: argv[1]; prints one JSON line."""
import sys

import numpy as np
from program_common import finish

base = np.zeros(1_000_000)            # 8,000,000 bytes of float64
view = base[::2]                      # keeps `base` alive through .base
base_address = hex(id(base))
del base

# 80 MB that two views share: counted once, at the array that owns it.
big = np.ones(10_000_000)             # 80,000,000 bytes of float64
left, right = big[:5_000_000], big[5_000_000:]
big_address = hex(id(big))
del big

# An object array in a cycle with a list: ndarray has no tp_traverse, so
# the collector cannot see the array's reference to the list. (An object
# array holding only itself is reachable from nothing the walk starts from:
# ndarray is not a GC type, and NumPy keeps no registry of arrays.)
loop = np.empty(2, dtype=object)
holder = [loop]
loop[0] = holder
loop_address = hex(id(loop))
del loop, holder

extra = {}
try:
    import numba
except ImportError:
    numba = None
if numba is not None:
    @numba.njit
    def make(n):
        return np.ones(n)
    jitted = make(1000)               # 8,000 bytes owned by an NRT MemInfo
    extra = {"numba": numba.__version__, "jitted": hex(id(jitted)),
             "meminfo_object": hex(id(jitted.base))}

finish(sys.argv[1], base=base_address, view=hex(id(view)), loop=loop_address, big=big_address,
       left=hex(id(left)), right=hex(id(right)), numpy=np.__version__, **extra)

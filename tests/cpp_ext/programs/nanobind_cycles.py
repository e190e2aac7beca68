"""The nanobind page's leaks with nanobind types (fixtures/nanobindfix.cpp):
each Wrapper cycle runs through a C++ member the collector cannot see; the
TraversedWrapper ones (nb::type_slots tp_traverse/tp_clear) are collected.
With argv[2] == "drop-module", makes no Wrapper cycles and drops the module
instead, leaving DefaultWrapper's default argument cycle (type -> __init__
-> default instance -> type) unreachable.
Snapshot path: argv[1]. Prints one JSON line (see program_common.py)."""
import gc
import sys

import _nanobindfix
from program_common import finish
from wrapper_cycles import ALL as CYCLES

if sys.argv[2:] == ["drop-module"]:
    del sys.modules["_nanobindfix"], _nanobindfix
    gc.collect()
else:
    for make in CYCLES:
        make(_nanobindfix.Wrapper)
        make(_nanobindfix.TraversedWrapper)

finish(sys.argv[1])

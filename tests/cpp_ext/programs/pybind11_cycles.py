"""The nanobind page's leaks with pybind11 types (fixtures/pybindfix.cpp):
each Wrapper cycle runs through a C++ member the collector cannot see.
Snapshot path: argv[1]. Prints one JSON line (see program_common.py)."""
import sys

import _pybindfix
from program_common import finish
from wrapper_cycles import ALL as CYCLES, closure_cycle, default_argument_cycle, globals_cycle

for make in CYCLES:
    make(_pybindfix.Wrapper)
    make(_pybindfix.TraversedWrapper)
for make in (closure_cycle, globals_cycle, default_argument_cycle):
    make(_pybindfix.CallbackWrapper)

finish(sys.argv[1])

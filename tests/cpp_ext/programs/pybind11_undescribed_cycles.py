"""The nanobind page's leaks through a C++ member nobody describes
(fixtures/pybindfix.cpp: _pybindfix.UndescribedWrapper has no tp_traverse
and no describe callback): the member's reference is unexplained surplus
of the callable, and refscope infers that the wrapper holds it. In the same
heap, what must not be inferred: the described Wrapper's cycles, the
TraversedWrapper's (collected), and a plain refcount leak with no wrapper
nearby. Snapshot path: argv[1]. Prints one JSON line (program_common.py)
with the wrappers' addresses per case and the leaked object's."""
import sys

import _describefix
import _pybindfix
from program_common import finish
from wrapper_cycles import ALL as CYCLES, bound_method_cycle, closure_cycle, default_argument_cycle, globals_cycle

UNDESCRIBED = {
    "closure": closure_cycle,
    "globals": globals_cycle,
    "default argument": default_argument_cycle,
    "bound method": bound_method_cycle,
}


class Payload:
    pass


# Each returns its wrapper, dropped as soon as its address is taken.
wrappers = {case: hex(id(make(_pybindfix.UndescribedWrapper))) for case, make in UNDESCRIBED.items()}
for make in CYCLES + (bound_method_cycle,):
    make(_pybindfix.Wrapper)
    make(_pybindfix.TraversedWrapper)

leaked = Payload()
leaked.items = [Payload()]
_describefix.incref_twice_decref_once(leaked)
leaked_address = hex(id(leaked))
del leaked

finish(sys.argv[1], wrappers=wrappers, leaked=leaked_address)

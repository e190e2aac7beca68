"""The nanobind page's leaks with pybind11 types (fixtures/pybindfix.cpp):
each Wrapper cycle runs through a C++ member the collector cannot see.
Snapshot path: argv[1]. Prints one JSON line (see program_common.py)."""
import sys

import _pybindfix
from program_common import finish


def self_cycle(cls):
    w = cls()
    w.value = w


def closure_cycle(cls):
    w = cls()

    def callback():
        return w  # the closure's cell holds w
    w.value = callback


def globals_cycle(cls):
    w = cls()
    namespace = {"w": w}  # a plain function's globals hold w
    exec("def callback():\n    return w\n", namespace)
    w.value = namespace["callback"]


def default_argument_cycle(cls):
    w = cls()

    def callback(arg=w):  # __defaults__ holds w
        return arg
    w.value = callback


for make in (self_cycle, closure_cycle, globals_cycle, default_argument_cycle):
    make(_pybindfix.Wrapper)
    make(_pybindfix.TraversedWrapper)
for make in (closure_cycle, globals_cycle, default_argument_cycle):
    make(_pybindfix.CallbackWrapper)

finish(sys.argv[1])

"""Scenario (f): the nanobind page's Wrapper cycles with C
types from the _wrapperfix fixture. Each cycle runs through `w.value`.

Wrapper (no tp_traverse) and UntraversedWrapper (tp_traverse forgets value):
the collector cannot free these cycles; refscope must report each as an
uncollectable cycle naming the type and `.value`.
TraversedWrapper (tp_traverse + tp_clear): gc.collect() frees them all."""
import sys

import _wrapperfix
from scenario_common import finish


def closure_cycle(cls):
    w = cls()

    def callback():
        return w  # the closure's cell holds w
    w.value = callback


def default_argument_cycle(cls):
    w = cls()

    def callback(arg=w):  # __defaults__ holds w
        return arg
    w.value = callback


def globals_cycle(cls):
    w = cls()
    namespace = {"w": w}  # a plain function's globals hold w
    exec("def callback():\n    return w\n", namespace)
    w.value = namespace["callback"]


def self_cycle(cls):
    w = cls()
    w.value = w


for cls in (_wrapperfix.Wrapper, _wrapperfix.TraversedWrapper):
    closure_cycle(cls)
    default_argument_cycle(cls)
    globals_cycle(cls)
for cls in (_wrapperfix.UntraversedWrapper, _wrapperfix.TraversedWrapper):
    self_cycle(cls)

finish(sys.argv[1], None)

"""Scenario (b): the nanobind page's closure cycle and default-argument cycle,
in pure Python. The collector can free both, so after collect=True no
Wrapper instance may be left in the snapshot."""
import sys

from scenario_common import finish


class Wrapper:
    def __init__(self):
        self.value = None


def make_closure_cycle():
    w = Wrapper()

    def callback():
        return w  # the closure cell holds w ...
    w.value = callback  # ... and w holds the closure


def make_default_argument_cycle():
    w = Wrapper()

    def callback(arg=w):  # the function's __defaults__ hold w
        return arg
    w.value = callback


def make_self_cycle():
    w = Wrapper()
    w.value = w


for _ in range(10):
    make_closure_cycle()
    make_default_argument_cycle()
    make_self_cycle()
finish(sys.argv[1], None, type="__main__.Wrapper")

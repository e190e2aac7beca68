"""What describe callbacks cost the walk: walk time per object for 100,000
C objects without a describer (_wrapperfix.Wrapper), with a C describe
callback (_describefix.Wrapper) and pybind11 instances (the probe's
recogniser, the module's describe_pybind11 callback and one C++-object
node each). Best of five walks, minus the walk of the heap without them.

    PYTHONPATH=build/dev/python:build/dev/tests/cpp_ext/fixtures:build/dev/tests/scenarios/fixtures \
        python3 tests/cpp_ext/bench/bench_describe.py
(not a test: numbers are recorded in docs/cpp-extensions.md)"""
import _describefix
import _pybindfix
import _wrapperfix
from refscope import _probe

N = 100_000
def walk_ns():
    best = None
    for _ in range(5):
        r = _probe._debug_walk(False, ())
        best = r["walk_ns"] if best is None else min(best, r["walk_ns"])
    return best
base = walk_ns()
plain = [_wrapperfix.Wrapper() for _ in range(N)]
for w in plain: w.value = w
t_plain = walk_ns() - base
del plain
described = [_describefix.Wrapper() for _ in range(N)]
for w in described: w.value = w
t_desc = walk_ns() - base
del described
pyb = [_pybindfix.Wrapper() for _ in range(N)]
for w in pyb: w.value = 1
t_pyb = walk_ns() - base
del pyb
print("baseline walk %.1f ms; per object: C type without describer %.0f ns, with a describe "
      "callback %.0f ns, pybind11 instance (recogniser + callback + C++ object node) %.0f ns"
      % (base / 1e6, t_plain / N, t_desc / N, t_pyb / N))

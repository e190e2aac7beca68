"""SymPy: expand, differentiate and solve small expressions, as a notebook
or a CAS-backed service does. The planted leak: every computation's
Derivation is kept in a module-level history list. SymPy's own caches
(cacheit's lru_cache, the symbol registry) warm up alongside it."""
import sympy

from real_common import Run

run = Run(trace_frames=1)  # a Derivation is made in work() itself
x, y = sympy.symbols("x y")
HISTORY = []
counter = [0]


class Derivation:
    def __init__(self, expression, result):
        self.expression = expression
        self.result = result


def work():
    for _ in range(25):
        i = counter[0] = counter[0] + 1
        expression = sympy.expand((x + i) ** 3 * (y - i))
        result = sympy.diff(expression, x)
        sympy.solve(sympy.Eq(x * i + 2, y), x)
        if run.leak:
            HISTORY.append(Derivation(expression, result))


run.rounds(work)
run.finish(type="__main__.Derivation", holder="HISTORY")

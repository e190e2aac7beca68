"""SymPy: expand, differentiate and solve small expressions, as a notebook
or a CAS-backed service does. The planted leaks, one per run:
- history: every computation's Derivation is kept in a module-level list;
- method_cache: a Solver made per computation has its solve method memoised
  with functools.lru_cache on the class, so the cache's keys keep every
  Solver (self) alive: the classic lru_cache-on-a-method leak.
SymPy's own caches (cacheit's lru_cache, the symbol registry) warm up
alongside them."""
import functools
import sympy

from real_common import Run

LEAKS = {"history": {"type": "__main__.Derivation", "holder": "HISTORY"},
         "method_cache": {"type": "__main__.Solver", "holder": "solve_for"}}
run = Run(LEAKS, trace_frames=1)  # both are made in work() itself
x, y = sympy.symbols("x y")
HISTORY = []
counter = [0]


class Derivation:
    def __init__(self, expression, result):
        self.expression = expression
        self.result = result


class Solver:
    def __init__(self, i):
        self.i = i

    def solve_for(self, symbol):
        return sympy.solve(sympy.Eq(x * self.i + 2, y), symbol)

    cached_solve_for = functools.lru_cache(maxsize=None)(solve_for)


def work():
    for _ in range(25):
        i = counter[0] = counter[0] + 1
        expression = sympy.expand((x + i) ** 3 * (y - i))
        result = sympy.diff(expression, x)
        solver = Solver(i)
        if run.leak == "method_cache":
            solver.cached_solve_for(x)
        else:
            solver.solve_for(x)
        if run.leak == "history":
            HISTORY.append(Derivation(expression, result))


run.rounds(work)
run.finish()

"""The nanobind page's ways to close a cycle through a C++ member that holds
a Python object (`w.value`), shared by the pybind11 and nanobind programs:
each function makes one cycle through an instance of `cls` and returns the
instance (callers that keep it only for its address must drop it). ALL is
the four the programs have always made; bound_method_cycle is the page's
fifth, used by pybind11_undescribed_cycles.py."""


def self_cycle(cls):
    w = cls()
    w.value = w
    return w


def closure_cycle(cls):
    w = cls()

    def callback():
        return w  # the closure's cell holds w
    w.value = callback
    return w


def globals_cycle(cls):
    w = cls()
    namespace = {"w": w}  # a plain function's globals hold w
    exec("def callback():\n    return w\n", namespace)
    w.value = namespace["callback"]
    return w


def default_argument_cycle(cls):
    w = cls()

    def callback(arg=w):  # __defaults__ holds w
        return arg
    w.value = callback
    return w


class _Owner:
    def __init__(self, cls):
        self.w = cls()
        self.w.value = self.fire  # the bound method's __self__ holds the owner

    def fire(self):
        return self.w


def bound_method_cycle(cls):
    return _Owner(cls).w


ALL = (self_cycle, closure_cycle, globals_cycle, default_argument_cycle)

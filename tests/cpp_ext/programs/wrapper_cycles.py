"""The nanobind page's four ways to close a cycle through a C++ member that
holds a Python object (`w.value`), shared by the pybind11 and nanobind
programs: each function makes one cycle through an instance of `cls`."""


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


ALL = (self_cycle, closure_cycle, globals_cycle, default_argument_cycle)

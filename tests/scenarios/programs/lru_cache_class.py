"""Scenario (e): PyTorch's "Leak 4": a class stays alive through a
functools.lru_cache after every instance of it is gone. The path must run
through the cache."""
import functools
import sys

from scenario_common import finish


@functools.lru_cache(maxsize=None)
def describe_class(cls, detail):
    return f"{cls.__name__}:{detail}"


def make_and_use_class():
    class Model:
        param = [1, 2, 3]

    instance = Model()
    describe_class(type(instance), "fields")
    # instance and the class go out of scope here; only the cache holds Model.
    return hex(id(Model))


finish(sys.argv[1], None, address=make_and_use_class(), instances="__main__.make_and_use_class.<locals>.Model")

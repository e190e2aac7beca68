"""Scenario (h): PyTorch's torch.compile "Leak 4" (reference 002) on the real
standard library: Dynamo called inspect.getattr_static on user objects, and
CPython 3.12's inspect cached _shadowed_dict_from_mro_tuple with
functools.lru_cache keyed by the class's MRO, so a class defined in a
function — and the parameter its methods captured in a closure cell —
outlived every instance. CPython later made that cache weak; on the
interpreters without the cache the class is freed.
Snapshot path: argv[1]; prints one JSON line."""
import gc
import inspect
import sys

from scenario_common import finish


def compile_model():
    param = bytearray(1 << 16)  # the user's parameter, captured by forward()

    class MyModel:
        def forward(self, x):
            return param, x

    model = MyModel()
    inspect.getattr_static(model, "forward")
    return hex(id(MyModel)), hex(id(param))


model_class, param = compile_model()
gc.collect()
# (no global may hold the cache: the path must come from inspect's module)
finish(sys.argv[1], address=model_class, param=param,
       strong_cache=hasattr(getattr(inspect, "_shadowed_dict_from_mro_tuple", None), "cache_info"))

"""PyTorch tensors (the probe's PyTorch recogniser): an 80 MB NumPy array
(also seen by torch through from_numpy) beside a 40 MB tensor, a storage two views share after their base is gone,
a gradient kept alive only by its parameter's C++ autograd metadata (PyObject
preservation), a tensor the autograd graph has saved, a small model, and a
custom operator whose Python kernel (and what it captured) only PyTorch's
C++ dispatcher holds.
Snapshot path: argv[1]; prints one JSON line."""
import sys

import numpy as np
import torch
from program_common import finish

array = np.ones(10_000_000)                   # 80,000,000 bytes of float64
tensor = torch.ones(10_000_000)               # 40,000,000 bytes of float32
alias = torch.from_numpy(array)               # the array's bytes again: counted once

# 4 MB two views share; their base tensor is gone, its storage is not.
base = torch.zeros(1000, 1000)
left, right = base[:500], base[500:]
storage = base.untyped_storage()
shared = {"storage": hex(storage._cdata), "data": hex(storage.data_ptr())}
del base, storage

# A gradient whose every Python reference is gone: the parameter's C++
# AutogradMeta holds its TensorImpl, which keeps the Python object (and the
# attribute set on it) alive.
param = torch.nn.Parameter(torch.zeros(1000))
grad = torch.full((1000,), 7.0)
grad.note = "set on the gradient"
param.grad = grad
preserved = {"grad": hex(id(grad)), "grad_impl": hex(grad._cdata), "param_impl": hex(param._cdata)}
del grad

# A tensor the autograd graph saved (x * x saves x twice).
saved = torch.ones(100, requires_grad=True)
loss = (saved * saved).sum()

model = torch.nn.Linear(256, 256)


# A torch.library operator with a Python kernel: the kernel, and the settings
# its closure captured, are held by the dispatcher alone.
class KernelSettings:
    factor = 3.0


def make_kernel():
    settings = KernelSettings()

    def scale_kernel(x):
        return x * settings.factor
    return scale_kernel, settings


library = torch.library.Library("refscope_test", "DEF")
library.define("scale(Tensor x) -> Tensor")
kernel, settings = make_kernel()
library.impl("scale", kernel, "CPU")
assert torch.ops.refscope_test.scale(torch.ones(2)).tolist() == [3.0, 3.0]
dispatcher = {"kernel": hex(id(kernel)), "settings": hex(id(settings))}
del kernel, settings


def held_redispatchers():
    """PyTorch 2.14 (torch._ops._enable_pyobj_dispatch): each operator overload
    hands its bound `redispatch_boxed` to two C objects without tp_traverse
    (torch._C._PyObjectDispatchFunc, _PyObjectRedispatchFunc), which only
    the probe's inferred references see. The bound methods alive in the heap
    are those; {} on releases without them."""
    import gc
    found = [o for o in gc.get_objects()
             if type(o).__name__ == "method" and getattr(o, "__name__", "") == "redispatch_boxed"]
    return {"redispatch_boxed": [hex(id(m)) for m in found[:5]]}


finish(sys.argv[1], torch=torch.__version__, numpy=np.__version__, array=hex(id(array)),
       tensor=hex(id(tensor)), tensor_impl=hex(tensor._cdata), left=hex(id(left)), right=hex(id(right)),
       saved_impl=hex(saved._cdata), weight=hex(id(model.weight)), **shared, **preserved,
       **dispatcher, **held_redispatchers())

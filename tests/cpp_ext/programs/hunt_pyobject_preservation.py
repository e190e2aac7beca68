"""The user guide's PyObject preservation hunt
(docs/guide/hunt-pyobject-preservation.md; reference document 003): a
training loop keeps a debugging history on each parameter's gradient
(`p.grad.history`). The program holds no reference to the gradients, yet the
history grows: the C++ autograd metadata of each parameter holds its
gradient's TensorImpl, and PyTorch preserves the gradient's Python object
(with its attributes) for as long as the TensorImpl lives. Zeroing the
gradients in place (`zero_grad(set_to_none=False)`) keeps the same tensors,
so the same histories, step after step.

  hunt_pyobject_preservation.py DIR [--fixed]

writes DIR/before.rscope (after one step) and DIR/after.rscope (after ten
more). With --fixed the gradients are set to None each step (PyTorch's
default): each step's gradient, its Python object and its history are freed
with it."""
import gc
import json
import os
import sys

import refscope
import torch

fixed = "--fixed" in sys.argv[2:]


class Checkpoint:
    """One step's copy of a parameter, kept for debugging."""
    def __init__(self, step, weights):
        self.step = step
        self.weights = weights


model = torch.nn.Linear(256, 256)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
inputs = torch.ones(8, 256)


def train_step(step):
    optimizer.zero_grad(set_to_none=fixed)
    model(inputs).sum().backward()
    for p in model.parameters():
        if not hasattr(p.grad, "history"):
            p.grad.history = []
        p.grad.history.append(Checkpoint(step, p.detach().clone()))
    optimizer.step()


def snapshot(name):
    gc.collect()
    refscope.snapshot(os.path.join(sys.argv[1], name), collect=True)


train_step(0)
snapshot("before.rscope")
for step in range(1, 11):
    train_step(step)
snapshot("after.rscope")
print(json.dumps({"torch": torch.__version__, "python": sys.version.split()[0]}))

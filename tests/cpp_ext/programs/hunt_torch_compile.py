"""The user guide's torch.compile hunt (docs/guide/hunt-torch-compile.md;
reference document 002, "Leak 2"): Dynamo guarded on the user's layer with a
weakref.finalize whose callback (a functools.partial) held the OutputGraph,
which held the generated GraphModule, which holds the layer as a submodule.
The finalizer waits for the layer to be freed; its own arguments keep the
layer alive. Today's torch.compile no longer leaks this way, so the program
builds the same objects with today's torch (torch.fx.symbolic_trace makes
the GraphModule, as Dynamo's output graph does) for each model it "compiles".

  hunt_torch_compile.py DIR [--fixed]

writes DIR/before.rscope (after one model) and DIR/after.rscope (after five
more). With --fixed the callback holds no OutputGraph, as PyTorch's fix
does (the reference was removed once no longer needed): each model's layer
is freed with the model, and its finalizer runs."""
import functools
import gc
import json
import os
import sys
import weakref

import refscope
import torch

fixed = "--fixed" in sys.argv[2:]


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(512, 512)  # 1 MB of weights

    def forward(self, x):
        return self.linear(x).relu()


def invalidate(obj_str, output_graph=None):
    """The guard's invalidation callback, as Dynamo registered it."""
    if output_graph is not None:
        output_graph.clear()


def compile_and_run():
    model = Net()
    output_graph = {"graph_module": torch.fx.symbolic_trace(model)}  # holds model.linear
    arguments = {"obj_str": "L['self'].linear"}
    if not fixed:
        arguments["output_graph"] = output_graph
    weakref.finalize(model.linear, functools.partial(invalidate, **arguments))
    output_graph["graph_module"](torch.ones(2, 512))


def snapshot(name):
    gc.collect()
    refscope.snapshot(os.path.join(sys.argv[1], name), collect=True)


compile_and_run()
snapshot("before.rscope")
for _ in range(5):
    compile_and_run()
snapshot("after.rscope")
print(json.dumps({"torch": torch.__version__, "python": sys.version.split()[0]}))

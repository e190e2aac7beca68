"""torch.compile's "Leak 2" (reference 002) with real torch objects: Dynamo
registered a weakref.finalize on each object it guarded (here the model's
layer), its callback a functools.partial that held the OutputGraph, which held
the generated torch.fx GraphModule, which holds the layer as a submodule. The
layer is then never freed and the finalizer never runs. The model around it
is freed; the layer, its 1 MB weight and the GraphModule stay.
Snapshot path: argv[1]; prints one JSON line."""
import functools
import gc
import sys
import weakref

import torch
from program_common import finish


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(512, 512)

    def forward(self, x):
        return self.linear(x).relu()


def invalidate(obj_str, output_graph):
    output_graph.clear()


def compile_and_drop():
    model = Net()
    graph_module = torch.fx.symbolic_trace(model)  # holds model.linear as a submodule
    output_graph = {"graph_module": graph_module}
    weakref.finalize(model.linear, functools.partial(invalidate, obj_str="L['self'].linear",
                                                     output_graph=output_graph))
    assert graph_module(torch.ones(2, 512)).shape == (2, 512)
    return hex(id(model.linear)), hex(id(graph_module))


layer, graph_module = compile_and_drop()
gc.collect()
finish(sys.argv[1], torch=torch.__version__, layer=layer, graph_module=graph_module)

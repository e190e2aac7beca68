"""Scenario (g): PyTorch's torch.compile "Leak 2" (reference 002): a
finalizer's arguments hold what it waits for. Dynamo registered
weakref.finalize on guarded objects to invalidate its cache; the callback's
arguments held the OutputGraph, which held the generated graph module, which
held the user's model — so the model was never freed and the finalizer never
ran. weakref.finalize keeps its callback and arguments in a class-level
registry (finalize._registry), so the model stays reachable from a GC root;
the snapshot must say that the finalizer is what holds it."""
import gc
import sys
import weakref

from scenario_common import finish


class Model:
    def __init__(self):
        self.weight = bytearray(1 << 20)


class GraphModule:
    def __init__(self, model):
        self.model = model


class OutputGraph:
    def __init__(self, graph_module):
        self.graph_modules = [graph_module]


def invalidate(output_graph):
    output_graph.graph_modules.clear()


def compile_model(model):
    output_graph = OutputGraph(GraphModule(model))
    weakref.finalize(model, invalidate, output_graph)


def train():
    model = Model()
    compile_model(model)
    return hex(id(model))  # the program's last reference to the model goes here


address = train()
gc.collect()
finish(sys.argv[1], address=address, type="__main__.Model")

"""Every kind of object the walker labels specially, in every state it can be
in when a snapshot is taken: suspended and running generators, coroutines,
async generators, frames kept alive by tracebacks, weak references and
proxies, descriptors, slots, dict subclasses, closures. The walk must not
crash, must keep its invariants, and must not over-explain any of them."""

import asyncio
import collections
import sys
import types
import unittest
import weakref

from probe_support import TempSnapshot, _probe, cli, cli_json, explained, in_edges, refscope, walk


class Slots:
    __slots__ = ("a", "b", "__dict__", "__weakref__")


class Node:
    def __init__(self, parent=None):
        self.parent = parent
        self.children = []


def suspended_generator():
    local_in_generator = Node()
    yield local_in_generator
    yield 2


def running_generator(results):
    local_in_running = Node()
    results.append(id(local_in_running))
    results.append(_probe._debug_walk(False, (id(local_in_running),)))
    yield 1


async def coroutine(results):
    local_in_coroutine = Node()
    await asyncio.sleep(0)
    results.append(_probe._debug_walk(False, (id(local_in_coroutine),)))
    results.append(id(local_in_coroutine))


async def async_generator():
    yield Node()


def failing():
    local_in_traceback = Node()
    raise ValueError(local_in_traceback)


def build_zoo():
    zoo = {}
    zoo["suspended"] = suspended_generator()
    next(zoo["suspended"])
    zoo["async_gen"] = async_generator()
    try:
        failing()
    except ValueError as error:
        zoo["traceback"] = error.__traceback__
        zoo["error"] = error
    target = Node()
    zoo["target"] = target
    zoo["ref"] = weakref.ref(target, lambda r: None)
    zoo["proxy"] = weakref.proxy(target)
    zoo["weak_dict"] = weakref.WeakValueDictionary({"t": target})
    slots = Slots()
    slots.a = Node()
    slots.extra = Node()
    zoo["slots"] = slots
    zoo["ordered"] = collections.OrderedDict(a=Node(), b=[1, 2])
    zoo["default"] = collections.defaultdict(list, {1: [Node()]})
    zoo["deque"] = collections.deque([Node(), Node()])
    zoo["counter"] = collections.Counter("abracadabra")
    zoo["module"] = types.ModuleType("zoo_module")
    zoo["module"].value = Node()
    zoo["namespace"] = types.SimpleNamespace(x=Node())
    zoo["bound"] = Node().__init__
    zoo["builtin_bound"] = [].append
    zoo["property"] = property(lambda self: 1)
    zoo["static"] = staticmethod(len)
    zoo["class"] = classmethod(len)
    zoo["mappingproxy"] = types.MappingProxyType({"k": Node()})
    zoo["frozenset"] = frozenset({1, 2, "x"})
    zoo["bytes"] = b"\x00binary\xff" * 10
    zoo["bytearray"] = bytearray(b"abc")
    zoo["big"] = 10 ** 100
    zoo["float"] = 3.25
    zoo["complex"] = 1 + 2j
    zoo["unicode"] = "snow \u2603 and \U0001F600" * 10
    zoo["memoryview"] = memoryview(b"abcdef")
    zoo["range"] = range(10)
    zoo["slice"] = slice(1, 2, 3)
    zoo["cycle"] = Node()
    zoo["cycle"].children.append(Node(zoo["cycle"]))
    chain = None
    for _ in range(100000):  # deep chain: no recursion in the walker
        chain = [chain]
    zoo["chain"] = chain
    zoo["frame"] = sys._getframe()
    return zoo


ZOO = build_zoo()


class ObjectZooTest(unittest.TestCase):
    def check_report(self, report):
        self.assertTrue(report["edges_grouped"])
        self.assertTrue(report["ids_valid"])
        own = [n for n in report["negative"] if n[0].startswith(("test_", "probe_", "builtins"))]
        self.assertEqual(own, [])

    def test_zoo_walks(self):
        report, _ = walk(collect=True)
        self.check_report(report)
        with TempSnapshot() as path:
            stats = refscope.snapshot(path, collect=False)
        self.assertGreater(stats.edges, stats.nodes)

    @unittest.skipUnless(cli(), "REFSCOPE_CLI not set")
    def test_shallow_sizes_are_plausible(self):
        # Since 3.11 generators and frame objects carry a non-zero
        # tp_itemsize without an ob_size field; reading Py_SIZE there gives a
        # pointer, i.e. sizes of petabytes. Every object here is small.
        with TempSnapshot() as path:
            refscope.snapshot(path, collect=False)
            summary = cli_json("summary", path, "--by", "type", "--top", "0")
        by_type = {g["name"]: g for g in summary["groups"]}
        for name in ("generator", "async_generator", "frame"):
            self.assertIn(name, by_type)
        for group in summary["groups"]:
            if group["name"] in ("generator", "coroutine", "async_generator", "frame"):
                per_object = group["bytes"] / group["objects"]
                self.assertLess(per_object, 64 * 1024, group)
                self.assertGreater(per_object, 16, group)
        self.assertLess(sum(g["bytes"] for g in summary["groups"]), 1 << 32)

    def test_suspended_generator_owns_its_locals(self):
        local = ZOO["suspended"].gi_frame.f_locals["local_in_generator"]
        ident = id(local)
        del local
        _report, (facts,) = walk(ident)
        self.assertEqual(facts["refcount"], explained(facts), facts)
        names = [e[2] for e in in_edges(facts, "Local")]
        self.assertIn("local_in_generator", names)

    def test_running_generator_locals_are_explained(self):
        results = []
        for _ in running_generator(results):
            pass
        ident, report = results
        facts = report["watch"][ident]
        self.assertEqual(facts["refcount"], explained(facts), facts)
        self.check_report(report)

    def test_running_coroutine(self):
        results = []
        asyncio.run(coroutine(results))
        report, ident = results
        facts = report["watch"][ident]
        self.assertEqual(facts["refcount"], explained(facts), facts)

    def test_traceback_frame_locals(self):
        local = ZOO["error"].args[0]
        ident = id(local)
        del local
        _report, (facts,) = walk(ident)
        self.assertEqual(facts["refcount"], explained(facts), facts)
        self.assertIn("local_in_traceback", [e[2] for e in in_edges(facts, "Local")])

    def test_weak_references_are_not_owned(self):
        _report, (facts,) = walk(id(ZOO["target"]))
        weak = in_edges(facts, "Weak")
        self.assertGreaterEqual(len(weak), 2)
        self.assertTrue(all(flags == 0 for _kind, flags, _label in weak))
        self.assertEqual(facts["refcount"], explained(facts), facts)

    def test_slots_with_dict(self):
        slot_value, extra = ZOO["slots"].a, ZOO["slots"].extra
        ids = (id(slot_value), id(extra))
        del slot_value, extra
        _report, (slot, extra) = walk(*ids)
        self.assertEqual(in_edges(slot, "Slot"), [("Slot", 3, "a")])
        self.assertEqual(slot["refcount"], explained(slot))
        self.assertEqual(extra["refcount"], explained(extra))

    def test_subclass_registries_are_held_by_their_types(self):
        # A class is registered, by a weak reference, in the subclasses dict
        # of each of its bases; since 3.12 a builtin type's dict lives in the
        # interpreter, not in the type, and must still be explained.
        class Registered(dict):
            pass
        refs = weakref.getweakrefs(Registered)
        self.assertGreaterEqual(len(refs), 1)
        _report, facts = walk(*[id(r) for r in refs])
        holders = sorted({source for f in facts for _k, _flags, _label, source in f["in_edges"]})
        _report, dicts = walk(*holders)
        registries = [d for d in dicts if d is not None and d["type"] == "dict"
                      and "__subclasses__" in [label for _k, _f, label in in_edges(d)]]
        # dict's registry: a builtin type's (interpreter-held since 3.12)
        self.assertEqual(len(registries), 1, dicts)
        self.assertEqual(registries[0]["refcount"], explained(registries[0]), registries[0])
        del refs


# Module globals, so that the walk finds them (and the literals stay out
# of the test's own frame).
DEEP_PATH = "/home/someone/work/project/.venv/lib/python3.13/site-packages/pkg/module.py"
LONG_TEXT = "not a path " * 10


class PreviewTest(unittest.TestCase):
    def test_an_absolute_path_keeps_200_characters_other_text_48(self):
        _report, (path, text) = walk(id(DEEP_PATH), id(LONG_TEXT))
        self.assertEqual(path["preview"], DEEP_PATH)
        self.assertEqual(text["preview"], LONG_TEXT[:48] + "\u2026")
        _report, (long_path,) = walk(id(LONG_PATH))
        self.assertEqual(long_path["preview"], LONG_PATH[:200] + "\u2026")

    def test_equal_previews_share_one_string(self):
        # Previews are interned after the walk (finish_previews), 16 ahead
        # of their turn: two objects with the same text get one string id,
        # an object without a preview gets none, another text another id.
        _report, (a, b, other, empty) = walk(id(SAME_A), id(SAME_B), id(OTHER_FLOAT), id(NO_PREVIEW))
        self.assertIsNot(SAME_A, SAME_B)
        self.assertEqual(a["preview"], "2.25")
        self.assertNotEqual(a["preview_id"], 0)
        self.assertEqual(a["preview_id"], b["preview_id"])
        self.assertNotEqual(other["preview_id"], a["preview_id"])
        self.assertEqual(empty["preview_id"], 0)

    def test_numbers_and_lengths_read_as_the_text_they_show(self):
        # Numbers as decimal ("big int" past 64 bits), containers as "len N",
        # a str with control characters as it is; equal texts are one
        # string whatever kind of object showed them.
        _report, nodes = walk(*[id(o) for o in NUMBER_PREVIEWS])
        self.assertEqual([n["preview"] for n in nodes],
                         [str(INT_VALUE), str(NEGATIVE_INT), "big int", INT_TEXT,
                          "len 3", "len 3", "len 3", "len 3", "len 3", "len 0", CONTROL_TEXT])
        # The int and the str with its text share one string, as do equal lengths.
        self.assertEqual(nodes[0]["preview_id"], nodes[3]["preview_id"])
        self.assertEqual(len({n["preview_id"] for n in nodes[4:9]}), 1)
        self.assertNotEqual(nodes[9]["preview_id"], nodes[4]["preview_id"])


LONG_PATH = "/" + "x" * 300
INT_VALUE = 10 ** 12 + 7  # outside the small-int cache
NEGATIVE_INT = -(10 ** 15) - 3
BIG_INT = 10 ** 30
INT_TEXT = str(INT_VALUE)
CONTROL_TEXT = "\x01\x02 control characters first"
NUMBER_PREVIEWS = [INT_VALUE, NEGATIVE_INT, BIG_INT, INT_TEXT, [1, 2, 3], (1, 2, [3]),
                   {"a": 1, "b": 2, "c": 3}, {1, 2, 3}, bytearray(b"abc"), [], CONTROL_TEXT]
SAME_A = float("2.25")
SAME_B = float("2.5") - 0.25
OTHER_FLOAT = float("2.5")
NO_PREVIEW = object()
NODE_EXTENSION_TYPE = 0x20


class ExtensionTypeFlagTest(unittest.TestCase):
    @unittest.skipIf(sys.version_info < (3, 10), "re.Pattern is a static type before 3.10")
    def test_a_heap_type_made_in_c_is_flagged_a_class_is_not(self):
        import re
        _report, (pattern, cls, static) = walk(id(re.Pattern), id(Node), id(dict))
        self.assertTrue(pattern["flags"] & NODE_EXTENSION_TYPE, pattern)
        self.assertFalse(cls["flags"] & NODE_EXTENSION_TYPE, cls)
        self.assertFalse(static["flags"] & NODE_EXTENSION_TYPE, static)


if __name__ == "__main__":
    unittest.main()

"""(a) The walk runs no Python-level code: no repr/str/sizeof/eq/hash,
no __getattr__/__getattribute__, no properties, wherever the objects sit
(dict keys and values, sets, lists, __slots__, instance attributes, class
attributes, materialized or managed __dict__)."""

import collections
import unittest

from probe_support import TempSnapshot, refscope, walk

CALLS = collections.Counter()


class Spy:
    """Counts every special method the probe must never call."""

    def __init__(self, tag):
        object.__setattr__(self, "tag", tag)

    def __repr__(self):
        CALLS["repr"] += 1
        return "Spy"

    def __str__(self):
        CALLS["str"] += 1
        return "Spy"

    def __sizeof__(self):
        CALLS["sizeof"] += 1
        return 1

    def __eq__(self, other):
        CALLS["eq"] += 1
        return self is other

    def __hash__(self):
        CALLS["hash"] += 1
        return 42  # one bucket: any lookup would have to call __eq__

    def __getattr__(self, name):
        CALLS["getattr"] += 1
        raise AttributeError(name)

    def __getattribute__(self, name):
        CALLS["getattribute"] += 1
        return object.__getattribute__(self, name)

    def __bool__(self):
        CALLS["bool"] += 1
        return True

    def __len__(self):
        CALLS["len"] += 1
        return 1

    @property
    def prop(self):
        CALLS["property"] += 1
        return 1


class SlottedSpy(Spy):
    __slots__ = ("a", "b")


class SpyStr(str):
    def __eq__(self, other):
        CALLS["str_eq"] += 1
        return str.__eq__(self, other)

    def __hash__(self):
        CALLS["str_hash"] += 1
        return str.__hash__(self)


class SpyMeta(type):
    def __getattribute__(cls, name):
        CALLS["meta_getattribute"] += 1
        return type.__getattribute__(cls, name)

    def __repr__(cls):
        CALLS["meta_repr"] += 1
        return "SpyClass"


class SpyClass(metaclass=SpyMeta):
    attribute = Spy("class attribute")


def build_heap():
    heap = {}
    heap["dict"] = {Spy(i): Spy(-i) for i in range(20)}
    heap["set"] = {Spy(i) for i in range(20)}
    heap["frozen"] = frozenset(Spy(i) for i in range(5))
    heap["list"] = [Spy(i) for i in range(10)]
    heap["tuple"] = tuple(Spy(i) for i in range(10))
    slotted = SlottedSpy("slotted")
    object.__setattr__(slotted, "a", Spy("slot a"))
    object.__setattr__(slotted, "b", {Spy("k"): Spy("v")})
    heap["slotted"] = slotted
    managed = Spy("managed")  # 3.11+: inline values, no dict
    object.__setattr__(managed, "child", Spy("child"))
    heap["managed"] = managed
    materialized = Spy("materialized")
    object.__setattr__(materialized, "child", Spy("child"))
    object.__getattribute__(materialized, "__dict__")  # forces a real dict
    heap["materialized"] = materialized
    heap["spy_str_keys"] = {SpyStr("key%d" % i): Spy(i) for i in range(10)}
    heap["class"] = SpyClass
    heap["instance_of_meta_class"] = SpyClass()
    heap["nested"] = [[Spy("deep")], ({Spy("k"): [Spy("v")]},)]
    return heap


HEAP = build_heap()


class NoPythonCodeTest(unittest.TestCase):
    def setUp(self):
        CALLS.clear()

    def assertNoCalls(self):
        self.assertEqual(dict(CALLS), {}, "the walk ran Python code")

    def test_debug_walk_runs_no_python_code(self):
        report, facts = walk(id(HEAP["managed"]), id(HEAP["slotted"]), id(SpyClass), collect=True)
        self.assertNoCalls()
        self.assertTrue(all(f is not None for f in facts))
        self.assertGreater(report["nodes"], 1000)

    def test_snapshot_runs_no_python_code(self):
        with TempSnapshot() as path:
            stats = refscope.snapshot(path, collect=True, label="spies")
        self.assertNoCalls()
        self.assertGreater(stats.nodes, 1000)
        self.assertGreater(stats.bytes, 0)

    def test_spies_are_in_the_snapshot(self):
        targets = (id(HEAP["list"][3]), id(HEAP["slotted"].a), id(HEAP["managed"].child))
        CALLS.clear()  # the attribute reads above are the test's, not the probe's
        _report, facts = walk(*targets)
        self.assertNoCalls()
        for f in facts:
            self.assertIsNotNone(f)
            self.assertTrue(f["type"].endswith("Spy"), f["type"])


if __name__ == "__main__":
    unittest.main()

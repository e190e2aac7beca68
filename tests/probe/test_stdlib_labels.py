"""(g) Labels for C internals of the standard library (issue 13, item 3): a
reference held inside functools, _asyncio, collections, re, io,
contextvars or an exception is shown as the field that holds it, not as a
positional `<ref #N>`, and each real reference is one owned edge (no object
gets more owned in-edges than its refcount; an lru_cache link is explained
exactly: the cache dict and the wrapper's list).

Each test holds one object only through the C structure under test and
checks that object's in-edges. A label the probe cannot be sure of on some
interpreter (a struct whose size is not the mirror's) must be absent there,
never wrong."""

import asyncio
import collections
import contextvars
import functools
import gc
import io
import re
import sys
import tempfile
import threading
import types
import unittest

from probe_support import EDGE_OWNED, explained, in_edges, walk

CANCELLED_EXC_MIRRORED = sys.version_info >= (3, 13)  # where it follows cancel_msg


class Payload:
    """A uniquely referenced object: its in-edges are what holds it."""


def labels(facts, kind=None):
    return [e[2] for e in in_edges(facts, kind)]


def owned_labels(facts):
    return [(e[0], e[2]) for e in in_edges(facts) if e[1] & EDGE_OWNED]


def make_payload(n):
    return Payload()


def _lru_internals(wrapper):
    # gc.get_referents reports what tp_traverse reports: the cache dict is
    # the only exact dict other than __dict__.
    for referent in gc.get_referents(wrapper):
        if type(referent) is dict and referent is not getattr(wrapper, "__dict__", None):
            return referent
    raise AssertionError("no cache dict")


class FunctoolsTest(unittest.TestCase):
    def test_bounded_lru_cache_result_is_held_by_its_link(self):
        cached = functools.lru_cache(maxsize=8)(make_payload)
        result_id = id(cached(1))
        cache = _lru_internals(cached)
        link = next(iter(cache.values()))
        link_id, cache_id = id(link), id(cache)
        del link, cache
        _report, (result, link, cache) = walk(result_id, link_id, cache_id)
        self.assertEqual(owned_labels(result), [("Field", "result")])
        self.assertIn(("Field", "cache"), owned_labels(cache))
        # The link: the cache dict's value and the wrapper's list, exactly.
        self.assertEqual(sorted(k for k, _ in owned_labels(link) if k != "Field") + labels(link, "Field"),
                         ["DictValue", "lru list"])
        self.assertEqual(explained(link), link["refcount"], link)

    def test_every_link_is_explained_exactly(self):
        cached = functools.lru_cache(maxsize=64)(make_payload)
        for n in range(50):
            cached(n)
        ids = [id(link) for link in _lru_internals(cached).values()]
        _report, facts = walk(*ids)
        for link in facts:
            self.assertEqual(link["refcount"] - explained(link), 0, link)

    def test_unbounded_lru_cache_holds_results_in_its_dict(self):
        cached = functools.lru_cache(maxsize=None)(make_payload)
        result_id = id(cached(1))
        _report, (result,) = walk(result_id)
        self.assertEqual([k for k, _ in owned_labels(result)], ["DictValue"])

    def test_partial_arguments(self):
        held = Payload()
        bound = functools.partial(make_payload, held, key=1)
        args_id, func_id = id(bound.args), id(make_payload)
        bound.extra = 1
        dict_id = id(bound.__dict__)
        del held
        _report, (args, func, attrs) = walk(args_id, func_id, dict_id)
        self.assertEqual(owned_labels(args), [("Slot", "args")])
        self.assertIn("func", labels(func, "Slot"))
        self.assertEqual(owned_labels(attrs), [("Field", "__dict__")])


class AsyncioTest(unittest.TestCase):
    def setUp(self):
        self.loop = asyncio.new_event_loop()

    def tearDown(self):
        self.loop.close()

    def test_future_callbacks_and_result(self):
        future = self.loop.create_future()
        # The first callback has a field of its own; the others go to a list.
        future.add_done_callback(functools.partial(make_payload, Payload()))
        future.add_done_callback(functools.partial(make_payload, Payload()))
        callbacks = [r for r in gc.get_referents(future) if type(r) is list]
        self.assertEqual(len(callbacks), 1)
        watched = (id(callbacks[0]), id(self.loop))
        del callbacks
        _report, (callbacks, loop) = walk(*watched)
        self.assertEqual(owned_labels(callbacks), [("Field", "_callbacks")])
        self.assertIn("_loop", labels(loop, "Field"))

    @unittest.skipUnless(CANCELLED_EXC_MIRRORED, "cancelled_exc is labelled from 3.13")
    def test_cancelled_task_keeps_its_exception(self):
        # A task whose coroutine ended in CancelledError keeps it until its
        # result is asked for (asyncio.wait does not ask).
        async def waiter():
            await asyncio.sleep(10)

        task = self.loop.create_task(waiter())
        self.loop.run_until_complete(asyncio.sleep(0))
        task.cancel()
        self.loop.run_until_complete(asyncio.wait([task]))
        kept = [r for r in gc.get_referents(task) if isinstance(r, asyncio.CancelledError)]
        self.assertEqual(len(kept), 1)
        exc_id = id(kept[0])
        del kept
        _report, (exc,) = walk(exc_id)
        self.assertIn(("Field", "_cancelled_exc"), owned_labels(exc))

    def test_future_result_and_task_coroutine(self):
        future = self.loop.create_future()
        future.set_result(Payload())
        result_id = id(future.result())

        async def sleeper():
            await asyncio.sleep(0)

        coroutine = sleeper()
        task = self.loop.create_task(coroutine)
        coroutine_id = id(coroutine)
        del coroutine
        _report, (result, coroutine) = walk(result_id, coroutine_id)
        self.assertEqual(owned_labels(result), [("Field", "_result")])
        self.assertIn(("Field", "_coro"), owned_labels(coroutine))
        self.loop.run_until_complete(task)


class CollectionsTest(unittest.TestCase):
    def test_deque_items_by_index(self):
        items = collections.deque([Payload() for _ in range(100)])
        watched = id(items[70])
        _report, (item,) = walk(watched)
        self.assertEqual(in_edges(item), [("Index", in_edges(item)[0][1], "70")])

    def test_defaultdict_factory(self):
        def factory():
            return Payload()

        table = collections.defaultdict(factory)
        watched = id(factory)
        del factory
        _report, (facts,) = walk(watched)
        self.assertIn(("Slot", "default_factory"), owned_labels(facts))

    def test_ordered_dict_keys_are_counted_twice(self):
        key = Payload()
        table = collections.OrderedDict([(key, 1)])
        table.note = "x"
        watched = (id(key), id(table.__dict__))
        del key
        _report, (key, attrs) = walk(*watched)
        self.assertEqual(sorted(owned_labels(key)), [("DictKey", ""), ("Field", "od node key")])
        self.assertEqual(key["refcount"], explained(key), key)
        self.assertEqual(owned_labels(attrs), [("Field", "__dict__")])


class ModulesTest(unittest.TestCase):
    def test_re_pattern_and_match(self):
        pattern = re.compile(r"(?P<word>\w+)-(\d+)")
        match = pattern.match("abc-123" + str(id(self)))
        regs = match.regs  # cached in the match from here on
        groupindex = [r for r in gc.get_referents(pattern) if type(r) is dict]
        watched = [id(match.string), id(regs)] + [id(g) for g in groupindex]
        del regs, groupindex
        _report, facts = walk(*watched)
        self.assertEqual(owned_labels(facts[0]), [("Slot", "string")])
        self.assertEqual(owned_labels(facts[1]), [("Field", "regs")])
        for g in facts[2:]:  # 3.9's Pattern is no GC object: nothing to list
            self.assertEqual(owned_labels(g), [("Field", "groupindex")])

    def test_text_io_wrapper(self):
        with tempfile.TemporaryFile("w+", encoding="utf-8") as stream:
            stream.write("text")
            stream.seek(0)
            stream.read()
            stream.extra = 1
            watched = (id(stream.buffer), id(stream.__dict__), id(stream.buffer.raw))
            decoders = [r for r in gc.get_referents(stream) if "Decoder" in type(r).__name__]
            watched += tuple(id(d) for d in decoders)
            del decoders
            _report, facts = walk(*watched)
        self.assertIn(("Slot", "buffer"), owned_labels(facts[0]))
        self.assertEqual(owned_labels(facts[1]), [("Field", "__dict__")])
        self.assertIn(("Slot", "raw"), owned_labels(facts[2]))
        for decoder in facts[3:]:
            self.assertEqual(owned_labels(decoder), [("Field", "decoder")])

    def test_context_variable_default_and_context_vars(self):
        default = Payload()
        variable = contextvars.ContextVar("refscope_test", default=default)
        watched = id(default)
        del default
        _report, (facts,) = walk(watched)
        self.assertEqual(owned_labels(facts), [("Field", "default")])
        self.assertIsNotNone(variable)

    def test_exception_fields(self):
        try:
            raise ValueError(Payload())
        except ValueError as error:
            caught = error
        watched = (id(caught.args), id(caught.__traceback__))
        _report, (args, traceback) = walk(*watched)
        self.assertEqual(owned_labels(args), [("Field", "args")])
        self.assertEqual(owned_labels(traceback), [("Field", "__traceback__")])
        del caught

    def test_mapping_proxy_and_classmethod_dict(self):
        proxy = types.MappingProxyType({"key": 1})
        method = classmethod(make_payload)
        method.note = 1
        watched = (id(method.__dict__), id(_proxied(proxy)))
        _report, (attrs, mapping) = walk(*watched)
        self.assertEqual(owned_labels(attrs), [("Field", "__dict__")])
        self.assertEqual(owned_labels(mapping), [("Field", "mapping")])
        del proxy


class ThreadLocalTest(unittest.TestCase):
    """threading.local keeps each thread's attributes in a dict of dicts and
    its constructor's arguments for the next thread (_thread._local)."""

    def test_per_thread_dicts_and_arguments(self):
        class Local(threading.local):
            def __init__(self, first, option=None):
                self.first = first

        local = Local(Payload(), option=Payload())
        local.value = Payload()
        referents = gc.get_referents(local)
        args = next(r for r in referents if type(r) is tuple)
        kw = next(r for r in referents if type(r) is dict and "option" in r)
        per_thread = next(r for r in referents if type(r) is dict and r and
                          all(type(v) is dict for v in r.values()))
        watched = [id(args), id(kw), id(per_thread)]
        if sys.version_info >= (3, 13):
            watched += [id(next(r for r in referents if type(r) is set))]
        del referents, args, kw, per_thread
        _report, facts = walk(*watched)
        self.assertEqual(owned_labels(facts[0]), [("Field", "args")])
        self.assertEqual(owned_labels(facts[1]), [("Field", "kw")])
        if sys.version_info >= (3, 13):
            self.assertEqual(owned_labels(facts[2]), [("Field", "localdicts")])
            self.assertEqual(owned_labels(facts[3]), [("Field", "thread_watchdogs")])
        else:
            self.assertEqual(owned_labels(facts[2]), [("Field", "dummies")])
        self.assertEqual(local.value.__class__, Payload)

    @unittest.skipIf(sys.version_info >= (3, 13), "3.13 keeps no key or callback in the local")
    def test_key_and_callback_the_collector_cannot_see(self):
        import ctypes
        local = threading.local()
        local.value = 1
        word = ctypes.sizeof(ctypes.c_void_p)
        # The mirror's fields after the head: key at +16, wr_callback at +56.
        key = ctypes.py_object.from_address(id(local) + 2 * word).value
        callback = ctypes.py_object.from_address(id(local) + 7 * word).value
        self.assertIsInstance(key, str)
        self.assertTrue(callable(callback))
        watched = (id(key), id(callback))
        refcounts = [sys.getrefcount(key) - 2, sys.getrefcount(callback) - 2]
        del key, callback
        _report, (key_facts, callback_facts) = walk(*watched)
        self.assertIn(("Field", "key"), owned_labels(key_facts))
        self.assertIn(("Field", "wr_callback"), owned_labels(callback_facts))
        # Each reference once: the thread state's dict key and the local's.
        self.assertEqual(explained(key_facts), refcounts[0])


def _proxied(proxy):
    (mapping,) = gc.get_referents(proxy)
    return mapping


class OwnershipTest(unittest.TestCase):
    def test_no_negative_surplus(self):
        keep = [functools.lru_cache(maxsize=4)(make_payload), collections.deque(range(10)),
                collections.OrderedDict(a=1), re.compile("a(b)").match("ab"), io.StringIO("x"),
                contextvars.copy_context(), functools.partial(make_payload, 1)]
        keep[0](1)
        loop = asyncio.new_event_loop()
        future = loop.create_future()
        future.add_done_callback(make_payload)
        report, _ = walk(collect=True)
        loop.close()
        self.assertEqual(report["negative"], [])
        del keep


if __name__ == "__main__":
    unittest.main()

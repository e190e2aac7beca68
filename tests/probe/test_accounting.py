"""(f) Exact accounting: an owned edge is one real reference. Two labels for
one slot (classmethod's __func__ and __wrapped__, a SimpleNamespace
subclass's __dict__, a struct sequence's items), a tp_traverse that reports
a shared object once per holder (lru_cache's link type), and holders that
own nothing (sqlite3.Connection's exception members, 3.11's statically
allocated constants, free-listed dead objects) must not make an object's
owned in-edges exceed its refcount (a negative surplus)."""

import ctypes
import functools
import os
import subprocess
import sys
import tempfile
import textwrap
import types
import unittest

from probe_support import EDGE_OWNED, TempSnapshot, cli, cli_json, explained, in_edges, walk

NODE_IMMORTAL = 0x02
HEAP_TYPE = 1 << 9


class Decorated:
    @classmethod
    def make(cls):
        return cls()

    @staticmethod
    def helper(x):
        return x + 1


class Leaked:
    @staticmethod
    def leaked(x):
        return x


class SubStatic(staticmethod):
    pass


def plain(x):
    return x


SUBCLASSED = SubStatic(plain)


@functools.lru_cache(maxsize=1000)
def cached(n):
    return ("result", n)


for _n in range(300):
    cached(_n)


class Namespace(types.SimpleNamespace):
    pass


NAMESPACE = Namespace(value=1)


def surplus(facts):
    return facts["refcount"] - facts["owned_in"]


class AccountingTest(unittest.TestCase):
    def assertExact(self, facts):
        total = explained(facts)
        self.assertIsNotNone(total, facts)
        self.assertEqual(facts["refcount"], total, facts)

    def test_classmethod_and_staticmethod_hold_their_function_once(self):
        functions = [Decorated.__dict__["make"].__func__, Decorated.__dict__["helper"].__func__,
                     SUBCLASSED.__func__]
        _report, facts = walk(*map(id, functions))
        for f in facts:
            self.assertExact(f)
            self.assertEqual([e[2] for e in in_edges(f, "Slot")], ["__func__"], f)
        del functions

    def test_a_leaked_reference_to_a_wrapped_function_is_surplus(self):
        # Counting __func__ and __wrapped__ (one slot) twice hid exactly one
        # leaked reference: the leak must show as surplus 1.
        function = Leaked.__dict__["leaked"].__func__
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(function))
        address = id(function)
        del function
        _report, (facts,) = walk(address)
        self.assertEqual(facts["owned_in"], 1, facts)
        self.assertEqual(facts["refcount"] - explained(facts), 1, facts)

    def test_lru_cache_links_count_their_type_once(self):
        link_type = type(next(iter(_lru_links())))
        heap = bool(link_type.__flags__ & HEAP_TYPE)  # a static type before 3.10
        _report, (facts,) = walk(id(link_type))
        del link_type
        self.assertGreaterEqual(surplus(facts), 0, facts["refcount"])
        if heap:
            # Each link holds its type once (__class__); the cache's
            # tp_traverse reports it once more per link, not owned.
            classes = [e for e in in_edges(facts, "Field") if e[2] == "__class__" and e[1] & EDGE_OWNED]
            self.assertGreaterEqual(len(classes), 300)

    def test_simple_namespace_subclass_owns_its_dict_once(self):
        _report, (facts,) = walk(id(NAMESPACE.__dict__))
        self.assertExact(facts)
        self.assertEqual([(e[0], e[2]) for e in in_edges(facts) if e[1] & EDGE_OWNED], [("Field", "__dict__")])

    def test_struct_sequence_items_are_counted_once(self):
        with tempfile.NamedTemporaryFile() as f:
            f.write(b"x" * 12345)
            f.flush()
            result = os.stat(f.name)
        visible, hidden = id(result.st_size), id(result.st_mtime)
        _report, (size, mtime) = walk(visible, hidden)
        self.assertExact(size)
        self.assertEqual([(e[0], e[2]) for e in in_edges(size)], [("Index", "6")])
        self.assertExact(mtime)
        self.assertEqual([(e[0], e[2]) for e in in_edges(mtime)], [("Slot", "st_mtime")])
        del result

    def test_sqlite_connection_borrows_its_exception_types(self):
        try:
            import sqlite3
        except ImportError:
            self.skipTest("no sqlite3")
        connection = sqlite3.connect(":memory:")
        try:
            _report, (error,) = walk(id(sqlite3.Error))
        finally:
            connection.close()
        # The Connection's member is shown, not owned (flags 0).
        slots = [e for e in in_edges(error, "Slot") if e[2] == "Error"]
        self.assertEqual(slots, [("Slot", 0, "Error")])
        self.assertGreaterEqual(surplus(error), 0, error)

    def test_singletons_are_not_over_explained(self):
        # 3.11's deep-frozen constants hold True and False uncounted.
        _report, facts = walk(id(True), id(False))
        for f in facts:
            if not f["flags"] & NODE_IMMORTAL:  # 3.12+: not counted
                self.assertGreaterEqual(surplus(f), 0, f["preview"])

    def test_no_negative_surplus_among_these_objects(self):
        report, _ = walk(collect=True)
        kinds = ("function", "classmethod", "staticmethod", "types.SimpleNamespace", "bool")
        bad = [n for n in report["negative"]
               if n[0] in kinds or n[1].startswith(("functools.", "sqlite3.")) or n[0].startswith("test_")]
        self.assertEqual(bad, [])


def _lru_links():
    # The links are the values of the cache's private dict, which
    # gc.get_referents reports; no walk is involved here.
    import gc
    for referent in gc.get_referents(cached):
        if isinstance(referent, dict):
            for value in referent.values():
                if type(value).__name__ == "_lru_list_elem":
                    yield value


WORKLOAD = textwrap.dedent("""
    import asyncio, dataclasses, email.mime.text, email.parser, enum, functools, http.server, json
    import logging, re, typing, urllib.parse, xml.etree.ElementTree as ET

    @functools.lru_cache(maxsize=256)
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    class Shape:
        @classmethod
        def make(cls):
            return cls()

        @staticmethod
        def helper(x):
            return x + 1

    @dataclasses.dataclass
    class Point:
        x: int
        y: int

    class Color(enum.Enum):
        RED = 1

    async def work(n):
        await asyncio.sleep(0)
        return n

    async def main():
        return await asyncio.gather(*(work(i) for i in range(10)))

    fib(200)
    asyncio.run(main())
    message = email.mime.text.MIMEText("hello")
    email.parser.Parser().parsestr(message.as_string())
    KEEP = [json.loads('{"a": [1, 2]}'), ET.fromstring("<a><b/></a>"), [Point(i, i) for i in range(20)],
            re.compile(r"(\\w+)@"), urllib.parse.urlparse("http://example.com/a?b=c")]
    try:
        import sqlite3
        connection = sqlite3.connect(":memory:")
        connection.execute("create table t (x int)")
    except ImportError:
        pass
""")


@unittest.skipUnless(cli(), "REFSCOPE_CLI not set (refscope-cli not built)")
class StdlibWorkloadTest(unittest.TestCase):
    def test_no_object_has_negative_surplus(self):
        with TempSnapshot() as path:
            script = os.path.join(os.path.dirname(path), "workload.py")
            with open(script, "w") as f:
                f.write(WORKLOAD)
            done = subprocess.run([sys.executable, "-m", "refscope", "run", script, "--snapshot-at-exit", path],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300, env=dict(os.environ))
            self.assertEqual(done.returncode, 0, done.stderr)
            roots = cli_json("roots", path)
            negative = cli_json("query", path, "surplus<0", "--top", "20")["top"]
        self.assertEqual(roots["negative_surplus_objects"], 0,
                         [(o["description"], o["surplus"]) for o in negative])


if __name__ == "__main__":
    unittest.main()

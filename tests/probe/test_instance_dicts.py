"""Instance attributes are named by their key in every state of the instance's
dict, and each is counted once.

3.13+ keeps attributes in inline values; reading __dict__ materializes a dict
over those same values. Which of the two tp_traverse reports them changed
within 3.13 (the object on 3.13.0, the dict on later 3.13 releases and 3.14+):
before the probe followed both, a value reported by the dict came out as an
unnamed `<ref #N>` edge beside a not-owned `['name']` one — the path
`Linear.__dict__ → <ref #1> → dict → ['weight']` in PyTorch programs, whose
Module.__setattr__ reads self.__dict__. The classes below do what
torch.nn.Module does without torch: attributes set with object.__setattr__,
a __setattr__ that reads __dict__, a __getattr__, and the dict in the states
it can reach (never read, read, written to after, an attribute deleted, two
instances with their keys in different orders, more keys than a shared key
table holds)."""

import unittest

from probe_support import EDGE_OWNED, TempSnapshot, cli, cli_json, explained, in_edges, refscope, walk

NAMES = ["training", "_parameters", "_buffers", "_modules", "_hooks"]


class ModuleLike:
    """torch.nn.Module's way of setting attributes (Module.__init__/__setattr__)."""

    def __init__(self, names):
        for name in names:
            object.__setattr__(self, name, {"weight": [name]})

    def __setattr__(self, name, value):
        self.__dict__.get("_parameters")  # Module.__setattr__ reads __dict__ first
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        raise AttributeError(name)


def instances():
    """(description, instance, names of its dict-valued attributes) for each
    state of an instance dict; the names are listed, not read from
    vars(instance), which would materialize the dict."""
    never_read = ModuleLike(NAMES)
    read = ModuleLike(NAMES)
    read.__dict__
    set_after_read = ModuleLike(NAMES)
    set_after_read.in_features = {"weight": ["in_features"]}  # through __setattr__: reads __dict__
    deleted = ModuleLike(NAMES)
    deleted.__dict__
    del deleted._hooks
    reversed_order = ModuleLike(list(reversed(NAMES)))
    reversed_order.__dict__
    many = ModuleLike(NAMES + ["_extra%d" % i for i in range(40)])  # more than a shared key table holds
    many.__dict__
    extra = ["_extra%d" % i for i in range(40)]
    return [("never read", never_read, NAMES), ("read", read, NAMES),
            ("set after read", set_after_read, NAMES + ["in_features"]),
            ("deleted after read", deleted, NAMES[:-1]), ("reversed order", reversed_order, NAMES),
            ("many keys", many, NAMES + extra)]


class InstanceDictTest(unittest.TestCase):
    def setUp(self):
        self.instances = instances()

    def check_named_once(self, what, facts, name):
        """One owned in-edge, named `name`; every in-edge named; refcount explained."""
        edges = in_edges(facts)
        self.assertEqual([e for e in edges if e[0] == "Reference"], [], (what, facts))
        owned = [(kind, label) for kind, flags, label in edges if flags & EDGE_OWNED]
        self.assertIn(owned, ([("Attribute", name)], [("DictValue", name)]), (what, facts))
        self.assertEqual(facts["refcount"], explained(facts), (what, facts))

    def test_every_attribute_is_named_and_counted_once(self):
        for what, instance, names in self.instances:
            _report, facts = walk(*[id(getattr(instance, n)) for n in names])
            for name, value_facts in zip(names, facts):
                self.check_named_once("%s: %s" % (what, name), value_facts, name)

    def test_the_dict_itself_is_explained(self):
        for what, instance, _names in self.instances:
            if "never" in what:
                continue
            _report, (facts,) = walk(id(instance.__dict__))
            self.assertEqual([(kind, label) for kind, flags, label in in_edges(facts) if flags & EDGE_OWNED],
                             [("Field", "__dict__")], (what, facts))
            self.assertEqual(facts["refcount"], explained(facts), (what, facts))

    def test_no_object_is_over_explained(self):
        report, _ = walk(collect=True)
        own = [n for n in report["negative"] if n[0].startswith(("test_instance_dicts", "probe_"))]
        self.assertEqual(own, [])

    @unittest.skipUnless(cli(), "REFSCOPE_CLI not set (refscope-cli not built)")
    def test_the_path_names_the_attribute(self):
        # What a user sees: the step from the instance's namespace to the
        # attribute is named by its key, and the path ends at ['weight'].
        # (By address only: a local holding the target would be its path.)
        holder = self.instances[2][1]
        address = "%x" % id(holder._parameters["weight"])
        with TempSnapshot() as path:
            refscope.snapshot(path, collect=True)
            found = cli_json("path", path, "--to", address)
        self.assertTrue(found["found"], found)
        edges = [(hop["edge_kind"], hop["edge"]) for hop in found["hops"]]
        self.assertNotIn("reference", [kind for kind, _edge in edges], edges)
        self.assertEqual(edges[-1], ("dict value", "['weight']"), edges)
        self.assertIn(edges[-2], [("attribute", "._parameters"), ("dict value", "['_parameters']")], edges)


if __name__ == "__main__":
    unittest.main()

"""Frames and tracebacks name their references (issue 16): a stored
exception's traceback chain reads `tb_next` / `tb_frame`, and a frame that
finished while its caller ran reads `f_back` (3.11+ keeps it in the frame
object only then; 3.9/3.10 always), never a positional `<ref #N>`. Each
reference is still one owned edge: every object checked is explained
exactly by its owned in-edges and roots."""

import sys
import unittest

from probe_support import EDGE_KINDS, EDGE_OWNED, explained, in_edges, walk


def inner():
    raise ValueError("stored")


def outer():
    inner()


def finished_frame():
    return sys._getframe()


def named(facts, source_id):
    """(kind, label) of the owned in-edges from `source_id`."""
    return [(EDGE_KINDS[kind], label) for kind, flags, label, source in facts["in_edges"]
            if source == source_id and flags & EDGE_OWNED]


class TracebackTest(unittest.TestCase):
    def setUp(self):
        try:
            outer()
        except ValueError as e:
            self.stored = e

    def tearDown(self):
        del self.stored

    def test_the_chain_reads_tb_next_and_tb_frame(self):
        tb_outer = self.stored.__traceback__.tb_next
        ids = [id(tb_outer), id(tb_outer.tb_frame), id(tb_outer.tb_next), id(tb_outer.tb_next.tb_frame)]
        first_id = id(self.stored.__traceback__)
        del tb_outer
        _report, (tb_outer, frame_outer, tb_inner, frame_inner) = walk(*ids)
        self.assertEqual(named(tb_outer, first_id), [("Field", "tb_next")])
        self.assertEqual(named(tb_inner, ids[0]), [("Field", "tb_next")])
        for frame, tb_id in ((frame_outer, ids[0]), (frame_inner, ids[2])):
            self.assertEqual([label for _kind, label in named(frame, tb_id)], ["tb_frame"], frame)
        for facts in (tb_outer, frame_outer, tb_inner, frame_inner):
            self.assertEqual([e for e in in_edges(facts, "Reference")], [], facts)
            self.assertEqual(explained(facts), facts["refcount"], facts)

    def test_the_inner_frame_names_its_caller_f_back(self):
        tb_inner = self.stored.__traceback__.tb_next.tb_next
        frame_outer_id, frame_inner_id = id(tb_inner.tb_frame.f_back), id(tb_inner.tb_frame)
        del tb_inner
        _report, (frame_outer,) = walk(frame_outer_id)
        self.assertEqual(named(frame_outer, frame_inner_id), [("Field", "f_back")])


class DetachedFrameTest(unittest.TestCase):
    def test_a_finished_frame_names_its_caller_f_back(self):
        kept = finished_frame()
        kept_id, caller_id = id(kept), id(kept.f_back)
        _report, (caller,) = walk(caller_id)
        self.assertEqual(named(caller, kept_id), [("Field", "f_back")])
        self.assertEqual(in_edges(caller, "Reference"), [])
        del kept


if __name__ == "__main__":
    unittest.main()

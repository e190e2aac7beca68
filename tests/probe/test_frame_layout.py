"""Thread frames are read through the frame structs compiled into the probe
only while the runtime's published layout (_Py_DebugOffsets, 3.13+) agrees
with them; a patch release that moved a field must make the probe skip the
frames and say so, not read garbage."""

import sys
import unittest

from probe_support import EDGE_KINDS, ROOT_THREAD_STACK, NoOpProfiler, _probe, explained, walk

PUBLISHES_LAYOUT = sys.version_info >= (3, 13)
CHECKS_FRAME_OBJECT = sys.version_info >= (3, 11)


def thread_stack_roots(facts):
    return [label for kind, label, _count, _thread in facts["roots"] if kind == ROOT_THREAD_STACK]


def finished_frame():
    return sys._getframe()


class FrameLayoutTest(unittest.TestCase):
    def tearDown(self):
        if CHECKS_FRAME_OBJECT:
            _probe._debug_perturb_layout(None)

    def test_the_running_interpreter_agrees_with_the_probe(self):
        self.assertIsNone(_probe.frame_layout_problem())

    @unittest.skipUnless(PUBLISHES_LAYOUT, "no published layout before 3.13")
    def test_a_moved_field_stops_frame_reading_and_names_it(self):
        marker = ["held by this frame"]  # a local of this frame: a thread-stack root
        _report, [facts] = walk(id(marker))
        self.assertTrue(any("local marker" in label for label in thread_stack_roots(facts)),
                        facts["roots"])

        verdict = _probe._debug_perturb_layout("interpreter_frame.previous")
        self.assertIn("interpreter_frame.previous", verdict)
        self.assertEqual(_probe.frame_layout_problem(), verdict)
        report, [facts] = walk(id(marker))
        self.assertEqual(thread_stack_roots(facts), [])
        # Nor is the thread state itself read: its profile object is no root.
        profiler = NoOpProfiler()
        sys.setprofile(profiler)
        try:
            _report, [profiler_facts] = walk(id(profiler))
        finally:
            sys.setprofile(None)
        self.assertEqual(thread_stack_roots(profiler_facts), [])
        main = [name for _ident, name, is_main in report["threads"] if is_main]
        self.assertEqual(len(main), 1)
        self.assertIn("frames not read", main[0])
        self.assertIn("interpreter_frame.previous", main[0])

        self.assertIsNone(_probe._debug_perturb_layout(None))
        _report, [facts] = walk(id(marker))
        self.assertTrue(any("local marker" in label for label in thread_stack_roots(facts)))

    @unittest.skipUnless(CHECKS_FRAME_OBJECT, "frames are public structs before 3.11")
    def test_a_resized_frame_object_stops_frame_reading(self):
        # The frame object's own fields are published nowhere: its type's size
        # stands in for them (and is the only check on 3.11/3.12).
        marker = ["held by this frame"]
        kept = finished_frame()
        kept_id, caller_id = id(kept), id(kept.f_back)
        verdict = _probe._debug_perturb_layout("frame_object.size")
        self.assertIn("frame_object.size", verdict)
        self.assertEqual(_probe.frame_layout_problem(), verdict)
        try:
            report, [caller] = walk(caller_id)
        finally:
            self.assertIsNone(_probe._debug_perturb_layout(None))
        main = [name for _ident, name, is_main in report["threads"] if is_main]
        self.assertIn("frame_object.size", main[0])
        self.assertEqual(thread_stack_roots(caller), [])
        # f_back is then not read by name: the finished frame's tp_traverse
        # still reports it, once, as an unnamed reference.
        from_kept = [(EDGE_KINDS[kind], label) for kind, _flags, label, source in caller["in_edges"]
                     if source == kept_id]
        self.assertEqual(len(from_kept), 1, caller["in_edges"])
        self.assertNotEqual(from_kept[0][1], "f_back")
        self.assertLessEqual(explained(caller), caller["refcount"], caller)
        del kept
        _report, [facts] = walk(id(marker))
        self.assertTrue(any("local marker" in label for label in thread_stack_roots(facts)))

    @unittest.skipUnless(CHECKS_FRAME_OBJECT, "no layout checks before 3.11")
    def test_a_field_the_probe_does_not_compare_is_refused(self):
        with self.assertRaises(ValueError):
            _probe._debug_perturb_layout("no_such.field")
        self.assertIsNone(_probe.frame_layout_problem())


if __name__ == "__main__":
    unittest.main()

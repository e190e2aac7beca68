"""Thread frames are read through the frame structs compiled into the probe
only while the runtime's published layout (_Py_DebugOffsets, 3.13+) agrees
with them; a patch release that moved a field must make the probe skip the
frames and say so, not read garbage."""

import sys
import unittest

from probe_support import ROOT_THREAD_STACK, NoOpProfiler, _probe, walk

PUBLISHES_LAYOUT = sys.version_info >= (3, 13)


def thread_stack_roots(facts):
    return [label for kind, label, _count, _thread in facts["roots"] if kind == ROOT_THREAD_STACK]


class FrameLayoutTest(unittest.TestCase):
    def tearDown(self):
        if PUBLISHES_LAYOUT:
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

    @unittest.skipUnless(PUBLISHES_LAYOUT, "no published layout before 3.13")
    def test_a_field_the_probe_does_not_compare_is_refused(self):
        with self.assertRaises(ValueError):
            _probe._debug_perturb_layout("no_such.field")
        self.assertIsNone(_probe.frame_layout_problem())


if __name__ == "__main__":
    unittest.main()

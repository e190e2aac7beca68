"""One process holding extensions built with different pybind11 releases
(fixtures/pybindfix.cpp built once per release the probe recognises: the
directories in REFSCOPE_PYBIND11_FIXTURE_DIRS, releases in
REFSCOPE_PYBIND11_RELEASES). Each release keeps its own internals; the probe
must recognise every set, and count each reference once even where two
releases share an internals version (2.10 and 2.13 both publish v4 on
Python < 3.12)."""
import glob
import importlib.machinery
import importlib.util
import os
import unittest

from cpp_ext_support import EDGE_OWNED, explained, in_edges, walk

DIRS = [d for d in os.environ.get("REFSCOPE_PYBIND11_FIXTURE_DIRS", "").split(":") if d]
RELEASES = [r for r in os.environ.get("REFSCOPE_PYBIND11_RELEASES", "").split(",") if r]


def load(directory):
    """This interpreter's _pybindfix from `directory`, imported under its own
    name but kept out of sys.modules, so that each release's copy loads."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (path,) = glob.glob(os.path.join(directory, "_pybindfix" + suffix))
    spec = importlib.util.spec_from_file_location("_pybindfix", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Payload:
    pass


@unittest.skipUnless(len(DIRS) > 1 and len(DIRS) == len(RELEASES), "fewer than two pybind11 releases built")
class MixedReleases(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Releases with one internals version share one set of internals
        # (2.10 and 2.13 on Python < 3.12): the second copy of the fixture
        # cannot register its types again there. One copy per set is loaded.
        cls.modules, cls.releases = [], []
        for directory, release in zip(DIRS, RELEASES):
            try:
                cls.modules.append(load(directory))
                cls.releases.append(release)
            except ImportError as e:
                if "already registered" not in str(e):
                    raise
        if len(cls.modules) < 2:
            raise unittest.SkipTest("every release shares one set of internals here")

    def test_the_copies_are_separate_extensions(self):
        types = {m.UndescribedWrapper for m in self.modules}
        self.assertEqual(len(types), len(self.modules))

    def test_every_release_is_recognised(self):
        global KEPT
        KEPT = []
        try:
            ids = []
            for module in self.modules:
                w = module.UndescribedWrapper()
                w.value = w  # a non-GC self-cycle: only the internals know it
                nurse = module.Nurse()
                patient = Payload()
                nurse.adopt(patient)
                KEPT.append(nurse)
                ids += [id(w), id(patient)]
                del w, nurse, patient
            _report, facts = walk(*ids)
            for index, release in enumerate(self.releases):
                wrapper, patient = facts[2 * index], facts[2 * index + 1]
                with self.subTest(release=release):
                    self.assertIsNotNone(wrapper, "the self-cycle of pybind11 %s was not walked" % release)
                    self.assertEqual(wrapper["type"], "_pybindfix.UndescribedWrapper")
                    # held by its own C++ member, which nothing describes
                    self.assertEqual(wrapper["refcount"] - explained(wrapper), 1, wrapper)
                    # keep_alive: exactly one edge from the nurse, so the
                    # patient's references are all explained, none twice.
                    self.assertEqual(in_edges(patient).count(("Native", EDGE_OWNED, "pybind11 keep_alive patient")),
                                     1, in_edges(patient))
                    self.assertEqual(patient["refcount"], explained(patient), patient)
        finally:
            del KEPT


if __name__ == "__main__":
    unittest.main()

"""One process holding extensions built with different releases of one
binding library: the fixture (fixtures/pybindfix.cpp, fixtures/nanobindfix.cpp)
built once per release the probe recognises, in the directories of
REFSCOPE_<LIBRARY>_FIXTURE_DIRS, releases in REFSCOPE_<LIBRARY>_RELEASES
(tests/cpp_ext/CMakeLists.txt). Each release keeps its own internals; the
probe must recognise every set, and count each reference once even where two
releases share an internals version (pybind11 2.10 and 2.13 both publish v4
on Python < 3.12)."""
import glob
import importlib.machinery
import importlib.util
import os
import unittest

from cpp_ext_support import EDGE_OWNED, explained, in_edges, walk


def load(directory, name):
    """This interpreter's extension `name` from `directory`, imported under
    its own name but kept out of sys.modules, so that each release's copy
    loads."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (path,) = glob.glob(os.path.join(directory, name + suffix))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Payload:
    pass


class MixedReleases:
    library = ""   # "PYBIND11", "NANOBIND": names the environment variables
    fixture = ""   # the fixture module's name
    keep_alive = ""  # the label of a keep_alive edge

    @classmethod
    def setUpClass(cls):
        dirs = [d for d in os.environ.get("REFSCOPE_%s_FIXTURE_DIRS" % cls.library, "").split(":") if d]
        releases = [r for r in os.environ.get("REFSCOPE_%s_RELEASES" % cls.library, "").split(",") if r]
        if len(dirs) < 2 or len(dirs) != len(releases):
            raise unittest.SkipTest("fewer than two %s releases built" % cls.library.lower())
        # Releases with one internals version share one set of internals
        # (pybind11 2.10 and 2.13 on Python < 3.12): the second copy of the
        # fixture cannot register its types again there. One copy per set is
        # loaded.
        cls.modules, cls.releases = [], []
        for directory, release in zip(dirs, releases):
            try:
                cls.modules.append(load(directory, cls.fixture))
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
                    self.assertIsNotNone(wrapper, "the self-cycle of %s was not walked" % release)
                    self.assertEqual(wrapper["type"], self.fixture + ".UndescribedWrapper")
                    # held by its own C++ member, which nothing describes
                    self.assertEqual(wrapper["refcount"] - explained(wrapper), 1, wrapper)
                    # keep_alive: exactly one edge from the nurse, so the
                    # patient's references are all explained, none twice.
                    self.assertEqual(in_edges(patient).count(("Native", EDGE_OWNED, self.keep_alive)),
                                     1, in_edges(patient))
                    self.assertEqual(patient["refcount"], explained(patient), patient)
        finally:
            del KEPT


class Pybind11(MixedReleases, unittest.TestCase):
    library, fixture, keep_alive = "PYBIND11", "_pybindfix", "pybind11 keep_alive patient"


class Nanobind(MixedReleases, unittest.TestCase):
    library, fixture, keep_alive = "NANOBIND", "_nanobindfix", "nanobind keep_alive patient"


if __name__ == "__main__":
    unittest.main()

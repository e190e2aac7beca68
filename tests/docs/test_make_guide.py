"""docs/make_guide.py, which assembles and checks the user guide: on a
made-up guide, each check names what is wrong; then the real guide passes
the source checks."""

import io
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "docs"))
import make_guide  # noqa: E402

INDEX = """# The guide

![Start](images/first-start.png)
![Gone](images/first-gone.png)
![Made of two parts](images/hunt-one-fixed-diff.png)

See [the chapter](chapter.md#reading-the-path-why), [a missing one](nowhere.md),
[a bad anchor](chapter.md#no-such-heading), [the reference](../reference.md)
and [the web](https://example.org/x.md). In code, `[not](a-link.md)` and

```
![not a picture](images/in-code.png)
```
"""

CHAPTER = """# Chapter

## Reading the `Path`: why?

Back to [the index](README.md).
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class MakeGuideTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = tmp.name
        self.source = os.path.join(self.root, "docs", "guide")
        write(os.path.join(self.source, "README.md"), INDEX)
        write(os.path.join(self.source, "chapter.md"), CHAPTER)
        write(os.path.join(self.root, "docs", "reference.md"), "# Reference\n")
        self.tests = os.path.join(self.root, "tests")
        write(os.path.join(self.tests, "a_test.cpp"), 'save_guide_image(window, "first-start");\n'
                                                       'picture(window, QStringLiteral("fixed-diff"));\n')
        write(os.path.join(self.tests, "hunts.py"), "HUNTS = {'hunt-one': {}}\n")

    def call(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = make_guide.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def test_check_names_each_broken_link_and_unwritten_picture(self):
        code, _, err = self.call("check", "--source", self.source, "--tests", self.tests)
        self.assertEqual(code, 1)
        problems = sorted(line for line in err.splitlines())
        self.assertEqual(problems, [
            "make_guide: README.md: chapter.md#no-such-heading (no heading #no-such-heading in chapter.md)",
            "make_guide: README.md: images/first-gone.png",
            "make_guide: README.md: nowhere.md (no such file)",
        ])

    def test_check_passes_once_fixed(self):
        write(os.path.join(self.tests, "b_test.py"), 'save_guide_image(path, "first-gone")\n')
        write(os.path.join(self.source, "README.md"),
              INDEX.replace("[a missing one](nowhere.md),\n[a bad anchor](chapter.md#no-such-heading), ", ""))
        code, out, err = self.call("check", "--source", self.source, "--tests", self.tests)
        self.assertEqual((code, err), (0, ""))
        self.assertIn("2 chapters", out)

    @unittest.skipUnless(make_guide.markdown_available(), "no python3-markdown for this Python")
    def test_build_renders_and_names_each_missing_picture(self):
        out_dir = os.path.join(self.root, "build", "guide")
        write(os.path.join(out_dir, "images", "first-start.png"), "png")
        write(os.path.join(out_dir, "images", "hunt-one-fixed-diff.png"), "png")
        write(os.path.join(out_dir, "removed.html"), "a chapter that is gone")
        code, _, err = self.call("build", "--source", self.source, "--out", out_dir)
        self.assertEqual(code, 1)
        self.assertIn("README.md: images/first-gone.png", err)
        self.assertNotIn("first-start", err)
        self.assertNotIn("in-code", err)
        self.assertEqual(sorted(os.listdir(out_dir)),
                         ["README.html", "README.md", "chapter.html", "chapter.md", "images"])
        with open(os.path.join(out_dir, "README.html"), encoding="utf-8") as f:
            html = f.read()
        self.assertIn('href="chapter.html#reading-the-path-why"', html)
        self.assertIn('src="images/first-start.png"', html)
        # A link out of the guide points at the source tree.
        self.assertIn('href="%s"' % os.path.join(self.root, "docs", "reference.md"), html)
        self.assertIn('href="https://example.org/x.md"', html)
        with open(os.path.join(out_dir, "chapter.html"), encoding="utf-8") as f:
            self.assertIn('id="reading-the-path-why"', f.read())
        write(os.path.join(out_dir, "images", "first-gone.png"), "png")
        code, out, err = self.call("build", "--source", self.source, "--out", out_dir)
        self.assertEqual((code, err), (0, ""))

    def test_the_real_guide_passes_the_source_checks(self):
        done = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "make_guide.py"), "check",
                               "--source", os.path.join(ROOT, "docs", "guide"),
                               "--tests", os.path.join(ROOT, "tests")],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertEqual(done.returncode, 0, done.stdout.decode())


if __name__ == "__main__":
    unittest.main()

"""The hand-written man pages (resources/man/, installed by the Debian
package) name every option of the programs' own --help, every verb of
refscope-cli, and the version the programs print; and they render with
man(1) without a warning.

Needs REFSCOPE_CLI and REFSCOPE_APP (the built binaries).
"""

import os
import re
import shutil
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MAN = os.path.join(HERE, "..", "..", "resources", "man")
CLI = os.environ.get("REFSCOPE_CLI", "")
APP = os.environ.get("REFSCOPE_APP", "")


def output(*command):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(command, capture_output=True, text=True, check=True, env=env).stdout


def page(name):
    """The page's roff with its escapes for '-' undone, as words to search."""
    with open(os.path.join(MAN, name)) as f:
        text = f.read()
    text = re.sub(r"\\f[BIRP]", "", text)  # font changes
    return text.replace("\\-", "-").replace("\\e", "\\")


def options(help_text):
    """The options in a help's usage line and its option table (not the
    words of its examples)."""
    usage = help_text.split("\n\n", 1)[0]
    table = "\n".join(line for line in help_text.splitlines() if re.match(r"^  +-", line))
    return set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage + "\n" + table))


def title_version(text):
    return re.search(r'^\.TH \S+ 1 \S+ "refscope ([^"]+)"', text, re.M).group(1)


@unittest.skipUnless(CLI and APP, "REFSCOPE_CLI and REFSCOPE_APP are not set")
class ManPagesTest(unittest.TestCase):
    def assertNamesAll(self, text, words, what):
        missing = sorted(w for w in words if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(w), text))
        self.assertEqual(missing, [], "%s not in the man page" % what)

    def test_refscope_cli(self):
        text = page("refscope-cli.1")
        top = output(CLI, "--help")
        verbs = re.findall(r"^  ([a-z][a-z-]*)", top.split("verbs:\n", 1)[1].split("\n\n", 1)[0], re.M)
        self.assertIn("export-heapsnapshot", verbs)
        # Each verb has its own entry (.BI/.B VERB at a line's start).
        entries = set(re.findall(r"^\.(?:BI?|BR) ([a-z][a-z-]*)", text, re.M))
        self.assertEqual(sorted(set(verbs) - entries), [], "verbs without an entry")
        found = options(top)
        for verb in verbs:
            if verb != "help":
                found |= options(output(CLI, verb, "--help"))
        self.assertNamesAll(text, found, "refscope-cli options")
        self.assertEqual(title_version(text), output(CLI, "--version").split()[-1])

    def test_refscope(self):
        text = page("refscope.1")
        found = options(output(APP, "--help"))
        self.assertIn("--quit-after-screenshot", found)
        self.assertNamesAll(text, found, "refscope options")
        self.assertEqual(title_version(text), output(APP, "--version").split()[-1])

    @unittest.skipUnless(shutil.which("man"), "no man(1) here")
    def test_pages_render_without_warnings(self):
        for name in ("refscope.1", "refscope-cli.1"):
            with self.subTest(page=name):
                done = subprocess.run(["man", "--warnings", "-l", os.path.join(MAN, name)],
                                      capture_output=True, text=True, env=dict(os.environ, MANWIDTH="80"))
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertEqual(done.stderr, "")
                self.assertIn("SYNOPSIS", done.stdout)


if __name__ == "__main__":
    unittest.main()

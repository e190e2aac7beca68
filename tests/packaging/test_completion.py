"""The bash completion of refscope-cli (resources/completion/refscope-cli.bash,
installed by the Debian package) offers exactly the verbs of
`refscope-cli --help` and, after a verb, exactly that verb's options from
`refscope-cli VERB --help`, so the two cannot drift apart.

Runs bash itself on the completion function, as the shell does on Tab.
Needs REFSCOPE_CLI (the built refscope-cli).
"""

import os
import re
import shutil
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COMPLETION = os.path.join(HERE, "..", "..", "resources", "completion", "refscope-cli.bash")
CLI = os.environ.get("REFSCOPE_CLI", "")


def cli_help(*verb):
    return subprocess.run([CLI, *verb, "--help"], capture_output=True, text=True, check=True).stdout


def complete(*words):
    """The candidates bash's completion function offers for the command line
    `refscope-cli WORDS...` with the cursor at the end of the last word."""
    line = ["refscope-cli", *words]
    script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); '
              '_refscope_cli; printf "%s\\n" "${COMPREPLY[@]}"')
    done = subprocess.run(["bash", "-c", script, "bash", COMPLETION, *line],
                          capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def help_verbs():
    """The verbs of the top-level help, and the alias it names."""
    text = cli_help()
    block = text.split("verbs:\n", 1)[1].split("\n\n", 1)[0]
    verbs = set(re.findall(r"^  ([a-z][a-z-]*)", block, re.M))
    verbs |= set(re.findall(r"alias: ([a-z-]+)", block))
    return verbs


def help_options(verb):
    """The options a verb's help lists in its usage line and option table,
    plus the global ones every verb takes."""
    text = cli_help(verb)
    usage = text.split("\n\n", 1)[0]
    table = "\n".join(line for line in text.splitlines() if re.match(r"^  +-", line))
    options = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", usage + "\n" + table))
    return options | {"--json", "--help"}


@unittest.skipUnless(CLI and os.path.isfile(CLI), "REFSCOPE_CLI is not set to the built refscope-cli")
@unittest.skipUnless(shutil.which("bash"), "no bash here")
class CompletionTest(unittest.TestCase):
    def test_verbs_are_the_helps(self):
        verbs = help_verbs()
        self.assertIn("summary", verbs)
        self.assertIn("dominators", verbs)
        self.assertEqual(complete(""), verbs)
        self.assertEqual(complete("ex"), {v for v in verbs if v.startswith("ex")})
        # After the global --json, still the verbs.
        self.assertEqual(complete("--json", ""), verbs)
        self.assertEqual(complete("help", "su"), {"summary", "suspects"})

    def test_each_verbs_options_are_its_helps(self):
        for verb in help_verbs() - {"help"}:
            with self.subTest(verb=verb):
                expected = help_options(verb)
                offered = complete(verb, "snapshot.rscope", "-") | complete(verb, "snapshot.rscope", "--")
                self.assertEqual(offered, expected)

    def test_option_values(self):
        self.assertEqual(complete("summary", "a.rscope", "--by", ""), {"type", "module", "cycle", "dominator"})
        self.assertEqual(complete("export-path", "a.rscope", "--format", ""), {"png", "svg", "pdf", "dot"})
        self.assertEqual(complete("export-path", "a.rscope", "--cluster", "c"), {"cycle"})
        # A value that is a number or a name: nothing to offer, not files.
        self.assertEqual(complete("summary", "a.rscope", "--top", ""), set())

    def test_files_after_a_verb(self):
        # Completes file names relative to the working directory.
        data = os.path.join(HERE, "..", "data")
        done = subprocess.run(
            ["bash", "-c", 'source "$1"; COMP_WORDS=(refscope-cli info good-v1.3.r); COMP_CWORD=2; '
             '_refscope_cli; printf "%s\\n" "${COMPREPLY[@]}"', "bash", COMPLETION],
            cwd=data, capture_output=True, text=True, check=True)
        self.assertEqual(done.stdout.split(), ["good-v1.3.rscope"])


if __name__ == "__main__":
    unittest.main()

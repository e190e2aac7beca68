#!/usr/bin/env python3
"""Assembles and checks the user guide (docs/guide/*.md).

    make_guide.py build --source docs/guide --out build/dev/guide
        copies the chapters into OUT beside OUT/images/ (where the window
        tests saved the pictures: REFSCOPE_GUIDE_IMAGES), renders each one to
        HTML with python3-markdown, and fails naming every picture a chapter
        shows that no test saved. The CMake target `guide` runs it.

    make_guide.py check --source docs/guide --tests tests
        without a build: every picture a chapter shows is named by some test
        source, whole or as two quoted parts joined by '-' (so renaming one
        in a test cannot leave the chapter pointing at nothing; the two-part
        form is the weaker check, since any two quoted parts pass: `build`
        is the exact one), and every relative link of the chapters resolves,
        its #anchor included. CTest runs it (docs.make_guide, label docs).

Pictures are never committed: a chapter names `images/<name>.png` and a test
saves `<name>` with testing::save_guide_image (tests/gui_window).
"""

import argparse
import os
import re
import shutil
import sys

IMAGE = re.compile(r"(?<![\w/.-])images/([\w.-]+)\.png")
# [text](target) and ![alt](target); the target ends at a space or ")".
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)


def prose(text):
    """The chapter without its code: a path in a code block is no link."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped,
    spaces to hyphens (the HTML is rendered with the same ids)."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text):
    """The anchors of a Markdown file's headings (duplicates get -1, -2...)."""
    seen = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", text)):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else "%s-%d" % (base, n))
    return found


def chapters(source):
    return sorted(name for name in os.listdir(source) if name.endswith(".md"))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def images_of(text):
    return sorted(set(IMAGE.findall(FENCE.sub("", text))))


def broken_links(source):
    """'chapter: target (why)' for each relative link that does not resolve."""
    problems = []
    for name in chapters(source):
        text = read(os.path.join(source, name))
        for target in LINK.findall(prose(text)):
            if re.match(r"[a-z]+:", target) or IMAGE.fullmatch(target):
                continue  # a URL, or a picture (checked on its own)
            path, _, anchor = target.partition("#")
            file = os.path.normpath(os.path.join(source, path)) if path else os.path.join(source, name)
            if not os.path.exists(file):
                problems.append("%s: %s (no such file)" % (name, target))
            elif anchor and file.endswith(".md") and anchor not in anchors(read(file)):
                problems.append("%s: %s (no heading #%s in %s)" % (name, target, anchor, os.path.basename(file)))
    return problems


def test_sources(tests):
    for folder, _, files in os.walk(tests):
        for file in files:
            if file.endswith((".cpp", ".h", ".py", ".txt", ".cmake")):
                yield os.path.join(folder, file)


QUOTED = re.compile(r"[\"']([\w.-]+?)(?:\.png)?[\"']")


def unwritten_images(source, tests):
    """'chapter: images/NAME.png' for each picture no test source names:
    NAME quoted whole ("reading-path"), or as two quoted parts a test joins
    with '-' ("hunt-nanobind" and "path": one test, several chapters)."""
    quoted = set()
    for path in test_sources(tests):
        quoted.update(QUOTED.findall(read(path)))

    def named(image):
        return image in quoted or any(image[:i] in quoted and image[i + 1:] in quoted
                                      for i, c in enumerate(image) if c == "-")
    return ["%s: images/%s.png" % (name, image)
            for name in chapters(source)
            for image in images_of(read(os.path.join(source, name)))
            if not named(image)]


def missing_images(source, images):
    """'chapter: images/NAME.png' for each picture not saved in `images`."""
    return ["%s: images/%s.png" % (name, image)
            for name in chapters(source)
            for image in images_of(read(os.path.join(source, name)))
            if not os.path.isfile(os.path.join(images, image + ".png"))]


def html_page(title, body):
    return """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s — refscope</title>
<style>
body { max-width: 60em; margin: 2em auto; padding: 0 1em; font: 16px/1.5 sans-serif; color: #222; }
img { max-width: 100%%; border: 1px solid #ccc; }
pre { background: #f4f4f4; padding: .6em; overflow-x: auto; }
code { background: #f4f4f4; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: .2em .5em; }
</style></head>
<body>
%s
</body></html>
""" % (title, body)


def rewrite_links(text, source):
    """Links out of docs/guide point at the source tree (the assembled guide
    lives in the build folder); chapter links stay relative."""
    def fix(match):
        whole, target = match.group(0), match.group(1)
        path = target.partition("#")[0]
        if not path or re.match(r"[a-z]+:", target) or IMAGE.fullmatch(target) or "/" not in path:
            return whole
        absolute = os.path.normpath(os.path.join(source, target))
        return whole.replace("(" + target, "(" + absolute, 1)
    return LINK.sub(fix, text)


def markdown_available():
    try:
        import markdown  # noqa: F401
    except ImportError:
        return False
    return True


def build(source, out):
    try:
        import markdown
    except ImportError:
        sys.exit("make_guide: python3-markdown is missing (Debian: apt-get install python3-markdown; "
                 "packaging/bootstrap.sh installs it)")
    source = os.path.abspath(source)
    os.makedirs(out, exist_ok=True)
    names = chapters(source)
    # A chapter removed from the source goes from the output too.
    for old in os.listdir(out):
        if old.endswith((".md", ".html")) and old[:-3 if old.endswith(".md") else -5] + ".md" not in names:
            os.remove(os.path.join(out, old))
    for name in names:
        text = rewrite_links(read(os.path.join(source, name)), source)
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(text)
        # Chapter links go to the rendered chapters.
        html_text = re.sub(r"\]\(([\w-]+)\.md(#[^)]*)?\)", r"](\1.html\2)", text)
        body = markdown.markdown(html_text, extensions=["tables", "fenced_code", "toc"],
                                 extension_configs={"toc": {"slugify": lambda value, separator: slug(value)}})
        title = (HEADING.findall(text) or [name[:-3]])[0]
        with open(os.path.join(out, name[:-3] + ".html"), "w", encoding="utf-8") as f:
            f.write(html_page(title, body))
    missing = missing_images(source, os.path.join(out, "images"))
    if missing:
        print("make_guide: pictures the chapters show that no test saved (run the tests first: "
              "ctest --preset dev; they save into %s):" % os.path.join(out, "images"), file=sys.stderr)
        for line in missing:
            print("  " + line, file=sys.stderr)
        return 1
    print("make_guide: %d chapters in %s (open README.html)" % (len(names), out))
    return 0


def check(source, tests):
    problems = broken_links(source) + unwritten_images(source, tests)
    for line in problems:
        print("make_guide: " + line, file=sys.stderr)
    if not problems:
        print("make_guide: %d chapters: every link resolves, every picture is saved by a test"
              % len(chapters(source)))
    return 1 if problems else 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("build")
    b.add_argument("--source", required=True)
    b.add_argument("--out", required=True)
    c = commands.add_parser("check")
    c.add_argument("--source", required=True)
    c.add_argument("--tests", required=True)
    options = parser.parse_args(argv)
    if options.command == "build":
        return build(options.source, options.out)
    return check(options.source, options.tests)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

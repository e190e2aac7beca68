"""The user guide's nanobind hunt (docs/guide/hunt-nanobind.md; reference
document 000/001, "Function objects"): a dialog's button is a nanobind
class whose C++ member holds a Python callback, and the callback's closure
holds the button. Every dialog opened leaks a cycle the garbage collector
cannot see, with the settings the callback captured.

  hunt_nanobind.py DIR [--fixed]

writes DIR/before.rscope (after one dialog) and DIR/after.rscope (after
twenty more). With --fixed the button type has tp_traverse and tp_clear
(nb::type_slots), the page's fix, and the cycles are collected.
`_nanobindfix` is the test suite's build of the page's `my_ext`
(tests/cpp_ext/fixtures/nanobindfix.cpp)."""
import gc
import json
import os
import sys

import _nanobindfix as my_ext
import refscope

fixed = "--fixed" in sys.argv[2:]
# The leaking class: the page's Wrapper, an nb::object member, no traversal.
# The fixed one: the same member, visited by tp_traverse, cleared by tp_clear.
Button = my_ext.TraversedWrapper if fixed else my_ext.UndescribedWrapper


class DialogSettings:
    def __init__(self, title):
        self.title = title
        self.history = bytearray(64 * 1024)  # what the dialog remembers


def open_dialog(title):
    settings = DialogSettings(title)
    button = Button()

    def on_click():
        return settings.title, button  # the closure holds the button

    button.value = on_click  # the button's C++ member holds the closure
    return on_click()


def snapshot(name):
    gc.collect()
    refscope.snapshot(os.path.join(sys.argv[1], name), collect=True)


open_dialog("first")
snapshot("before.rscope")
for n in range(20):
    open_dialog("dialog %d" % n)
snapshot("after.rscope")
print(json.dumps({"nanobind": my_ext.nanobind_version, "python": sys.version.split()[0],
                  "button": Button.__module__ + "." + Button.__name__}))

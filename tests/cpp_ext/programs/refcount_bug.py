"""The torch.compile cell leak in miniature: a C function increfs its
argument twice and decrefs it once. Two cells are made the same way; only
the one passed to the buggy function leaks. Snapshot path: argv[1]."""
import sys

import _describefix
from program_common import finish


def make_cell(value):
    def inner():
        return value
    return inner.__closure__[0]


leaked = make_cell(object())
clean = make_cell(object())
_describefix.incref_twice_decref_once(leaked)
leaked_address, clean_address = hex(id(leaked)), hex(id(clean))
del leaked
finish(sys.argv[1], leaked=leaked_address, clean=clean_address)

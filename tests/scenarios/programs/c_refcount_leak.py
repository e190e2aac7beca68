"""Scenario (c): a C function increfs an object and never decrefs it (the
torch.compile cell leak). The object must show unexplained surplus 1 and no
path from the roots."""
import sys

import _leakfix
from scenario_common import finish


class Leaked:
    pass


obj = Leaked()
_leakfix.incref_without_decref(obj)
address = hex(id(obj))
del obj
finish(sys.argv[1], None, address=address, type="__main__.Leaked")

"""Native nodes on retention paths (fixtures/describefix.c): a module-level
Owner whose C Impl holds a callback, and a Preserved object that only its C
TensorImpl keeps alive (PyObject preservation). With "undescribed" after
the snapshot path, the Preserved callback is switched off first.
Snapshot path: argv[1]; prints one JSON line."""
import sys

import _describefix
from program_common import finish


class Callback:
    """The object only the C side keeps alive."""

    def __call__(self):
        return None


owner = _describefix.Owner(Callback())


def make_preserved():
    p = _describefix.Preserved()
    _describefix.preserve(p)
    return hex(id(p))


if sys.argv[2:] == ["undescribed"]:
    _describefix.describe_preservation(False)
preserved = make_preserved()
finish(sys.argv[1], preserved=preserved, impl=hex(_describefix.impl_address(owner)))

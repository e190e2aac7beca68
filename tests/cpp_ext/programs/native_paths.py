"""Native nodes on retention paths (fixtures/describefix.c): a module-level
Owner whose C Impl holds a callback, and a Preserved object that only its C
TensorImpl keeps alive. Snapshot path: argv[1]; prints one JSON line."""
import sys

import _describefix
from program_common import finish


class Callback:
    """The object the C++ side keeps alive."""

    def __call__(self):
        return None


class PreservedPayload:
    pass


owner = _describefix.Owner(Callback())
callback_address = hex(id(owner.__class__)) if False else None  # noqa: the callback is only reachable through C


def make_preserved():
    p = _describefix.Preserved()
    _describefix.preserve(p)
    return hex(id(p))


preserved = make_preserved()
finish(sys.argv[1], preserved=preserved, impl=hex(_describefix.impl_address(owner)))

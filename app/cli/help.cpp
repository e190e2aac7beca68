#include "help.h"

namespace refscope::cli {

std::string_view help_text(Verb verb) {
    switch (verb) {
        case Verb::None:
            return R"(usage: refscope-cli [--json] VERB [OPTIONS] FILE ...

Why is this Python object still alive? Reads a refscope snapshot and answers
from the command line.

verbs:
  info FILE                            header and counts
  summary FILE [--by type|module] [--top N]
                                       objects and shallow bytes per group
  roots FILE [--top N]                 root classes, and the objects with
                                       unexplained refcount surplus
  path FILE (--to ADDRESS | --type NAME)
                                       shortest retention path from a root
  referrers FILE ADDRESS [--top N]     who holds an object, its roots and surplus
  help [VERB]                          this text, or a verb's

options:
  --json       machine-readable output (schema: docs/cli.md)
  -h, --help   help (after a verb: that verb's help)
  --version    print the version

ADDRESS is hexadecimal, with or without 0x. Exit status: 0 success, 1 the
file could not be read or the object was not found, 2 bad usage.
)";
        case Verb::Info:
            return R"(usage: refscope-cli info FILE [--json]

Prints the snapshot's header (Python version and build, process, time, whether
gc.collect() ran first) and its counts: objects, references, types, roots,
threads and total shallow bytes.
)";
        case Verb::Summary:
            return R"(usage: refscope-cli summary FILE [--by type|module] [--top N] [--json]

Objects and shallow bytes per type (default) or per module, most bytes first.
A module object counts towards the module it is; any other object towards its
type's module.

  --by type|module   how to group (default: type)
  --top N            show the N largest groups (default 20, 0 = all)
)";
        case Verb::Roots:
            return R"(usage: refscope-cli roots FILE [--top N] [--json]

How each object's refcount is accounted for. surplus = refcount minus owned
references from other objects in the snapshot; the probe explains surplus as
interpreter roots, thread stacks and extension references, in that order.
What is left is unexplained surplus: references the GC cannot see, held by
C/C++ code or leaked. Lists the objects with the most unexplained surplus and
any with negative surplus (an inconsistent snapshot).

  --top N   list at most N objects per list (default 20, 0 = all)
)";
        case Verb::Path:
            return R"(usage: refscope-cli path FILE (--to ADDRESS | --type NAME) [--json]

The shortest chain of owned, non-weak references from a root to an object,
each hop with its edge label, e.g.
  sys.modules['app'] → module app → .cache → dict (len=3) → ['k1'] → app.Leaky @ 0x7f…
With --type, the instance of NAME (exact type name, e.g. app.Leaky) nearest to
a root, and how many instances there are. An object with no path gets an
explanation: its own unexplained surplus, or the nearest object with
unexplained surplus that retains it.

  --to ADDRESS   the object at ADDRESS
  --type NAME    the nearest instance of type NAME
)";
        case Verb::Referrers:
            return R"(usage: refscope-cli referrers FILE ADDRESS [--top N] [--json]

Who holds the object at ADDRESS: every referring object with the edge's label
and kind, the root records that hold it, and its refcount arithmetic (owned
references, surplus explained per root class, unexplained surplus).

  --top N   list at most N referrers (default 50, 0 = all)
)";
    }
    return "";
}

}  // namespace refscope::cli

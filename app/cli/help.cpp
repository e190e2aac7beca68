#include "help.h"

namespace refscope::cli {

namespace {

// One entry per verb: its usage line and what it answers (docs/cli.md has
// the same in longer form). Verb::None is the overview.
struct VerbHelp {
    Verb verb;
    std::string_view text;
};

constexpr VerbHelp kHelp[] = {
    {Verb::None, R"(usage: refscope-cli [--json] VERB [OPTIONS] FILE ...

Why is this Python object still alive? Reads a refscope snapshot and answers
from the command line.

verbs:
  info FILE                            header and counts
  summary FILE [--by type|module|cycle|dominator] [--top N] [--filter EXPR]
                                       objects and shallow bytes per group
  roots FILE [--top N]                 root classes, and the objects with
                                       unexplained refcount surplus
  path FILE (--to ADDRESS | --type NAME)
                                       shortest retention path from a root
  referrers FILE ADDRESS [--top N]     who holds an object, its roots and surplus
  retained FILE [--top N]              what each object keeps alive (dominator
                                       tree); alias: dominators
  cycles FILE [--top N]                reference cycles and whether the garbage
                                       collector can free them
  diff A B [--third C] [--top N] [--filter EXPR] [--force]
                                       what changed between two snapshots; with
                                       a third, what was allocated and survived
  query FILE EXPR [--top N]            objects matching a filter expression
  suspects FILE [--baseline A [--third C]] [--top N]
                                       what is leaking: types ranked by evidence
  export-path FILE (--to ADDRESS | --type NAME) [-o OUT] [--format F] ...
                                       draw why an object is alive (Graphviz)
  export-heapsnapshot FILE -o OUT [--python-types]
                                       the heap as a Chrome .heapsnapshot
  listen [--dir D] [--tcp PORT] [--every S] [--count K] ...
                                       receive snapshots streamed by running
                                       programs (the live connection)
  processes                            Python processes one could attach to
  help [VERB]                          this text, or a verb's

options:
  --json       machine-readable output (schema: docs/cli.md)
  -h, --help   help (after a verb: that verb's help)
  --version    print the version

ADDRESS is hexadecimal, with or without 0x. Exit status: 0 success, 1 the
file could not be read or the object was not found, 2 bad usage.
)"},
    {Verb::Info, R"(usage: refscope-cli info FILE [--json]

Prints the snapshot's header (Python version and build, process, time, whether
gc.collect() ran first) and its counts: objects, references, types, roots,
threads and total shallow bytes.
)"},
    {Verb::Summary, R"(usage: refscope-cli summary FILE [--by type|module|cycle|dominator] [--top N] [--json]

Objects and shallow bytes per type (default) or per module, most bytes first.
A module object counts towards the module it is; any other object towards its
type's module. By cycle: one group per reference cycle (its fate and member
types), then one for the objects on no cycle. By dominator: one group per
top-level retainer (an object held directly by the roots or by unexplained
surplus) with everything only it keeps alive, then one for unreachable objects.

  --by type|module|cycle|dominator
                     how to group (default: type)
  --top N            show the N largest groups (default 20, 0 = all)
  --filter EXPR      count only the objects matching EXPR (the filter language
                     of docs/filter-language.md, e.g. 'module:app size>1KB')
)"},
    {Verb::Roots, R"(usage: refscope-cli roots FILE [--top N] [--json]

How each object's refcount is accounted for. surplus = refcount minus owned
references from other objects in the snapshot; the probe explains surplus as
interpreter roots, thread stacks and extension references, in that order.
What is left is unexplained surplus: references the GC cannot see, held by
C/C++ code or leaked. Lists the objects with the most unexplained surplus and
any with negative surplus (an inconsistent snapshot).

  --top N   list at most N objects per list (default 20, 0 = all)
)"},
    {Verb::Path, R"(usage: refscope-cli path FILE (--to ADDRESS | --type NAME) [--json]

The shortest chain of owned, non-weak references from a root to an object,
each hop with its edge label, e.g.
  sys.modules['app'] → module app → .cache → dict (len=3) → ['k1'] → app.Leaky @ 0x7f…
With --type, the instance of NAME (exact type name, e.g. app.Leaky) nearest to
a root, and how many instances there are. An object with no path gets an
explanation: its own unexplained surplus, or the nearest object with
unexplained surplus that retains it. A path through the state of a finalizer
waiting for an object further along it gets a note: while the path holds
that object, the finalizer never runs.

  --to ADDRESS   the object at ADDRESS
  --type NAME    the nearest instance of type NAME
)"},
    {Verb::Referrers, R"(usage: refscope-cli referrers FILE ADDRESS [--top N] [--json]

Who holds the object at ADDRESS: every referring object with the edge's label
and kind, the root records that hold it, and its refcount arithmetic (owned
references, surplus explained per root class, unexplained surplus).

  --top N   list at most N referrers (default 50, 0 = all)
)"},
    {Verb::Retained, R"(usage: refscope-cli retained FILE [--top N] [--json]
       refscope-cli dominators FILE [--top N] [--json]

What each object keeps alive: its retained size is the shallow size of every
object that all retaining paths from the roots reach only through it (the
dominator tree over owned, non-weak references). Objects held only by
unexplained surplus (C/C++ code or a leak) hang under "unexplained holders",
so what a leak retains is counted too. Lists the objects with the largest
retained size, each with its immediate dominator ("roots" when no single
object dominates it). Nested rows are expected: a module and its __dict__
retain the same objects.

  --top N   list at most N objects (default 20, 0 = all)
)"},
    {Verb::Cycles, R"(usage: refscope-cli cycles FILE [--top N] [--json]

Reference cycles (strongly connected components of owned, non-weak
references) and their fate: alive (reachable from the roots), held from
outside (a member has unexplained surplus), invisible edge (an owned
reference inside the cycle that tp_traverse does not report: the collector
cannot see the cycle), held by leak, or collectable garbage. Uncollectable
cycles come first, most bytes first, each with the reason in one sentence.
Then the likely cycles through a C++ member nobody describes (inferred, not
in the graph): an object with unexplained surplus that reaches an instance
of a type without tp_traverse (docs/cli.md, "Inferred holders").

  --top N   list at most N cycles, and N inferred ones (default 20, 0 = all)
)"},
    {Verb::Diff, R"(usage: refscope-cli diff A B [--third C] [--top N] [--filter EXPR] [--force] [--json]

What changed from snapshot A to the later snapshot B of the same process:
totals, per-type growth (largest first) and the largest new objects. An
object of A and one of B are the same when address and type name match.
With --third C, the three-snapshot technique: the objects allocated between
A and B that are still alive in C, grouped by type (the likely leaks).

  --third C       a third, later snapshot: report survivors
  --top N         at most N types and objects (default 20, 0 = all)
  --filter EXPR   list only the new objects (or survivors) matching EXPR;
                  the flag 'new' is true for them
  --force         diff even if the snapshots are not of one process, in order

Different processes or the wrong order: exit status 1.
)"},
    {Verb::Query, R"(usage: refscope-cli query FILE EXPR [--top N] [--json]

The objects matching a filter expression (docs/filter-language.md), e.g.
  refscope-cli query heap.rscope 'type:app.* size>1KB unreachable'
  refscope-cli query heap.rscope 'retained>1MB -tracked'
Prints how many match and their shallow bytes, then the largest matches.
Only the analyses the expression needs are run (retained: the dominator
tree; cycle: the cycle search). A malformed expression exits with status 2
and names the column.

  --top N   list at most N objects (default 20, 0 = all)
)"},
    {Verb::ExportPath, R"(usage: refscope-cli export-path FILE (--to ADDRESS | --type NAME) [-o OUT]
           [--format png|svg|pdf|dot] [--paths K] [--hops N] [--max-nodes N]
           [--cluster module|type|cycle|none] [--json]

Draws why an object is alive: its retention paths from the roots (or the
chain from the holder with unexplained surplus when it has none) and its
neighbourhood, rendered with Graphviz. With --type, the three most telling
instances of NAME (no path first, then unexplained surplus, then farthest).

  -o OUT          write OUT (atomically); without it, write to standard output
  --format F      png, svg, pdf or dot (default: from OUT's extension, else dot);
                  PNG and PDF are not written to a terminal
  --paths K       retention paths per target (default 1)
  --hops N        neighbourhood radius around the targets (default 1)
  --max-nodes N   at most N boxes (default 300); paths are always drawn whole
  --cluster C     frame nodes by module, type or cycle (default none)
  --json          report on the written file (needs -o)
)"},
    {Verb::Suspects, R"(usage: refscope-cli suspects FILE [--baseline A [--third C]] [--top N] [--json]

What is leaking? One row per type, ranked, with every kind of evidence
against its objects in plain words: unexplained surplus, unreachable (and
the holder keeping them), members of uncollectable cycles, growth since a
baseline, survivors of the three-snapshot technique, large retained size,
and objects kept alive only by their own finalizer (a weak-reference callback
or weakref.finalize whose state holds what it waits for, so it cannot run).
Rows that are probably static state held from C (the interpreter's or an
extension's: interned strings, static types, module globals), or only large, are
"low" confidence and come last (docs/leak-suspects.md).

  --baseline A   an earlier snapshot of the same process: adds growth
  --third C      with --baseline: A, FILE, C are snapshots 1, 2, 3; the
                 objects allocated between A and FILE and alive in C are
                 survivors, and C is the snapshot analysed
  --top N        at most N rows (default 20, 0 = all)
)"},
    {Verb::Listen, R"(usage: refscope-cli listen [--dir DIR] [--socket-dir DIR] [--tcp PORT] [--no-unix]
           [--every SECONDS] [--collect] [--on-connect] [--count K] [--timeout SECONDS]
           [--exit-when-idle] [--verify] [--json]

Waits for programs to connect (the probe connects out: the program never
listens) and saves every snapshot they stream to DIR as a valid .rscope file,
with DIR/session.jsonl recording connections and snapshots. Listens on a
Unix socket in a new private directory; prints the address, the 0600 token
file and the command lines that connect a program:
  REFSCOPE_CONNECT=ADDRESS REFSCOPE_TOKEN_FILE=FILE python3 -m refscope run app.py
  python3 -m refscope attach PID --address ADDRESS --token-file FILE
Then one line per event (connected, saved, discarded, failed, pong,
disconnected; JSON Lines with --json, docs/protocol.md); refusals and drops
are logged on standard error. Commands on standard input, one per line:
  snapshot ID|all   collect ID|all   ping ID|all   label ID TEXT
  disconnect ID|all   quit
ID is the connection number printed by "connected".

  --dir DIR           session folder (default refscope-session-DATE-TIME)
  --socket-dir DIR    put the socket and token file in DIR (private, 0700)
  --tcp PORT          also listen on TCP 127.0.0.1:PORT (0 = a free port)
  --no-unix           TCP only
  --token HEX         use this token (32 hex digits) instead of a random one
  --every SECONDS     snapshot every connected process every SECONDS
  --collect           automatic snapshots run gc.collect() first
  --on-connect        snapshot each process as soon as it connects
  --count K           exit after K snapshots were saved
  --timeout SECONDS   exit after SECONDS (status 1 if --count was not reached)
  --exit-when-idle    exit when the last connected process disconnects
  --verify            decode every saved snapshot and report it
  --max-connections N, --handshake-timeout SECONDS, --stall-timeout SECONDS
)"},
    {Verb::Processes, R"(usage: refscope-cli processes [--json]

The Python processes running on this machine (from /proc): pid, Python
version, user and command line; "another user's" marks those this user
cannot attach to. With --json: {"processes": [{"pid", "uid", "user",
"python_version", "executable", "argv", "embedded", "start_time_unix_ns",
"attachable"}]}.
)"},
    {Verb::ExportHeapsnapshot, R"(usage: refscope-cli export-heapsnapshot FILE -o OUT [--python-types] [--json]

Writes the heap as a V8 heap snapshot (docs/heapsnapshot.md), to open in
Chrome DevTools (Memory > Load profile) or memlab. OUT is written atomically.

  -o OUT           the .heapsnapshot file to write (required)
  --python-types   every object as an "object" node named by its Python type
                   (DevTools' Summary then has one row per Python type)
)"},
};

// What the switch over Verb used to check: no verb is left without help
// (Verb::Processes is the enum's last).
constexpr bool every_verb_has_help() {
    for (int v = 0; v <= static_cast<int>(Verb::Processes); ++v) {
        bool found = false;
        for (const VerbHelp& help : kHelp) found = found || static_cast<int>(help.verb) == v;
        if (!found) return false;
    }
    return true;
}
static_assert(every_verb_has_help(), "a verb without help text in kHelp");

}  // namespace

std::string_view help_text(Verb verb) {
    for (const VerbHelp& help : kHelp) {
        if (help.verb == verb) return help.text;
    }
    return "";
}

}  // namespace refscope::cli

"""`python -m refscope`: run a program unchanged and snapshot it at exit."""

import argparse
import builtins
import gc
import os
import sys
import traceback
import types

_DESCRIPTION = """\
refscope: heap and reference-graph snapshots of Python processes.

From Python:
  import refscope
  refscope.snapshot("heap.rscope", collect=True)   # returns SnapshotStats

From the command line:
  python -m refscope run [--trace-allocations] SCRIPT [ARGS...] --snapshot-at-exit FILE
  python -m refscope attach PID --address ADDRESS --token-file FILE
  python -m refscope processes [--json]

Live: REFSCOPE_CONNECT=ADDRESS REFSCOPE_TOKEN_FILE=FILE python -m refscope run ...
connects the program to a receiver (refscope-cli listen, the app) at start-up.
"""

_RUN_HELP = """\
Runs SCRIPT like `python SCRIPT ARGS...` (as the __main__ module, with
sys.argv = [SCRIPT, ARGS...] and the script's directory first on sys.path),
then, when it ends normally, by sys.exit() or by an exception, runs
gc.collect() and writes a snapshot to FILE. The script's exit status is
preserved. --snapshot-at-exit may come before SCRIPT or as the last two
arguments of the command line.

--trace-allocations starts tracemalloc (with --trace-frames frames per
traceback, 16 by default) before SCRIPT runs, so that every snapshot records
where each object was allocated (the CLI's path, referrers, query and
suspects, and the app, show it). Tracing costs the program time and memory
while it runs.
"""

_DEFAULT_TRACE_FRAMES = 16

_OPTION = "--snapshot-at-exit"


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m refscope", description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser(
        "run", help="run a script and write a snapshot when it exits",
        description=_RUN_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument(_OPTION, metavar="FILE", dest="snapshot_at_exit",
                     help="where to write the snapshot taken at exit")
    run.add_argument("--label", default="at exit", help="label stored in the snapshot header")
    run.add_argument("--trace-allocations", action="store_true",
                     help="start tracemalloc first: snapshots record where objects were allocated")
    run.add_argument("--trace-frames", metavar="N", type=_frame_count, default=_DEFAULT_TRACE_FRAMES,
                     help="frames per allocation traceback (default %d)" % _DEFAULT_TRACE_FRAMES)
    run.add_argument("script", metavar="SCRIPT", help="the Python file to run")
    run.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS",
                     help="arguments passed to SCRIPT")
    return parser


def _frame_count(text):
    try:
        frames = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number of frames: %r" % text)
    if not 1 <= frames <= 1000:
        raise argparse.ArgumentTypeError("frames must be between 1 and 1000, not %d" % frames)
    return frames


def _split_trailing_option(argv):
    """Takes `--snapshot-at-exit FILE` off the end of the command line."""
    if len(argv) >= 2 and argv[-2] == _OPTION:
        return argv[:-2], argv[-1]
    if argv and argv[-1].startswith(_OPTION + "="):
        return argv[:-1], argv[-1][len(_OPTION) + 1:]
    return argv, None


def _main_module(path):
    """A fresh __main__ module, as the interpreter makes for `python SCRIPT`."""
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = builtins
    module.__loader__ = None
    module.__spec__ = None
    module.__package__ = None
    module.__cached__ = None
    return module


def _take_snapshot(path, label):
    from . import snapshot
    try:
        snapshot(path, collect=True, label=label)
    except Exception as error:  # the program's own exit status wins
        print("refscope: could not write %s: %s" % (path, error), file=sys.stderr)


def run_script(script, args, snapshot_path, label):
    path = os.path.abspath(script)
    with open(path, "rb") as source_file:
        source = source_file.read()
    code = compile(source, script, "exec")
    del source
    sys.argv[:] = [script] + list(args)
    sys.path[0] = os.path.dirname(path)
    module = _main_module(script)
    # Like runpy's __main__ handling: the program's module replaces ours.
    sys.modules["__main__"] = module
    # REFSCOPE_CONNECT: connect now that sys.argv is the program's own.
    from . import _live
    _live._connect_from_environment()
    status = 0
    try:
        exec(code, module.__dict__)
    except SystemExit as exit_request:
        status = exit_request.code
    except BaseException:
        if snapshot_path:
            _take_snapshot(snapshot_path, label + " (exception)")
            snapshot_path = None
        traceback.print_exc()
        status = 1
    finally:
        sys.stdout.flush()
    if snapshot_path:
        _take_snapshot(snapshot_path, label)
    return status


def main(argv):
    if argv and argv[0] in ("attach", "processes"):  # the live connection's commands
        from . import _attach
        return _attach.main(argv)
    argv, trailing = _split_trailing_option(list(argv))
    parser = _build_parser()
    options = parser.parse_args(argv)
    if options.command != "run":
        parser.print_help()
        return 2
    snapshot_path = options.snapshot_at_exit or trailing
    if trailing and options.snapshot_at_exit:
        parser.error("--snapshot-at-exit given twice")
    gc.collect()
    if options.trace_allocations:
        import tracemalloc
        tracemalloc.start(options.trace_frames)
    return run_script(options.script, options.args, snapshot_path, options.label)

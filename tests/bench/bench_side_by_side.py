"""Side by side: refscope, objgraph and the pure-Python walk on one heap.

    PYTHONPATH=build/dev/python /usr/bin/python3 tests/bench/bench_side_by_side.py \
        [--records N] [--python PY ...] [--cli build/dev/app/cli/refscope-cli]

The heap is make_heap.py's (N records, about 8.5 objects each: N = 125,000
is ~1.1M objects, N = 1,150,000 ~10M), held by this module's global HEAP.
Two questions, each asked of each tool in a fresh process of each Python
(this file with --worker), one process at a time:

  path    a retention path to HEAP[N // 2]. objgraph: find_backref_chain(
          target, is_proper_module) (backwards with gc.get_referrers);
          pure Python: a breadth-first search forwards from sys.modules with
          gc.get_referents, stopping when the target is first seen;
          refscope: refscope.snapshot(FILE, collect=False), then
          `refscope-cli path FILE --to ADDRESS --json` (no in-process API).
  census  objects per type. objgraph: typestats(shortnames=False) (over
          gc.get_objects(): GC-tracked objects only); pure Python:
          gc.get_objects() closed over gc.get_referents() (untracked ints,
          strs and dicts too), counted by type; refscope: snapshot, then
          `refscope-cli summary FILE --top 0 --json`.

Each worker reports the question's wall and CPU time (the target's process
CPU, plus the CLI's for refscope) and the process's extra peak
memory while answering it (VmHWM after minus VmRSS before, the peak reset
through /proc/self/clear_refs, as bench_probe.py measures it); for refscope
also the snapshot's and the CLI's share, and the CLI's own peak RSS (another
process: not the target's memory). The driver checks that the answers
agree (the path's types from the module __main__ on, the list index; the
counts of a few types) and prints a Markdown table with the load average.
"""

import argparse
import collections
import gc
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from make_heap import make_heap  # noqa: E402
from process_memory import reset_peak, status_kb  # noqa: E402

OBJGRAPH = "/usr/lib/python3/dist-packages/objgraph.py"  # Debian's python3-objgraph
CENSUS_TYPES = ["make_heap.Record", "list", "dict", "int", "str"]
HEAP = None


def type_name(obj):
    """The type's name as refscope writes it: "dict", "make_heap.Record"."""
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__, t.__qualname__)


def load_objgraph():
    """Debian's objgraph (pure Python) for any interpreter, without the rest
    of dist-packages, which is built for Debian's own Python."""
    spec = importlib.util.spec_from_file_location("objgraph", OBJGRAPH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the pure-Python answers --------------------------------------------

def pure_path(target_id):
    """Shortest path sys.modules -> the object at target_id over
    gc.get_referents() (by id: a reference here would be a root)."""
    start = sys.modules
    parent = {id(start): None}
    alive = {id(start): start}  # keeps every visited object (and its id) alive
    queue = collections.deque([start])
    while queue:
        obj = queue.popleft()
        for ref in gc.get_referents(obj):
            key = id(ref)
            if key in parent:
                continue
            parent[key] = id(obj)
            alive[key] = ref
            if key == target_id:
                path = []
                while key is not None:
                    path.append(alive[key])
                    key = parent[key]
                return path[::-1]
            queue.append(ref)
    return []


def pure_census():
    """Every object gc.get_objects() reaches through gc.get_referents()."""
    objects = gc.get_objects()
    seen = {id(o) for o in objects}
    seen.add(id(objects))
    counts = collections.Counter()
    stack = objects
    while stack:
        obj = stack.pop()
        counts[type_name(obj)] += 1
        for ref in gc.get_referents(obj):
            if id(ref) not in seen:
                seen.add(id(ref))
                stack.append(ref)
    return counts


# --- the worker -----------------------------------------------------------

def refscope_answer(question, target_id, cli, directory):
    import refscope
    path = os.path.join(directory, "side.rscope")
    start = time.perf_counter()
    stats = refscope.snapshot(path, collect=False)
    snapshot_s = time.perf_counter() - start
    hwm = status_kb("VmHWM")  # the target's peak: the CLI is another process
    if question == "path":
        argv = [cli, "--json", "path", path, "--to", "0x%x" % target_id]
    else:
        argv = [cli, "--json", "summary", path, "--top", "0"]
    start = time.perf_counter()
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    cli_s = time.perf_counter() - start
    report = json.loads(out)
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    extra = {"snapshot_s": snapshot_s, "cli_s": cli_s, "nodes": stats.nodes, "edges": stats.edges,
             "cli_peak_kb": child.ru_maxrss, "cli_cpu": child.ru_utime + child.ru_stime}
    if question == "path":
        hops = report["hops"]
        types = [report["root"]["node"]["type"]] + [h["node"]["type"] for h in hops]
        return {"types": types, "index": hops[-1]["edge"], "root": report["root"]["label"]}, extra, hwm
    counts = {g["name"]: g["objects"] for g in report["groups"]}
    return {"counts": counts, "objects": report["objects"]}, extra, hwm


def worker(tool, question, records, cli):
    global HEAP
    # Every worker imports objgraph (and with it inspect, ast, dis, ...) so
    # that the interpreter's own objects are the same for every tool.
    objgraph = load_objgraph()
    HEAP = make_heap(records)
    # The target is HEAP[index]; no local holds it (a frame's local would be
    # a root one hop away for refscope and the forward search).
    index = records // 2
    target_id = id(HEAP[index])
    gc.collect()
    with tempfile.TemporaryDirectory(prefix="refscope-side-") as directory:
        rss_before = status_kb("VmRSS")
        peak_reset = reset_peak()
        hwm_before = status_kb("VmHWM")
        start = time.perf_counter()
        cpu_start = time.process_time()
        extra, hwm = {}, None
        if tool == "refscope":
            answer, extra, hwm = refscope_answer(question, target_id, cli, directory)
        elif question == "path":
            chain = (objgraph.find_backref_chain(HEAP[index], objgraph.is_proper_module) if tool == "objgraph"
                     else pure_path(target_id))
        else:
            counts = objgraph.typestats(shortnames=False) if tool == "objgraph" else pure_census()
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu_start + extra.get("cli_cpu", 0.0)
        hwm = hwm if hwm is not None else status_kb("VmHWM")
    if tool != "refscope" and question == "path":
        answer = {"types": [type_name(o) for o in chain],
                  "index": "[%d]" % index if len(chain) > 1 and chain[-2] is HEAP else None,
                  "root": type_name(chain[0]) if chain else None}
        del chain
    elif tool != "refscope":
        counts = {(k[len("builtins."):] if k.startswith("builtins.") else k): v for k, v in counts.items()}
        answer = {"counts": counts, "objects": sum(counts.values())}
    baseline = rss_before if peak_reset else max(rss_before, hwm_before)
    if "counts" in answer:
        answer["counts"] = {k: answer["counts"].get(k, 0) for k in CENSUS_TYPES}
    print(json.dumps({"tool": tool, "question": question, "python": sys.version.split()[0],
                      "seconds": seconds, "cpu": cpu, "extra_peak_kb": max(0, hwm - baseline),
                      "peak_reset": peak_reset, "answer": answer, **extra}))


# --- the driver ------------------------------------------------------------

def run_worker(python, tool, question, records, cli):
    env = dict(os.environ)
    argv = [python, os.path.abspath(__file__), "--worker", tool, question, str(records), cli]
    load = os.getloadavg()[0]
    out = subprocess.run(argv, check=True, capture_output=True, text=True, env=env).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result["load"] = (load + os.getloadavg()[0]) / 2
    return result


def holders(types):
    """The path's last three types (the module's dict, HEAP, the target):
    each tool starts elsewhere — objgraph at the module __main__, the forward
    search at sys.modules, refscope at its nearest root (the running
    module-level frame's globals, which are that same dict)."""
    return types[-3:]


def heap_counts(records):
    """What make_heap(records) itself holds, per type: a Record, a 2-int
    list, a {"k": int} dict, four distinct ints (>= 1000) and a str each, a
    materialized __dict__ every other record, and HEAP."""
    return {"make_heap.Record": records, "list": records + 1, "dict": records + records // 2,
            "int": 4 * records, "str": records}


def check_agreement(results, records):
    paths = {r["tool"]: (holders(r["answer"]["types"]), r["answer"]["index"])
             for r in results if r["question"] == "path"}
    problems = []
    if len(set(map(repr, paths.values()))) > 1:
        problems.append("paths differ: %r" % paths)
    census = {r["tool"]: r["answer"]["counts"] for r in results if r["question"] == "census"}
    heap = heap_counts(records)
    if len({c["make_heap.Record"] for c in census.values()}) > 1:
        problems.append("Record counts differ: %r" % {t: c["make_heap.Record"] for t, c in census.items()})
    # Every tool sees the heap's own objects of every type it can see at
    # all: objgraph only GC-tracked ones (no ints, strs, atomic dicts).
    for tool, counts in census.items():
        for name in (("make_heap.Record", "list") if tool == "objgraph" else CENSUS_TYPES):
            if counts[name] < heap[name]:
                problems.append("%s saw %d %s, the heap holds %d" % (tool, counts[name], name, heap[name]))
    return paths, census, problems


def print_table(python, records, results):
    paths, census, problems = check_agreement(results, records)
    nodes = next((r["nodes"] for r in results if "nodes" in r), 0)
    print("\n### Python %s, make_heap(%d): %s objects (refscope's count)\n"
          % (results[0]["python"], records, format(nodes, ",")))
    print("| tool | question | answer in (wall) | CPU | of which snapshot + CLI (wall) | target's extra peak | load |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in results:
        split = ("%.2f + %.2f s (CLI peak %d MB)" % (r["snapshot_s"], r["cli_s"], r["cli_peak_kb"] // 1024)
                 if "snapshot_s" in r else "")
        mb = r["extra_peak_kb"] / 1024
        print("| %s | %s | %.2f s | %.2f s | %s | %.0f MB = %.0f B/object | %.1f |"
              % (r["tool"], r["question"], r["seconds"], r["cpu"], split, mb, r["extra_peak_kb"] * 1024 / max(nodes, 1),
                 r["load"]))
    print("\npaths (hops), the list index:")
    for r in results:
        if r["question"] == "path":
            types = r["answer"]["types"]
            print("  %-8s %s (%d) %s" % (r["tool"], " -> ".join(types), len(types) - 1, r["answer"]["index"]))
    heap = heap_counts(records)
    print("census (%s), the heap's own + the rest:" % ", ".join(CENSUS_TYPES))
    print("  %-8s %s" % ("heap", ", ".join(format(heap[n], ",") for n in CENSUS_TYPES)))
    for tool, counts in census.items():
        print("  %-8s %s" % (tool, ", ".join("%s (%+d)" % (format(counts[n], ","), counts[n] - heap[n])
                                              for n in CENSUS_TYPES)))
    print("agreement: %s" % ("yes" if not problems else "; ".join(problems)))
    return not problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=125_000)
    parser.add_argument("--python", action="append", help="interpreter (repeatable); default this one")
    parser.add_argument("--cli", default="build/dev/app/cli/refscope-cli")
    parser.add_argument("--tools", default="refscope,objgraph,pure")
    parser.add_argument("--questions", default="path,census")
    parser.add_argument("--worker", nargs=4, metavar=("TOOL", "QUESTION", "RECORDS", "CLI"))
    args = parser.parse_args()
    if args.worker:
        tool, question, records, cli = args.worker
        return worker(tool, question, int(records), cli)
    cli = os.path.abspath(args.cli)
    agreed = True
    for python in args.python or [sys.executable]:
        results = [run_worker(python, tool, question, args.records, cli)
                   for question in args.questions.split(",") for tool in args.tools.split(",")]
        agreed &= print_table(python, args.records, results)
    sys.exit(0 if agreed else 1)


if __name__ == "__main__":
    main()

"""Runs INSIDE the attached process (see _attach.py), in its main thread, at
a point where the interpreter runs Python code anyway (a pending call, or
sys.remote_exec on 3.14+). It imports this refscope package from the
directory the attacher gave, connects to the receiver, and writes the
outcome to a result file the attacher waits for.

The attacher prepends one line defining PARAMS (the path of a 0600 JSON file
with the package directory, address, token, label and result path) and runs
the whole with fresh globals, so nothing is left in the program's __main__.
Every exception is caught: an exception escaping a pending call would be
raised in whatever code the main thread was running.
"""


def _refscope_attach(params_path):
    import json
    import os
    import sys

    result_path = None

    def report(outcome):
        if result_path is None:
            return
        temporary = result_path + ".tmp"
        with open(temporary, "w") as out:
            json.dump(outcome, out)
        os.rename(temporary, result_path)

    try:
        with open(params_path) as params_file:
            params = json.load(params_file)
        os.unlink(params_path)  # the token does not stay on disk
        # The attacher may be cancelling at this very moment: one of us
        # creates the decision file first. If it did, nothing happens here
        # (no result either: it is not waiting for one).
        decision = os.path.join(os.path.dirname(params_path), "decision")
        try:
            fd = os.open(decision, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return
        os.close(fd)
        result_path = params["result"]
        package_dir = params["package_dir"]
        refscope = sys.modules.get("refscope")
        if refscope is None or not hasattr(refscope, "connect"):
            import importlib.util
            spec = importlib.util.spec_from_file_location(
                "refscope", os.path.join(package_dir, "__init__.py"),
                submodule_search_locations=[package_dir])
            refscope = importlib.util.module_from_spec(spec)
            sys.modules["refscope"] = refscope
            try:
                spec.loader.exec_module(refscope)
            except BaseException:
                del sys.modules["refscope"]
                raise
        status = refscope.connection_status()
        if status is not None and status["connected"]:
            if status["address"] == params["address"]:
                report({"ok": True, "already": True, "pid": os.getpid()})
                return
            refscope.disconnect()
        refscope.connect(params["address"], params["token"], label=params.get("label", ""),
                         _attached=True)
        report({"ok": True, "pid": os.getpid(),
                "python": "%d.%d.%d" % sys.version_info[:3]})
    except BaseException as error:
        try:
            report({"ok": False, "error": "%s: %s" % (type(error).__name__, error)})
        except BaseException:
            pass
    finally:
        # An attacher that stopped waiting left "abandoned": nobody will
        # read the result, so the directory is ours to remove.
        try:
            workdir = os.path.dirname(params_path)
            if os.path.exists(os.path.join(workdir, "abandoned")):
                import shutil
                shutil.rmtree(workdir, ignore_errors=True)
        except BaseException:
            pass


try:
    _refscope_attach(PARAMS)  # noqa: F821 (defined by the line the attacher prepends)
except BaseException:
    pass
finally:
    # sys.remote_exec may run this in the program's own namespace.
    globals().pop("_refscope_attach", None)
    globals().pop("PARAMS", None)

"""Scenario (d): an object held only by a local variable of a running thread.
Its root must be the thread's stack, naming the thread, function, line and
variable."""
import sys
import threading

from scenario_common import finish


class Held:
    pass


ready = threading.Event()
done = threading.Event()


def hold_it():
    held_obj = Held()
    ready.set()
    done.wait()
    return held_obj


worker = threading.Thread(target=hold_it, name="worker-1")
worker.start()
ready.wait()
try:
    finish(sys.argv[1], None, type="__main__.Held", thread="worker-1",
           function="hold_it", variable="held_obj")
finally:
    done.set()
    worker.join()

"""Writes the two snapshots tests/gui_window opens (tests/data/app-registry-1.rscope
and app-registry-2.rscope): one process, 50 logins, snapshot, 200 more
logins, snapshot. Opened together, the app compares them and the top leak
suspect is the `_sessions` dict where the growth accumulates.

Regenerate (only when the format or the probe changes; the files are checked in):

    cmake -S . -B build/dev -DREFSCOPE_BUILD_PROBE=ON -DREFSCOPE_PYTHONS=/usr/bin/python3
    cmake --build build/dev --target refscope_probe_python
    /usr/bin/python3 -S tests/gui_window/scenario/make_app_snapshots.py build/dev/python tests/data

-S keeps site-packages out, which keeps the files small (~20,000 objects).
"""
import os
import sys

sys.path.insert(0, os.path.abspath(sys.argv[1]))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import refscope  # noqa: E402
import leaky_registry  # noqa: E402

out = sys.argv[2]
for number in range(50):
    leaky_registry.login(number)
refscope.snapshot(os.path.join(out, "app-registry-1.rscope"), collect=True, label="after 50 logins")
for number in range(50, 250):
    leaky_registry.login(number)
refscope.snapshot(os.path.join(out, "app-registry-2.rscope"), collect=True, label="after 250 logins")

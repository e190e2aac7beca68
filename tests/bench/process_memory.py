"""This process's memory as the kernel counts it, for the Python benchmarks
(bench_probe.py, bench_side_by_side.py): a snapshot's extra peak is VmHWM
after it minus VmRSS before it, with the peak reset first where the kernel
allows it."""


def status_kb(field):
    """A field of /proc/self/status in KiB (VmRSS, VmHWM), 0 if absent."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def reset_peak():
    """Resets VmHWM to the current RSS (/proc/self/clear_refs, "5"); False
    where the kernel refuses it, and the peak then includes earlier work."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False

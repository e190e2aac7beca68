"""A synthetic heap for the probe benchmark.

Each of N records is a small class instance holding an int, a str, a 2-int
list and a {"k": int} dict; every other record also has its __dict__
materialized (on 3.11+ instances otherwise keep inline values with no dict).
About 8.5 objects per record: N = 100,000 gives ~0.87 M objects on top of the
interpreter's own ~20-40 k.
"""


class Record:
    def __init__(self, number, text, pair, mapping):
        self.number = number
        self.text = text
        self.pair = pair
        self.mapping = mapping


def make_heap(n):
    records = []
    for i in range(n):
        base = 1000 + i * 10  # outside the small-int cache: real objects
        record = Record(base, "record-%d" % i, [base + 1, base + 2], {"k": base + 3})
        if i % 2:
            record.__dict__  # materializes the instance dict
        records.append(record)
    return records


if __name__ == "__main__":
    import gc
    import sys
    heap = make_heap(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
    print("records:", len(heap), "tracked objects:", len(gc.get_objects()))

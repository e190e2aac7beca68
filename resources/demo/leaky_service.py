"""A small "service" with a leak that refscope's demo finds.

It handles requests and keeps every Response in a module-level cache that is
never evicted (the most common leak in long-running Python services). It also
builds and drops some reference cycles, which the collector frees: refscope
must not blame those.
"""
import sys

import response_cache  # lives next to this script


class Request:
    def __init__(self, request_id, payload):
        self.request_id = request_id
        self.payload = payload


class Node:
    """Part of a temporary cycle that gc.collect() frees."""
    def __init__(self):
        self.other = None


def handle(request):
    response = response_cache.Response(request.request_id, request.payload * 3)
    # The bug: the cache is keyed by request id and never evicted.
    response_cache.cache[f"req-{request.request_id}"] = response
    return len(response.body)


def churn_cycles(n):
    for _ in range(n):
        a, b = Node(), Node()
        a.other, b.other = b, a


def main(argv):
    count = int(argv[1]) if len(argv) > 1 else 200
    total = 0
    for i in range(count):
        total += handle(Request(i, f"payload-{i}"))
    churn_cycles(100)
    print(f"handled {count} requests, {total} bytes served; "
          f"{len(response_cache.cache)} responses still cached")


if __name__ == "__main__":
    main(sys.argv)

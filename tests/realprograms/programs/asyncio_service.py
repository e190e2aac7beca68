"""asyncio: a service handling bursts of a few thousand concurrent requests
as tasks, with queues, locks and timeouts. The planted leaks, one per run:
- done_callback: each session registers its close() as a done-callback on
  the service's shutdown future, which never completes, so every Session
  stays reachable from the future's callback list (a C-level list inside
  _asyncio.Future);
- idle_timer: each session schedules its close() an hour later with
  loop.call_later, so every Session stays in a TimerHandle in the loop's
  _scheduled heap."""
import asyncio
import functools

from real_common import Run

LEAKS = {"done_callback": {"type": "__main__.Session", "holder": "shutdown"},
         "idle_timer": {"type": "__main__.Session", "holder": "_scheduled"}}
run = Run(LEAKS)
counter = [0]


class Session:
    def __init__(self, number):
        self.number = number
        self.buffer = bytearray(64)
        self.closed = False

    def close(self, _future=None):
        self.closed = True


class Service:
    def __init__(self, loop):
        self.shutdown = loop.create_future()
        self.lock = asyncio.Lock()
        self.queue = asyncio.Queue()
        self.handled = 0

    async def handle(self, number):
        session = Session(number)
        if run.leak == "done_callback":
            self.shutdown.add_done_callback(functools.partial(session.close))
        elif run.leak == "idle_timer":
            asyncio.get_running_loop().call_later(3600, session.close)
        async with self.lock:
            self.handled += 1
        await self.queue.put(number)
        await asyncio.sleep(0)
        return await asyncio.wait_for(self.queue.get(), timeout=5)


async def burst(service):
    tasks = [asyncio.ensure_future(service.handle(counter[0] + i)) for i in range(700)]
    counter[0] += len(tasks)
    await asyncio.gather(*tasks)


async def main():
    service = Service(asyncio.get_running_loop())
    await burst(service)
    await burst(service)
    run.snapshot()
    for _ in range(2):
        for _ in range(3):
            await burst(service)
        run.snapshot()


asyncio.run(main())
run.finish()

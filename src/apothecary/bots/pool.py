"""Bots thinking away from the caller, so a server or a UI stays responsive.

Search is CPU-bound Python, so a thread would still hold the interpreter
lock; :class:`ThinkingPool` runs ``bot.step(state)`` in worker processes
instead. The bot comes back with the action (its random generators, and
those of the bots it plays out with), so a bot that thinks in the pool makes
the same choices, move after move, as it would in-process.

Three promises make the pool safe to share between strangers (issue 28):

- **Every call has a wall-clock limit that stops it.** A worker still
  thinking when its call's ``seconds`` are up is ended (``terminate``) and a
  fresh one takes its place; the call's future fails with
  :class:`ThinkingTooLong`. Nothing a bot or a hint does can hold a worker
  longer than that.
- **Calls are served fairly between owners.** Each call names an owner (a
  room, a seat's hints, an analysis). A free worker takes the oldest call of
  the owner served least recently (:class:`FairQueue`), so an owner with many
  calls queued delays another owner's call by at most the calls already
  running, not by its whole queue.
- **Each worker ends when the process that made the pool ends**, however it
  ends (:func:`apothecary.lifeline.die_with_parent`): a server killed with
  ``kill -9`` leaves no worker behind.
"""

from __future__ import annotations

import collections
import concurrent.futures
import itertools
import multiprocessing
import multiprocessing.connection
import os
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from apothecary.core.bot import Bot
from apothecary.core.errors import ApothecaryError
from apothecary.core.game import Action, State
from apothecary.lifeline import die_with_parent


class ThinkingTooLong(ApothecaryError):
    """A call in the pool ran past its wall-clock limit, and its worker was ended."""

    code = "thinking_too_long"
    status = 503


class WorkerDied(ApothecaryError):
    """A worker ended (killed, out of memory) while it ran a call."""

    code = "worker_died"
    status = 503


def _think(bot: Bot, state: State) -> tuple[Action, Bot]:
    action = bot.step(state)
    return action, bot


@dataclass
class _Call:
    function: Callable[..., Any]
    args: tuple[Any, ...]
    owner: Hashable
    seconds: float | None
    future: concurrent.futures.Future[Any] = field(default_factory=concurrent.futures.Future)


class FairQueue:
    """Calls waiting for a worker, taken round-robin between their owners.

    :meth:`take` gives the oldest call of the owner whose last call was taken
    longest ago (an owner never served comes first, in order of arrival). One
    owner's long queue therefore waits behind every other owner's next call.
    """

    def __init__(self) -> None:
        self._waiting: dict[Hashable, collections.deque[_Call]] = {}
        self._served: dict[Hashable, int] = {}
        self._turn = itertools.count()
        self._ready = threading.Condition()
        self.closed = False

    def put(self, call: _Call) -> None:
        """Queue ``call`` behind its owner's earlier ones."""
        with self._ready:
            self._waiting.setdefault(call.owner, collections.deque()).append(call)
            self._ready.notify()

    def pop(self) -> _Call | None:
        """The next call by the rule above, or None if none waits (never blocks)."""
        with self._ready:
            if not self._waiting:
                return None
            # Dicts keep arrival order, and min keeps the first of equals.
            owner = min(self._waiting, key=lambda o: self._served.get(o, -1))
            calls = self._waiting[owner]
            call = calls.popleft()
            if not calls:
                del self._waiting[owner]
            self._served[owner] = next(self._turn)
            if len(self._served) > 4 * len(self._waiting) + 1024:  # forget owners long gone
                self._served = {o: self._served[o] for o in self._waiting if o in self._served}
            return call

    def take(self) -> _Call | None:
        """The next call, waiting for one; None once the queue is closed."""
        with self._ready:
            while not self.closed:
                call = self.pop()
                if call is not None:
                    return call
                self._ready.wait()
            return None

    def close(self) -> list[_Call]:
        """Wake every taker with None; the calls still waiting are handed back."""
        with self._ready:
            self.closed = True
            left = [call for calls in self._waiting.values() for call in calls]
            self._waiting.clear()
            self._ready.notify_all()
            return left

    def __len__(self) -> int:
        with self._ready:
            return sum(len(calls) for calls in self._waiting.values())


STARTUP_SECONDS = 120.0
"""How long a new worker may take to start (spawn a Python, import apothecary)
before it is counted as dead. Starting is not part of any call's limit: a call's
``seconds`` count from when a worker that is ready takes it."""


def _serve(connection: multiprocessing.connection.Connection, parent: int) -> None:
    """A worker: say it is ready, then run each call sent, send back (True,
    result) or (False, error)."""
    die_with_parent(parent)
    connection.send(None)  # ready: its interpreter and apothecary are loaded
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:
            return
        function, args = message
        try:
            answer: tuple[bool, Any] = (True, function(*args))
        except BaseException as error:  # handed to the caller
            answer = (False, error)
        try:
            connection.send(answer)
        except Exception as error:  # an answer that does not pickle
            connection.send((False, RuntimeError(f"the answer could not be sent back: {error}")))


class _Worker:
    """One worker process and the thread in this process that feeds it."""

    def __init__(self, pool: ThinkingPool) -> None:
        self.pool = pool
        self.process: multiprocessing.process.BaseProcess | None = None
        self.connection: multiprocessing.connection.Connection | None = None
        self.thread = threading.Thread(target=self.run, name="apothecary-thinker", daemon=True)

    def start_process(self) -> multiprocessing.connection.Connection:
        mine, theirs = self.pool.context.Pipe()
        process = self.pool.context.Process(
            target=_serve, args=(theirs, os.getpid()), name="apothecary-thinker", daemon=True
        )
        process.start()
        theirs.close()
        self.process, self.connection = process, mine
        # A loaded machine can take seconds to start a Python: that is not the
        # call's time, so its clock starts once the worker says it is ready.
        try:
            started = mine.poll(STARTUP_SECONDS) and mine.recv() is None
        except (EOFError, OSError):  # it ended while starting
            started = False
        if not started:
            self.end_process()
            if self.pool.closing:  # close() ended it while it started
                raise WorkerDied("the pool closed while its worker was starting")
            raise WorkerDied(f"a new worker did not start within {STARTUP_SECONDS:g} s")
        return mine

    def end_process(self) -> None:
        process, connection = self.process, self.connection
        self.process = self.connection = None
        if connection is not None:
            connection.close()
        if process is not None:
            if process.is_alive():
                process.terminate()
            process.join(timeout=5)
            if process.is_alive():  # terminate ignored: end it outright
                process.kill()
                process.join(timeout=5)

    def run(self) -> None:
        while (call := self.pool.queue.take()) is not None:
            if call.future.set_running_or_notify_cancel():
                self.pool.calls_started += 1
                self.serve(call)
        self.end_process()

    def serve(self, call: _Call) -> None:
        try:
            connection = self.connection or self.start_process()
            connection.send((call.function, call.args))
            ready = connection.poll(call.seconds)
        except Exception as error:  # a call that does not pickle, a pipe that broke
            self.end_process()
            call.future.set_exception(error)
            return
        if not ready:
            # Past its limit: the only way to stop a running Python call is
            # to end its process. The next call starts a fresh one.
            self.end_process()
            call.future.set_exception(
                ThinkingTooLong(f"stopped after its limit of {call.seconds:g} s")
            )
            return
        try:
            ok, value = connection.recv()
        except (EOFError, OSError):
            self.end_process()
            why = "the pool closed" if self.pool.closing else "the worker ended"
            call.future.set_exception(WorkerDied(f"{why} while it was thinking"))
            return
        if ok:
            call.future.set_result(value)
        else:
            call.future.set_exception(value)


class ThinkingPool:
    """A pool of worker processes that run bots' ``step`` (and other calls),
    each with a wall-clock limit, taken fairly between their owners.

    ``pool.step(bot, state, owner=room, seconds=10)`` returns a
    :class:`concurrent.futures.Future` of the action; use
    ``asyncio.wrap_future`` to await it. ``seconds`` (default: the pool's
    ``seconds``; None: no limit) is counted from when a worker starts the call.
    """

    def __init__(self, workers: int = 1, seconds: float | None = None) -> None:
        if workers < 1:
            raise ApothecaryError("a thinking pool has 1 worker or more")
        # "spawn" works the same on every platform and does not copy a
        # server's threads and sockets into the workers as "fork" would.
        self.context = multiprocessing.get_context("spawn")
        self.seconds = seconds
        self.queue = FairQueue()
        self.closing = False
        self.calls_started = 0
        """Calls a worker has started (for tests and /health-style reports)."""
        self._workers = [_Worker(self) for _ in range(workers)]
        for worker in self._workers:
            worker.thread.start()

    def call(
        self,
        function: Callable[..., Any],
        *args: Any,
        owner: Hashable = None,
        seconds: float | None = None,
    ) -> concurrent.futures.Future[Any]:
        """Run ``function(*args)`` in a worker (both must pickle): a future of its result."""
        if self.closing:
            raise RuntimeError("the thinking pool is closed")
        limit = self.seconds if seconds is None else seconds
        queued = _Call(function, args, owner, limit)
        self.queue.put(queued)
        return queued.future

    def step(
        self, bot: Bot, state: State, *, owner: Hashable = None, seconds: float | None = None
    ) -> concurrent.futures.Future[Action]:
        """Start ``bot`` thinking about a copy of ``state``."""
        inner = self.call(_think, bot, state, owner=owner, seconds=seconds)
        outer: concurrent.futures.Future[Action] = concurrent.futures.Future()

        def done(future: concurrent.futures.Future[tuple[Action, Bot]]) -> None:
            if future.cancelled():
                outer.cancel()
                return
            error = future.exception()
            if error is not None:
                outer.set_exception(error)
                return
            action, thought = future.result()
            # Whatever the bot changed while thinking, it changed in the worker's copy.
            bot.__dict__.update(thought.__dict__)
            outer.set_result(action)

        def cancel(future: concurrent.futures.Future[Action]) -> None:
            if future.cancelled():
                inner.cancel()  # still queued: it never runs (running: it ends by its limit)

        inner.add_done_callback(done)
        outer.add_done_callback(cancel)
        return outer

    def close(self) -> None:
        """Stop the workers now: queued calls are cancelled, and a call still
        running is not waited for (its worker is ended).

        A stopping server must not wait on a search: an LDoP hint or a named
        search bot can think for minutes.
        """
        self.closing = True
        for call in self.queue.close():
            call.future.cancel()
        for worker in self._workers:
            process = worker.process
            if process is not None and process.is_alive():
                process.terminate()  # its feeding thread then sees the pipe end
        for worker in self._workers:
            worker.thread.join(timeout=5)

    def __enter__(self) -> ThinkingPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

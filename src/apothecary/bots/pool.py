"""Bots thinking away from the caller, so a server or a UI stays responsive.

Search is CPU-bound Python, so a thread would still hold the interpreter
lock; :class:`ThinkingPool` runs ``bot.step(state)`` in worker processes
instead. The bot comes back with the action (its random generators, and
those of the bots it plays out with), so a bot that thinks in the pool makes
the same choices, move after move, as it would in-process.

Each worker ends when the process that made the pool ends, however it ends
(:func:`apothecary.lifeline.die_with_parent`): a server killed with
``kill -9`` leaves no worker behind, nor the multiprocessing resource
tracker, which the workers' inherited pipe would otherwise keep alive.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os

from apothecary.core.bot import Bot
from apothecary.core.game import Action, State
from apothecary.lifeline import die_with_parent


def _think(bot: Bot, state: State) -> tuple[Action, Bot]:
    action = bot.step(state)
    return action, bot


class ThinkingPool:
    """A pool of worker processes that run bots' ``step``.

    ``pool.step(bot, state)`` returns a :class:`concurrent.futures.Future`
    of the action; use ``asyncio.wrap_future`` to await it.
    """

    def __init__(self, workers: int = 1) -> None:
        # "spawn" works the same on every platform and does not copy a
        # server's threads and sockets into the workers as "fork" would.
        context = multiprocessing.get_context("spawn")
        # A worker holds its own task queue's writing end, so it never sees the
        # queue close when its parent dies: it watches the parent instead.
        self._executor = concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=context, initializer=die_with_parent, initargs=(os.getpid(),)
        )

    def step(self, bot: Bot, state: State) -> concurrent.futures.Future[Action]:
        """Start ``bot`` thinking about a copy of ``state``."""
        inner = self._executor.submit(_think, bot, state)
        outer: concurrent.futures.Future[Action] = concurrent.futures.Future()

        def done(future: concurrent.futures.Future[tuple[Action, Bot]]) -> None:
            try:
                action, thought = future.result()
            except BaseException as error:  # handed to the caller
                outer.set_exception(error)
                return
            # Whatever the bot changed while thinking, it changed in the worker's copy.
            bot.__dict__.update(thought.__dict__)
            outer.set_result(action)

        inner.add_done_callback(done)
        return outer

    def close(self) -> None:
        """Stop the workers now: queued steps are cancelled, and a step still
        running is not waited for (its worker is ended).

        A stopping server must not wait on a search: an LDoP hint or a named
        search bot can think for minutes, and ``shutdown(wait=True)`` (or the
        interpreter's exit, which joins the pool's manager thread) would wait
        for it.
        """
        # The executor keeps its workers in a private mapping; ending them is
        # the only way to stop a running call before Python 3.14's
        # terminate_workers(). Without it the pool still stops, only later.
        workers = list((getattr(self._executor, "_processes", None) or {}).values())
        self._executor.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
        for worker in workers:
            worker.join(timeout=5)

    def __enter__(self) -> ThinkingPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""The thinking pool's promises (issue 28): every call is stopped at its
wall-clock limit (its worker ended and replaced), and calls are taken in
turn between their owners, so one owner's queue cannot hold up another's."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

import planted_thinking as planted
import pytest

import apothecary
from apothecary import bots
from apothecary.bots.pool import FairQueue, ThinkingPool, ThinkingTooLong, _Call

WAIT = 120.0
"""Seconds a test waits for an answer it expects (a spawned worker starts slowly
on a loaded machine); nothing is asserted about how long anything took."""


def _call(owner: str, label: str) -> _Call:
    return _Call(str, (label,), owner, None)


def test_the_queue_takes_calls_in_turn_between_owners() -> None:
    queue = FairQueue()
    for label in ("a1", "a2", "a3"):
        queue.put(_call("a", label))
    queue.put(_call("b", "b1"))
    queue.put(_call("c", "c1"))
    queue.put(_call("b", "b2"))
    order = []
    while (call := queue.pop()) is not None:
        order.append(call.args[0])
    assert order == ["a1", "b1", "c1", "a2", "b2", "a3"]


def test_an_owner_arriving_late_goes_before_the_busy_owners_next_call() -> None:
    queue = FairQueue()
    queue.put(_call("busy", "x1"))
    assert queue.pop() is not None  # x1 is running
    queue.put(_call("busy", "x2"))
    queue.put(_call("busy", "x3"))
    queue.put(_call("late", "y1"))
    assert [queue.pop().args[0] for _ in range(3)] == ["y1", "x2", "x3"]  # type: ignore[union-attr]


def test_one_rooms_queue_delays_another_room_by_one_think_at_most(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    finished: list[str] = []
    with ThinkingPool(1) as pool:
        futures = [pool.call(planted.wait_for, str(gate), "slow-1", owner="slow")]
        futures += [
            pool.call(planted.wait_for, str(gate), f"slow-{n}", owner="slow") for n in (2, 3)
        ]
        futures.append(pool.call(planted.wait_for, str(gate), "easy", owner="easy"))
        for future in futures:
            future.add_done_callback(lambda f: finished.append(f.result()))
        gate.touch()
        concurrent.futures.wait(futures, timeout=WAIT)
    assert finished == ["slow-1", "easy", "slow-2", "slow-3"]


def test_a_call_past_its_limit_is_stopped_and_the_pool_goes_on() -> None:
    with ThinkingPool(1) as pool:
        first = pool.call(planted.worker_pid).result(timeout=WAIT)
        endless = pool.call(planted.endless, seconds=0.5)
        with pytest.raises(ThinkingTooLong, match=r"limit of 0\.5 s"):
            endless.result(timeout=WAIT)
        after = pool.call(planted.worker_pid).result(timeout=WAIT)
    assert after != first, "the endless call's worker was not replaced"


def test_a_bot_past_the_pools_limit_is_stopped() -> None:
    game = apothecary.load("tea-scones-arsenic", players=2)
    state = game.new_initial_state()
    bot = planted.EndlessBot(game, state.current_player(), seed=1)
    with ThinkingPool(1, seconds=0.5) as pool:
        with pytest.raises(ThinkingTooLong):
            pool.step(bot, state).result(timeout=WAIT)
        quick = bots.load("random", game, state.current_player(), seed=1)
        assert pool.step(quick, state).result(timeout=WAIT) in state.legal_actions()


def test_close_cancels_queued_calls_and_ends_a_running_one(tmp_path: Path) -> None:
    pool = ThinkingPool(1)
    running = pool.call(planted.endless)
    queued = pool.call(planted.worker_pid)
    while pool.calls_started < 1:  # the endless call is in its worker
        concurrent.futures.wait([running], timeout=0.05)
    pool.close()
    assert queued.cancelled()
    with pytest.raises(Exception, match="pool closed"):
        running.result(timeout=WAIT)

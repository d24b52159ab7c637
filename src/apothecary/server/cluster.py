"""Several server processes sharing rooms: the Redis side.

A room is held by exactly one process at a time, by a lease in the shared
database (:meth:`Store.acquire <apothecary.server.store.Store.acquire>`); that
process alone applies its changes, runs its bots and timers, and makes every
viewer's message with the room's one view function. A process that holds a
socket of a room held elsewhere *relays* it: it forwards the socket's
commands to the holder as requests, and the holder sends that socket's
messages, already made for its viewer, back over Redis for the relay to
write out unchanged. So what a socket receives does not depend on which
process it reached, and no process ever sends out a message it made from
another viewer's view.

Each process listens on one Redis pub/sub channel of its own,
``<prefix>:p:<id>`` (the prefix is ``apothecary`` unless configured); a
message there is a JSON list of items, in order, each an object of named
fields whose ``kind`` says what it is:

``{"kind": "req", "id", "sender", "op", "args"}``
    a request (``id`` None: no answer wanted). ``op`` is ``connect`` or
    ``disconnect`` (a relayed socket joins or leaves), ``socket`` (a relayed
    socket's command) or ``room`` (a command about a room); the last two carry
    ``args["command"]``, the typed command of :mod:`.commands` as its JSON;
``{"kind": "rep", "id", "ok", "result"}``
    the answer to a request: a result, or a refusal to raise again;
``{"kind": "out", "conn", "text", "n"}``
    the n-th message for one relayed socket (a gap: one was lost, and the
    relay closes the socket, whose client reconnects and is sent it all);
``{"kind": "close", "conn", "code", "reason"}``
    close a relayed socket (the room moved, or the server is going).

One writer task publishes everything a process sends, in the order it was
queued, so a socket's messages and the answer to its request arrive in the
order the holder made them (pub/sub keeps each publisher's order). Redis
keeps nothing of a room: a process that dies loses only messages in
flight, never a committed change, and its rooms are taken over from the
database when their leases run out.

Open rooms are listed in one Redis hash (``<prefix>:listed``) that the
holders keep up to date, so any process can answer the lobby's list.

This module is the Redis side only: what a process does with the requests
and items it gets (leases, relays, heartbeat, takeover) is
:class:`~apothecary.server.placement.cluster.ClusterPlacement`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from apothecary.core.errors import ApothecaryError
from apothecary.server.placement import NotHere, Unavailable
from apothecary.server.room import RoomError

log = logging.getLogger("apothecary.server.cluster")

__all__ = ["REDIS_ENV", "Bus", "ClusterConfig", "ClusterError", "NotHere", "Unavailable"]

REDIS_ENV = "APOTHECARY_REDIS"
"""The environment variable that names the Redis server when ``--redis`` does not."""


@dataclass(frozen=True)
class ClusterConfig:
    """How a process shares rooms with others."""

    redis_url: str
    lease_seconds: float = 5.0
    """How long a room stays held after its holder's last renewal: a dead
    process's rooms are taken over this long after it stopped renewing."""
    heartbeat_seconds: float = 1.0
    """How often a process renews its leases, takes over rooms nobody holds,
    and checks that the processes it relays to are alive."""
    prefix: str = "apothecary"
    """The start of every Redis key and channel, so that several deployments
    (or test runs) can share one Redis server."""


class ClusterError(ApothecaryError):
    """Redis cannot be reached, or the command line asks for a cluster without
    what a cluster needs."""


def _refusal_classes() -> dict[str, type[RoomError]]:
    found: dict[str, type[RoomError]] = {"RoomError": RoomError}
    todo: list[type[RoomError]] = [RoomError]
    while todo:
        for sub in todo.pop().__subclasses__():
            found[sub.__name__] = sub
            todo.append(sub)
    return found


def _refusal(data: Any) -> RoomError:
    """A refusal sent over Redis, raised again as the class it was."""
    if not isinstance(data, dict):
        return Unavailable("the room's server gave an answer it should not")
    cls = _refusal_classes().get(str(data.get("cls")), RoomError)
    return cls(str(data.get("message", "")))


def new_process_id() -> str:
    """A process's id in the cluster: unique, and readable in logs."""
    return f"{os.uname().nodename[:24]}-{os.getpid()}-{secrets.token_hex(4)}"


Item = dict[str, Any]
"""One item of a channel's message: named fields, ``kind`` first."""

Handler = Callable[[str, dict[str, Any], str], Awaitable[Any]]
"""Answers a request: (op, args, sender) to a JSON-ready result, or a RoomError."""


class Bus:
    """This process's end of the Redis pub/sub traffic between processes."""

    def __init__(self, config: ClusterConfig) -> None:
        import redis.asyncio as aioredis

        self.config = config
        self.id = new_process_id()
        self._listed_key = f"{config.prefix}:listed"
        self.redis: Any = aioredis.Redis.from_url(config.redis_url)
        self._pending: dict[str, asyncio.Future[Item]] = {}
        self._queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._answering: set[asyncio.Task[None]] = set()
        self._pubsub: Any = None
        self._on_request: Handler | None = None
        self._on_item: Callable[[Item], None] | None = None
        self._on_gone: Callable[[str], None] | None = None

    def channel(self, process: str) -> str:
        """The channel ``process`` listens on."""
        return f"{self.config.prefix}:p:{process}"

    def describe(self) -> str:
        """The Redis URL with any password hidden, for logs."""
        pool = self.redis.connection_pool.connection_kwargs
        return f"redis://{pool.get('host', '?')}:{pool.get('port', '?')}/{pool.get('db', 0)}"

    # -- life -------------------------------------------------------------------------

    async def start(
        self,
        on_request: Handler,
        on_item: Callable[[Item], None],
        on_gone: Callable[[str], None],
    ) -> None:
        """Connect, listen on this process's channel, start the writer.
        ``on_item`` gets ``out`` and ``close`` items; ``on_gone`` a process
        whose channel nobody listens on any more (it died)."""
        import redis.exceptions

        self._on_request, self._on_item, self._on_gone = on_request, on_item, on_gone
        try:
            await self.redis.ping()
            self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            await self._pubsub.subscribe(self.channel(self.id))
        except (redis.exceptions.RedisError, OSError) as error:
            detail = " ".join(str(error).split())
            raise ClusterError(f"cannot reach Redis at {self.describe()}: {detail}") from None
        self._tasks = [
            asyncio.create_task(self._read_forever()),
            asyncio.create_task(self._write_forever()),
        ]

    async def close(self) -> None:
        """Send what is queued, then stop listening and disconnect."""
        if self._tasks:
            self._queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._tasks[1], 5)
            self._tasks[0].cancel()
            with contextlib.suppress(BaseException):
                await self._tasks[0]
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    # -- sending ----------------------------------------------------------------------

    def send(self, process: str, item: Item) -> None:
        """Queue ``item`` for ``process`` (sent in order, by the writer task)."""
        self._queue.put_nowait((self.channel(process), item))

    def list_room(self, code: str, info: dict[str, Any] | None) -> None:
        """Show a room in the shared list of open rooms (None: take it off)."""
        self._queue.put_nowait(("", {"code": code, "info": info}))

    async def request(
        self, process: str, op: str, args: dict[str, Any], timeout: float | None = None
    ) -> Any:
        """Ask ``process`` to do ``op``; its result, or its refusal raised here.
        Unavailable when it does not answer within ``timeout`` (a lease's length)."""
        rid = secrets.token_hex(8)
        future: asyncio.Future[Item] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        self.send(process, {"kind": "req", "id": rid, "sender": self.id, "op": op, "args": args})
        try:
            reply = await asyncio.wait_for(future, timeout or self.config.lease_seconds)
        except TimeoutError:
            raise Unavailable("the room's server did not answer; try again") from None
        finally:
            self._pending.pop(rid, None)
        if reply["ok"]:
            return reply["result"]
        raise _refusal(reply["result"])

    def tell(self, process: str, op: str, args: dict[str, Any]) -> None:
        """A request that wants no answer."""
        self.send(process, {"kind": "req", "id": None, "sender": self.id, "op": op, "args": args})

    async def alive(self, processes: set[str]) -> set[str]:
        """Which of ``processes`` still listen on their channels (a process that
        died lost its Redis connection, and with it its subscription)."""
        if not processes:
            return set()
        ordered = sorted(processes)
        counts = await self.redis.pubsub_numsub(*(self.channel(p) for p in ordered))
        return {p for p, (_channel, count) in zip(ordered, counts, strict=True) if count > 0}

    async def listed(self) -> list[dict[str, Any]]:
        """Every room in the shared list."""
        found = await self.redis.hgetall(self._listed_key)
        return [json.loads(value) for value in found.values()]

    async def _write_forever(self) -> None:
        while True:
            first = await self._queue.get()
            batch = [first]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            stop = None in batch
            try:
                await self._flush([entry for entry in batch if entry is not None])
            except Exception:
                log.exception("could not send %d messages through Redis", len(batch))
            if stop:
                return

    async def _flush(self, batch: list[tuple[str, Item]]) -> None:
        # One PUBLISH per channel (its items in their order), one pipeline for all.
        channels: dict[str, list[Item]] = {}
        listing: dict[str, Any] = {}
        for channel, item in batch:
            if channel:
                channels.setdefault(channel, []).append(item)
            else:
                listing[item["code"]] = item["info"]
        if not channels and not listing:
            return
        pipe = self.redis.pipeline(transaction=False)
        for channel, items in channels.items():
            pipe.publish(channel, json.dumps(items, separators=(",", ":")))
        for code, info in listing.items():
            if info is None:
                pipe.hdel(self._listed_key, code)
            else:
                pipe.hset(self._listed_key, code, json.dumps(info, separators=(",", ":")))
        heard = await pipe.execute()
        for (channel, items), count in zip(channels.items(), heard, strict=False):
            if count == 0:
                self._nobody_heard(channel, items)

    def _nobody_heard(self, channel: str, items: list[Item]) -> None:
        """Nobody listens on ``channel``: its process is gone. Its requests fail
        at once (the sender asks the database again), and the hub forgets it."""
        for item in items:
            if item["kind"] == "req" and item["id"] is not None:
                gone = NotHere("nobody heard the request: its process is gone")
                self._answered(_reply(item["id"], False, _as_data(gone)))
        if self._on_gone is not None:
            self._on_gone(channel.rsplit(":", 1)[-1])

    # -- receiving --------------------------------------------------------------------

    async def _read_forever(self) -> None:
        while True:
            try:
                # Blocking, with no timeout of its own: a read cut short by a
                # timeout could cost the subscription, and with it messages.
                message = await self._pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("lost Redis; listening again in a second")
                await asyncio.sleep(1.0)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                items = json.loads(message["data"])
            except ValueError:
                log.warning("a message on this process's channel is not JSON; ignored")
                continue
            for item in items:
                self._received(item)

    def _received(self, item: Item) -> None:
        kind = item.get("kind")
        if kind == "rep":
            self._answered(item)
        elif kind == "req":
            task = asyncio.create_task(self._answer(item))
            self._answering.add(task)  # kept until done: the loop holds tasks weakly
            task.add_done_callback(self._answering.discard)
        elif self._on_item is not None:
            self._on_item(item)

    def _answered(self, reply: Item) -> None:
        future = self._pending.pop(reply["id"], None)
        if future is not None and not future.done():
            future.set_result(reply)

    async def _answer(self, item: Item) -> None:
        rid, op = item["id"], item["op"]
        assert self._on_request is not None
        try:
            result = await self._on_request(op, item["args"], item["sender"])
            reply = _reply(rid, True, result)
        except RoomError as error:
            reply = _reply(rid, False, _as_data(error))
        except Exception:
            log.exception("request %s failed", op)
            reply = _reply(rid, False, _as_data(Unavailable("the room's server failed")))
        if rid is not None:
            self.send(item["sender"], reply)


def _reply(rid: str, ok: bool, result: Any) -> Item:
    return {"kind": "rep", "id": rid, "ok": ok, "result": result}


def _as_data(error: RoomError) -> dict[str, str]:
    return {"cls": type(error).__name__, "message": str(error)}

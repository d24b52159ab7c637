"""Playing a room's game to its end over its sockets, one thread a seat, each
sending its first legal action on its turn: the rated-game tests' players."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from typing import Any

from websockets.sync.client import connect

PACE = 0.15
"""Seconds a seat waits before each action."""


def _play_seat(url: str, token: str, outcomes: list[Any], errors: list[BaseException]) -> None:
    try:
        with connect(url, open_timeout=30) as socket:
            socket.send(json.dumps({"type": "hello", "token": token}))
            acted: set[str] = set()
            while True:
                message = json.loads(socket.recv(timeout=60))
                if message.get("type") == "error":
                    raise AssertionError(f"the server refused an action: {message}")
                if message.get("type") != "update":
                    continue
                if message["outcome"] is not None:
                    outcomes.append(message["outcome"])
                    return
                state_id = message["state_id"]
                if message["legal"] and state_id not in acted:
                    acted.add(state_id)
                    # Paced under the server's message limit per address (10 a second,
                    # docs/protocol.md): every test socket comes from 127.0.0.1.
                    time.sleep(PACE)
                    action = message["legal"][0]["id"]
                    socket.send(json.dumps({"type": "act", "action": action, "state_id": state_id}))
    except BaseException as error:  # handed to the test's thread
        errors.append(error)


def play_to_the_end(base: str, code: str, tokens: Sequence[str]) -> dict[str, Any]:
    """Play room ``code`` on the server at ``base`` (http://...) with these seat
    tokens until its game ends; the outcome."""
    url = base.replace("http://", "ws://", 1) + f"/ws/rooms/{code}"
    outcomes: list[Any] = []
    errors: list[BaseException] = []
    threads = [
        threading.Thread(target=_play_seat, args=(url, token, outcomes, errors), daemon=True)
        for token in tokens
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    if errors:
        raise errors[0]
    assert len(outcomes) == len(tokens), "the game did not end within two minutes"
    outcome: dict[str, Any] = outcomes[0]
    return outcome

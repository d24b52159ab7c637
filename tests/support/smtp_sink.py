"""A local SMTP sink for tests: aiosmtpd's server on a loopback port, in a thread of
the test process, keeping every message it is sent. Never a real mail server."""

from __future__ import annotations

import email
import email.policy
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from serving import free_port


class SmtpSink:
    """The messages caught, in the order they came."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.port = 0
        self._arrived = threading.Condition()

    @property
    def url(self) -> str:
        """What ``apothecary serve --smtp`` is given."""
        return f"smtp://127.0.0.1:{self.port}?from=turns@apothecary.test"

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        """aiosmtpd's hook: one message, kept."""
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        with self._arrived:
            self.messages.append(message)
            self._arrived.notify_all()
        return "250 OK"

    def wait_for(self, count: int, timeout: float = 60.0) -> list[EmailMessage]:
        """The first ``count`` messages, once that many came (AssertionError after
        ``timeout`` seconds with fewer)."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while len(self.messages) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.messages)} mails came, not {count}"
                self._arrived.wait(left)
            return list(self.messages[:count])


@contextmanager
def smtp_sink() -> Iterator[SmtpSink]:
    """A running sink (stopped at the end)."""
    sink = SmtpSink()
    sink.port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=sink.port)
    controller.start()
    try:
        yield sink
    finally:
        controller.stop()

"""A program run in a pseudo-terminal, as a person's terminal runs it: what it
drew so far (escape codes taken out), keys typed into it, and waits for text.

One harness for every test that drives the terminal app for real (the docs'
commands, the terminal tutorial, the app in another language)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b.")
"""CSI sequences, charset selections and two-byte escapes: what Textual writes
besides text."""


class Terminal:
    """``command`` running in a pseudo-terminal of ``size`` (rows, columns)."""

    def __init__(
        self,
        command: list[str],
        size: tuple[int, int] = (40, 110),
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", *size, 0, 0))
        environment = {**(os.environ if env is None else env)}
        environment.update(TERM="xterm-256color", COLUMNS=str(size[1]))
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=environment,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = b""

    def text(self) -> str:
        """Everything drawn so far, without escape codes."""
        return ESCAPES.sub(b"", self.seen).decode(errors="replace")

    def read(self, seconds: float) -> None:
        """Take in what the program draws for ``seconds``."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                with contextlib.suppress(OSError):  # the other end closed: it ended
                    self.seen += os.read(self.master, 65536)

    def until(self, needle: str, seconds: float) -> None:
        """Read until ``needle`` is drawn; fail with the screen's tail if the
        program ends first or ``seconds`` pass."""
        end = time.monotonic() + seconds
        while needle not in self.text():
            assert self.process.poll() is None, f"the app ended: {self.text()[-600:]}"
            assert time.monotonic() < end, f"never drew {needle!r}: {self.text()[-600:]}"
            self.read(0.2)

    def type(self, keys: str) -> None:
        """Type ``keys`` (``"\\r"`` is Enter, ``"\\x11"`` ctrl+q)."""
        os.write(self.master, keys.encode())

    def close(self) -> None:
        """End the program's whole session if it still runs, and the terminal."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        os.close(self.master)

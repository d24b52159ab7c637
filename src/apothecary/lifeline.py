"""Child processes that end with the process that started them.

A process killed outright (``kill -9``, the out-of-memory killer) runs no
clean-up, so its children are not told to stop: a bot-pool worker would wait
on its task queue for ever, and a ``serve --workers`` process would go on
serving on the port. :func:`die_with_parent` starts a thread in the child
that waits for the parent to be gone, whatever killed it, and then stops the
child.

On Linux the thread waits on a pidfd of the parent (no polling); elsewhere,
or where pidfds are refused, it checks every :data:`POLL_SECONDS` whether
the child has been handed to another parent. A parent-death signal
(``PR_SET_PDEATHSIG``) is not used: Linux sends it when the *thread* that
started the child ends, and a pool's worker may be started from a thread
that ends long before the process does.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable

POLL_SECONDS = 0.5
"""How often a child checks its parent where it cannot wait on a pidfd."""


def exit_now() -> None:
    """End this process at once, running no clean-up (its parent is gone,
    and nobody is left to hand a result to)."""
    os._exit(1)


def die_with_parent(parent: int, stop: Callable[[], None] = exit_now) -> None:
    """Call ``stop`` (in a daemon thread) once process ``parent`` has gone.

    ``parent`` is the pid the parent gave the child (its ``os.getpid()``),
    not the child's ``os.getppid()`` read later, which is already another
    process if the parent died while the child was starting: then ``stop``
    is called at once.
    """
    if os.getppid() != parent:
        stop()
        return

    def watch() -> None:
        wait_for_parent(parent)
        stop()

    threading.Thread(target=watch, name="apothecary-lifeline", daemon=True).start()


def wait_for_parent(parent: int) -> None:
    """Return once this process's parent ``parent`` has gone."""
    pidfd_open: Callable[[int], int] | None = getattr(os, "pidfd_open", None)
    if pidfd_open is not None:
        try:
            fd = pidfd_open(parent)
        except OSError:  # gone already, or pidfds refused (an old kernel, a sandbox)
            pass
        else:
            try:
                # Still our parent once opened, so the pidfd is of that process,
                # not of another that was given its pid after it died.
                if os.getppid() == parent:
                    select.select([fd], [], [])  # readable once the process has ended
            finally:
                os.close(fd)
            return
    while os.getppid() == parent:  # an orphan is handed to another parent (init, a reaper)
        time.sleep(POLL_SECONDS)

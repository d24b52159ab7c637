"""apothecary.lifeline: a child ends when its parent is killed outright, both by
the pidfd wait (Linux) and by the look at its parent pid (everywhere else)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from serving import kill_leaves_nothing

from apothecary.lifeline import die_with_parent

CHILD = """
import os, sys, time
from apothecary import lifeline
if sys.argv[1] == "poll":  # as where there are no pidfds
    del os.pidfd_open
    lifeline.POLL_SECONDS = 0.05
lifeline.die_with_parent(int(sys.argv[2]))
print("watching", flush=True)
time.sleep(120)
"""

PARENT = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2], str(os.getpid())],
                         stdout=subprocess.PIPE, text=True)
print(child.stdout.readline().strip(), flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree in /proc")
@pytest.mark.parametrize("how", ["pidfd", "poll"])
def test_a_child_ends_when_its_parent_is_killed(how: str) -> None:
    command = [sys.executable, "-c", PARENT, CHILD, how]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as parent:
        try:
            assert parent.stdout is not None
            assert parent.stdout.readline().strip() == "watching"
            kill_leaves_nothing(parent, "lifeline")
        finally:
            parent.kill()


def test_a_child_whose_parent_is_already_gone_stops_at_once() -> None:
    stopped: list[bool] = []
    die_with_parent(-1, lambda: stopped.append(True))  # no process is our parent -1
    assert stopped == [True]

"""Finding and killing every process a skill script started, including ones that left its
process group (``setsid``) or were orphaned when the script exited.

Each script runs with a unique marker in its environment, which its descendants inherit; on
Linux ``/proc`` tells which processes carry it, and which descend from the script while it is
still alive. Elsewhere only the script's process group is reachable.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
from typing import Final

__all__ = ["MARKER_VARIABLE", "kill_everything", "new_marker"]

MARKER_VARIABLE: Final = "YADK_SKILL_SCRIPT_RUN"
_PROC: Final = "/proc"


def new_marker() -> str:
    """A value for ``MARKER_VARIABLE`` that names one script run."""
    return secrets.token_hex(16)


def kill_everything(pid: int, marker: str) -> None:
    """SIGKILL the script ``pid``, its process group, and every process that descends from it
    or carries ``marker`` in its environment. Blocking (reads /proc): run it off the loop."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            os.kill(pid, signal.SIGKILL)
    # Twice: a process may fork while the first sweep runs.
    for _ in range(2):
        for found in _marked_or_descendant(pid, marker):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(found, signal.SIGKILL)


def _marked_or_descendant(root: int, marker: str) -> set[int]:
    if not os.path.isdir(_PROC):  # pragma: no cover - not Linux
        return set()
    needle = f"{MARKER_VARIABLE}={marker}".encode()
    parents: dict[int, int] = {}
    found: set[int] = set()
    own = os.getpid()
    for entry in os.listdir(_PROC):
        if not entry.isdigit() or int(entry) == own:
            continue
        pid = int(entry)
        parent = _parent(pid)
        if parent is not None:
            parents[pid] = parent
        if _carries(pid, needle):
            found.add(pid)
    for pid in parents:
        ancestor, hops = parents.get(pid), 0
        while ancestor is not None and hops < 64:
            if ancestor == root:
                found.add(pid)
                break
            ancestor, hops = parents.get(ancestor), hops + 1
    found.discard(own)
    return found


def _parent(pid: int) -> int | None:
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None


def _carries(pid: int, needle: bytes) -> bool:
    try:
        with open(f"{_PROC}/{pid}/environ", "rb") as handle:
            return needle in handle.read().split(b"\0")
    except OSError:
        return False

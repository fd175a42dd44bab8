"""Turn locks across processes on one SQLite file: a POSIX byte-range lock per session.

The locks are taken on a side file (``sessions.db-turns``), one byte per session at an offset
hashed from (app, user, session id), with ``lockf(LOCK_EX | LOCK_NB)``: never waiting, and
released by the kernel when a process dies, so a crashed replica leaves nothing held. Not on
the database file itself: SQLite uses byte-range locks there, and closing any descriptor of a
file drops all of a process's POSIX locks on it.

POSIX locks belong to the process, not to a descriptor, and are not counted, so the process
counts them: two sessions whose hashes collide share a byte, which is only released when both
are done (a collision makes the two sessions wait for each other across processes, no more).
Where ``fcntl`` does not exist (Windows) there are no such locks; see ``turn_locks``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["FileTurnLocks"]

_Key = tuple[str, str, str]


class FileTurnLocks:
    """``try_lock``/``unlock`` of one session's turn lock for every process on a SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._held: dict[int, int] = {}

    @staticmethod
    def _offset(key: _Key) -> int:
        digest = hashlib.blake2b("\x1f".join(key).encode(), digest_size=4).digest()
        return int.from_bytes(digest, "big") & 0x7FFFFFFF

    async def try_lock(self, key: _Key) -> bool:
        """Take the session's lock if no other process holds it; never waits."""
        import fcntl

        offset = self._offset(key)
        if offset in self._held:
            self._held[offset] += 1
            return True
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.lockf(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
        except OSError:  # EAGAIN or EACCES: another process holds it
            return False
        self._held[offset] = 1
        return True

    async def unlock(self, key: _Key) -> None:
        """Release the lock taken by ``try_lock`` (once per successful ``try_lock``)."""
        import fcntl

        offset = self._offset(key)
        self._held[offset] -= 1
        if self._held[offset] == 0:
            del self._held[offset]
            assert self._fd is not None
            fcntl.lockf(self._fd, fcntl.LOCK_UN, 1, offset)

    async def aclose(self) -> None:
        self.close()

    def close(self) -> None:
        fd, self._fd = self._fd, None
        self._held.clear()
        if fd is not None:
            os.close(fd)  # releases every lock this process held on the file

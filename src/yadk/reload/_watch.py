"""Where the dev loop (``yadk dev``, ``yadk serve --reload``) learns which files changed: the
``ChangeSource`` protocol, a watchfiles implementation, and ``ScriptedChanges`` for tests.

The dev loop only ever asks "what changed since I last asked?" (``poll``), so reload logic is
tested with scripted change batches, without a real watcher and without sleeping.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

import watchfiles

from yadk.errors import YadkError

__all__ = [
    "ChangeSource",
    "ScriptedChanges",
    "WatchFailed",
    "WatchfilesChanges",
    "matters",
    "watch_roots",
]

# A new file with one of these suffixes under the agent folder may be what a broken config is
# waiting for (a prompt, a skill, a module, an examples file), so it triggers a reload.
NEW_FILE_SUFFIXES = frozenset({".json", ".md", ".py", ".txt", ".yaml", ".yml"})
# Caches and tool folders; folders whose name starts with a dot (.git, .yadk, .venv) too.
IGNORED_DIRS = frozenset({"__pycache__", "node_modules"})
# Editor droppings: swap and backup files, Emacs lock files, vim's write test file.
TEMP_SUFFIXES = (".swp", ".swx", ".swo", ".tmp", ".bak", ".pyc", "~")


class WatchFailed(YadkError):
    """The watcher stopped (e.g. the system's limit of watches was reached)."""


class ChangeSource(Protocol):
    """What the dev loop needs from a file watcher."""

    def watch(self, root: Path, files: Iterable[Path]) -> None:
        """From now on, report changes to ``files`` (files or folders, absolute) and new files
        under the agent folder ``root``."""

    def poll(self) -> set[Path]:
        """The paths that changed since the last call; returns at once (empty when nothing
        changed). Raises ``WatchFailed`` once if the watcher stopped."""

    def close(self) -> None:
        """Stop watching."""


class ScriptedChanges:
    """A ``ChangeSource`` for tests: each ``poll`` returns the next queued batch.

    ``push`` queues a batch (a test calls it right after editing the files); ``watched`` is what
    the dev loop asked to watch last, and ``delivered`` is set once every queued batch has been
    polled, so a test can wait for an idle-time reload without sleeping.
    """

    def __init__(self, batches: Iterable[Iterable[str | os.PathLike[str]]] = ()) -> None:
        self._batches: list[set[Path]] = []
        self._lock = threading.Lock()
        self.delivered = threading.Event()
        self.root: Path | None = None
        self.watched: set[Path] = set()
        self.polls = 0
        self.closed = False
        for batch in batches:
            self.push(*batch)

    def push(self, *paths: str | os.PathLike[str]) -> None:
        with self._lock:
            self._batches.append({Path(os.path.abspath(p)) for p in paths})
            self.delivered.clear()

    def watch(self, root: Path, files: Iterable[Path]) -> None:
        self.root = root
        self.watched = set(files)

    def poll(self) -> set[Path]:
        with self._lock:
            self.polls += 1
            batch = self._batches.pop(0) if self._batches else set()
            if not self._batches:
                self.delivered.set()
            return batch

    def close(self) -> None:
        self.closed = True


def is_temporary(name: str) -> bool:
    """Dot files and editor temp files: never worth a reload."""
    return name.startswith((".", "#")) or name.endswith(TEMP_SUFFIXES) or name == "4913"


def _in_ignored_folder(path: Path, base: Path) -> bool:
    # Only the parts below the watched folder count: a project may itself live under a dot folder.
    return any(p.startswith(".") or p in IGNORED_DIRS for p in path.relative_to(base).parts)


def matters(
    path: Path, *, root: Path, files: frozenset[Path], added: bool, folder: bool = False
) -> bool:
    """Whether a change to ``path`` should reload the agent: a dependency changed (a file in
    ``files``, or anything inside a folder of ``files``, such as a folder of skills), or a new
    file that could be a config, prompt, skill or module, or a new folder, appeared under
    ``root``. (Files created in a new folder before the watcher watches it go unreported; the
    folder's own event stands for them.)"""
    if path in files:
        return True
    if is_temporary(path.name):
        return False
    for parent in path.parents:
        if parent in files:
            return not _in_ignored_folder(path, parent)
    if not added or root not in path.parents or _in_ignored_folder(path, root):
        return False
    return folder or path.suffix in NEW_FILE_SUFFIXES


def watch_roots(root: Path, files: Iterable[Path]) -> list[Path]:
    """The folders to watch (recursively): the agent folder, and for each dependency outside it
    the folder itself or the file's folder; none inside another."""
    wanted = {root}
    for file in files:
        if root not in file.parents:
            wanted.add(file if file.is_dir() else file.parent)
    existing = sorted(p for p in wanted if p.is_dir())
    return [p for p in existing if not any(other in p.parents for other in existing)]


class WatchfilesChanges:
    """A ``ChangeSource`` backed by ``watchfiles.watch`` in a background thread.

    The thread filters events with ``matters`` and queues the paths, so ``poll`` only drains a
    queue: a poll with nothing changed touches no file. The thread is restarted only when the
    folders to watch change.
    """

    def __init__(self, *, timeout_ms: int = 200, step_ms: int = 50) -> None:
        self._timeout_ms = timeout_ms
        self._step_ms = step_ms
        self._queue: queue.SimpleQueue[Path] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._root = Path()
        self._files: frozenset[Path] = frozenset()
        self._roots: list[Path] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._failure: str | None = None

    def watch(self, root: Path, files: Iterable[Path]) -> None:
        files = frozenset(files)
        roots = watch_roots(root, files)
        with self._lock:
            self._root, self._files = root, files
        if roots != self._roots or self._thread is None:
            self._stop_thread()
            self._roots = roots
            self._stop = threading.Event()
            self._ready = threading.Event()
            self._thread = threading.Thread(
                target=self._run, args=(roots, self._stop, self._ready), daemon=True
            )
            self._thread.start()

    def wait_ready(self, timeout: float) -> bool:
        """Wait until the watcher runs, so an edit made after this is seen."""
        return self._ready.wait(timeout)

    def poll(self) -> set[Path]:
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise WatchFailed(failure)
        changed: set[Path] = set()
        while True:
            try:
                changed.add(self._queue.get_nowait())
            except queue.Empty:
                return changed

    def close(self) -> None:
        self._stop_thread()

    def _stop_thread(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None

    def _run(self, roots: list[Path], stop: threading.Event, ready: threading.Event) -> None:
        try:
            # yield_on_timeout wakes the loop every timeout_ms with no changes, which is how it
            # notices it is running (ready) and, through stop_event, that it should end.
            for changes in watchfiles.watch(
                *roots,
                watch_filter=None,
                debounce=1000,
                step=self._step_ms,
                stop_event=stop,
                rust_timeout=self._timeout_ms,
                yield_on_timeout=True,
                raise_interrupt=False,
            ):
                ready.set()
                with self._lock:
                    root, files = self._root, self._files
                for change, raw in changes:
                    path = Path(raw)
                    added = change == watchfiles.Change.added
                    folder = added and path.is_dir()
                    # A file that came and went within the batch (an editor's or `sed -i`'s
                    # temporary file) is not a change to the agent, unless it is a dependency.
                    if matters(path, root=root, files=files, added=added, folder=folder) and (
                        path in files or path.exists()
                    ):
                        self._queue.put(path)
        except Exception as exc:  # reported through poll(); the dev loop keeps running
            self._failure = f"{type(exc).__name__}: {exc}"
        finally:
            ready.set()

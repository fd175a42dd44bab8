"""A small bounded cache keyed by template text, shared by both engines."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["TextCache", "clear_template_caches"]

_V = TypeVar("_V")
_all_caches: list[TextCache[object]] = []


class TextCache(Generic[_V]):
    """Maps template text to its compiled form; when full, the oldest entry is dropped.

    Lookups take no lock (a dict read is atomic in CPython): a lost race compiles the same text
    twice, which is harmless. Failed compilations are not cached, so a fixed file recompiles.
    """

    __slots__ = ("_build", "_data", "_lock", "maxsize")

    def __init__(self, build: Callable[[str], _V], *, maxsize: int = 1024) -> None:
        self._build = build
        self._data: dict[str, _V] = {}
        self._lock = threading.Lock()
        self.maxsize = maxsize
        _all_caches.append(self)  # type: ignore[arg-type]

    def get(self, text: str) -> _V:
        value = self._data.get(text)
        if value is None:
            value = self._build(text)
            with self._lock:
                if len(self._data) >= self.maxsize:
                    self._data.pop(next(iter(self._data)), None)
                self._data[text] = value
        return value

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


def clear_template_caches() -> None:
    """Forget every compiled template of both engines (tests, long-lived dev servers)."""
    for cache in _all_caches:
        cache.clear()

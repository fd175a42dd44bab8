"""RetryConfig (google-adk 2's fields and defaults) and the back-off it implies."""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, Field, field_validator

__all__ = ["RetryConfig"]

_DEFAULT_ATTEMPTS = 5
_DEFAULT_INITIAL_DELAY = 1.0
_DEFAULT_MAX_DELAY = 60.0
_DEFAULT_BACKOFF = 2.0
_DEFAULT_JITTER = 1.0


class RetryConfig(BaseModel):
    """How a failed node is retried: up to ``max_attempts`` runs (the first included), waiting
    ``initial_delay`` seconds, then ``backoff_factor`` times longer each time, at most
    ``max_delay``, spread by ``jitter`` (0 for none). ``exceptions`` names the exception classes
    to retry (a subclass counts); unset retries every exception."""

    max_attempts: int | None = None
    initial_delay: float | None = None
    max_delay: float | None = None
    backoff_factor: float | None = None
    jitter: float | None = None
    exceptions: list[str] | None = Field(default=None)

    @field_validator("exceptions", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        if value is None:
            return None
        names = []
        for item in value:
            if isinstance(item, str):
                names.append(item)
            elif isinstance(item, type) and issubclass(item, BaseException):
                names.append(item.__name__)
            else:
                raise ValueError(
                    "exceptions must contain exception class names (str) or exception"
                    f" classes, got {type(item).__name__}: {item!r}"
                )
        return names

    def should_retry(self, exc: BaseException, attempt: int) -> bool:
        """Whether a node whose ``attempt``-th run raised ``exc`` runs again."""
        limit = self.max_attempts if self.max_attempts is not None else _DEFAULT_ATTEMPTS
        if attempt >= limit:
            return False
        if self.exceptions is None:
            return True
        names = {cls.__name__ for cls in type(exc).__mro__ if cls is not object}
        return not names.isdisjoint(self.exceptions)

    def delay(self, attempt: int, *, rng: random.Random | None = None) -> float:
        """Seconds to wait after the ``attempt``-th run failed (1 for the first run)."""
        initial = _or(self.initial_delay, _DEFAULT_INITIAL_DELAY)
        ceiling = _or(self.max_delay, _DEFAULT_MAX_DELAY)
        backoff = _or(self.backoff_factor, _DEFAULT_BACKOFF)
        jitter = _or(self.jitter, _DEFAULT_JITTER)
        delay = initial * backoff ** max(0, attempt - 1)
        if jitter > 0.0:
            # Capped before the spread, so the widest draw still lands within max_delay.
            delay = min(delay, ceiling / (1.0 + jitter))
            delay = max(0.0, delay + (rng or random).uniform(-jitter * delay, jitter * delay))
        return min(delay, ceiling)


def _or(value: float | None, default: float) -> float:
    return default if value is None else value

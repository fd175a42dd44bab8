"""How long and how much ``yadk serve`` gives a client before it cuts the client off.

A client that connects and stays silent, sends its headers or its body a byte at a time, or
stops reading what the server sends (slowloris and its kin) would otherwise hold a connection,
a request task and, on ``/run_sse``, a session's lock for as long as it likes.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LIMITS_STATE", "Limits"]

LIMITS_STATE = "yadk.serve.limits"
"""The key of the ``Limits`` in the ASGI lifespan state (where the connection protocol finds
them: ``create_app``'s lifespan puts them there)."""


@dataclass(frozen=True)
class Limits:
    """Timeouts (seconds) and caps of a served app's connections and requests."""

    header_timeout: float = 10.0
    """A request's headers must be complete this long after its first byte (after the
    connection opened, for the first request); else 408 and the connection is closed."""
    body_timeout: float = 30.0
    """A request's whole body must arrive this long after its headers; else 408."""
    idle_timeout: float = 5.0
    """A kept-alive connection with no request in progress is closed after this long."""
    send_timeout: float = 30.0
    """A client that reads nothing of the response for this long is disconnected (its turn
    is cancelled, its session's lock released)."""
    max_connections: int = 1000
    """Open connections; one more is answered 503 and closed at once."""
    max_concurrency: int = 200
    """Requests in progress (``/health`` aside); one more is answered 503."""
    max_header_bytes: int = 64 * 1024
    """The request line and headers of one request; more gets 431."""

    def __post_init__(self) -> None:
        for name in ("header_timeout", "body_timeout", "idle_timeout", "send_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be more than 0 seconds, not {getattr(self, name)}")
        for name in ("max_connections", "max_concurrency", "max_header_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be 1 or more, not {getattr(self, name)}")

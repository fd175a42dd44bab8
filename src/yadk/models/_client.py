"""The ``httpx.AsyncClient`` the REST backends share: one pooled client per event loop.

A client's connections belong to the event loop that opened them, so each loop gets its own
(``asyncio.run`` twice, or one loop per test, never share sockets). The client is closed when its
loop shuts down: ``asyncio.run`` (and pytest-asyncio) finalise the loop's async generators, and a
small generator parked at its ``yield`` owns the client and closes it in its ``finally``.

Proxies come from the environment (``HTTPS_PROXY``, ``NO_PROXY``, ...), except that loopback
servers are always reached directly. A backend given its own ``http_client`` uses it as is and
never closes it; one given a ``transport`` gets a client of its own over that transport.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncGenerator
from dataclasses import dataclass

import httpx

__all__ = ["MAX_CONNECTIONS", "client_for", "close_clients", "pick_client"]

MAX_CONNECTIONS = 256
_MAX_KEEPALIVE = 64
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


@dataclass
class _Owned:
    client: httpx.AsyncClient
    closer: AsyncGenerator[None, None]


_by_loop: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[httpx.AsyncBaseTransport | None, _Owned]
] = weakref.WeakKeyDictionary()


async def client_for(transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """The running loop's client (over ``transport`` if given), created on first use."""
    loop = asyncio.get_running_loop()
    owned = _by_loop.setdefault(loop, {})
    entry = owned.get(transport)
    if entry is None or entry.client.is_closed:
        client = _new_client(transport)
        closer = _close_at_shutdown(client)
        await closer.__anext__()  # parked: the loop's shutdown_asyncgens() closes it
        entry = owned[transport] = _Owned(client, closer)
    return entry.client


async def pick_client(
    client: httpx.AsyncClient | None, transport: httpx.AsyncBaseTransport | None
) -> httpx.AsyncClient:
    """A backend's client: the one it was given, else the loop's (over its transport)."""
    return client if client is not None else await client_for(transport)


def _new_client(transport: httpx.AsyncBaseTransport | None) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=transport,
        limits=httpx.Limits(
            max_connections=MAX_CONNECTIONS,
            max_keepalive_connections=_MAX_KEEPALIVE,
            keepalive_expiry=30.0,
        ),
        # Loopback model servers (Ollama, vLLM, a test double) never go through a proxy.
        mounts={f"all://{host}": None for host in _LOOPBACK},
        follow_redirects=False,
        trust_env=True,
    )


async def _close_at_shutdown(client: httpx.AsyncClient) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        await client.aclose()


async def close_clients() -> None:
    """Close the running loop's clients now (tests and benchmarks; shutdown does it anyway)."""
    owned = _by_loop.pop(asyncio.get_running_loop(), {})
    for entry in owned.values():
        await entry.closer.aclose()

"""The ``httpx.AsyncClient``s the REST backends share: a few pooled clients per event loop.

A client's connections belong to the event loop that opened them, so each loop gets its own
(``asyncio.run`` twice, or one loop per test, never share sockets). The client is closed when its
loop shuts down: ``asyncio.run`` (and pytest-asyncio) finalise the loop's async generators, and a
small generator parked at its ``yield`` owns the client and closes it in its ``finally``.

The default is not one client but ``SHARDS`` of them, taken in turn: httpcore's pool does
bookkeeping over every connection it holds each time a request starts or ends (quadratic in its
idle connections, encode/httpx#3215), which made 64 concurrent calls on warm connections take
2 s instead of 0.5 s. Eight small pools keep keep-alive and cost little. A call takes the shard
with the fewest calls in flight (the first on a tie), so calls one after another keep reusing the
same warm connection.

Proxies come from the environment (``HTTPS_PROXY``, ``NO_PROXY``, ...), except that loopback
servers are always reached directly. Every client verifies TLS with one shared ``SSLContext``
(the certificates of ``SSL_CERT_FILE``/``SSL_CERT_DIR``, else certifi's), built once for those
settings: loading a CA bundle is a file read and parse that need not be paid per client. A backend given its own ``http_client`` uses it as is and
never closes it; one given a ``transport`` gets a client of its own over that transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import ssl
import weakref
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass

import httpx

__all__ = ["MAX_CONNECTIONS", "SHARDS", "client_for", "close_clients", "in_flight", "pick_client"]

SHARDS = 8
MAX_CONNECTIONS = 256  # in all shards together
_MAX_KEEPALIVE = 16  # per shard
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


@dataclass
class _Owned:
    clients: list[httpx.AsyncClient]
    closer: AsyncGenerator[None, None]


_in_flight: weakref.WeakKeyDictionary[httpx.AsyncClient, int] = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def in_flight(client: httpx.AsyncClient) -> Iterator[None]:
    """Count a call against ``client`` while it runs (the shard choice reads the counts)."""
    _in_flight[client] = _in_flight.get(client, 0) + 1
    try:
        yield
    finally:
        _in_flight[client] -= 1


_by_loop: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[httpx.AsyncBaseTransport | None, _Owned]
] = weakref.WeakKeyDictionary()


async def client_for(transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """A client of the running loop (over ``transport`` if given; the next shard otherwise),
    created on first use."""
    loop = asyncio.get_running_loop()
    owned = _by_loop.setdefault(loop, {})
    entry = owned.get(transport)
    if entry is None or entry.clients[0].is_closed:
        shards = 1 if transport is not None else SHARDS
        clients = [_new_client(transport) for _ in range(shards)]
        closer = _close_at_shutdown(clients)
        await closer.__anext__()  # parked: the loop's shutdown_asyncgens() closes them
        entry = owned[transport] = _Owned(clients, closer)
    return min(entry.clients, key=lambda client: _in_flight.get(client, 0))


async def pick_client(
    client: httpx.AsyncClient | None, transport: httpx.AsyncBaseTransport | None
) -> httpx.AsyncClient:
    """A backend's client: the one it was given, else the loop's (over its transport)."""
    return client if client is not None else await client_for(transport)


@functools.cache
def _ssl_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    """httpx's default verifying context for these ``SSL_CERT_FILE``/``SSL_CERT_DIR`` values
    (which it reads from the environment itself)."""
    return httpx.create_ssl_context(trust_env=True)


def _new_client(transport: httpx.AsyncBaseTransport | None) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=transport,
        verify=_ssl_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")),
        limits=httpx.Limits(
            max_connections=MAX_CONNECTIONS // SHARDS,
            max_keepalive_connections=_MAX_KEEPALIVE,
            keepalive_expiry=30.0,
        ),
        # Loopback model servers (Ollama, vLLM, a test double) never go through a proxy.
        mounts={f"all://{host}": None for host in _LOOPBACK},
        follow_redirects=False,
        trust_env=True,
    )


async def _close_at_shutdown(clients: list[httpx.AsyncClient]) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        for client in clients:
            await client.aclose()


async def close_clients() -> None:
    """Close the running loop's clients now (tests and benchmarks; shutdown does it anyway)."""
    owned = _by_loop.pop(asyncio.get_running_loop(), {})
    for entry in owned.values():
        await entry.closer.aclose()

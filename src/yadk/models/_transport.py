"""One blocking HTTP POST for the REST backends, over kept-alive connections.

Connections are pooled per (scheme, host, port), so an agent's successive model calls skip the
TCP and TLS handshakes. When the environment configures a proxy for the URL (``HTTPS_PROXY``,
``NO_PROXY``, ...) the request goes through ``urllib`` instead, which honours it. A local server
(loopback) is always reached directly. Failures surface as ``TimeoutError``, ``OSError`` or
``http.client.HTTPException``; the caller turns them into messages.
"""

from __future__ import annotations

import atexit
import http.client
import ssl
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Reply", "post"]

_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_MAX_IDLE_PER_HOST = 4


@dataclass(frozen=True)
class Reply:
    """A complete HTTP answer (any status)."""

    status: int
    headers: Mapping[str, str]
    body: bytes


def post(url: str, payload: bytes, headers: Mapping[str, str], timeout: float) -> Reply:
    """POST ``payload`` to ``url``; ``timeout`` bounds the connect and each read."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise OSError(f"unsupported URL {url!r} (expected http:// or https://)")
    if _uses_proxy(parts):
        return _post_via_urllib(url, payload, headers, timeout)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    key = (parts.scheme, parts.hostname, port)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    while True:
        connection = _pool.take(key)
        reused = connection is not None
        if connection is None:
            connection = _connect(parts.scheme, parts.hostname, port, timeout)
        else:
            connection.timeout = timeout
            if connection.sock is not None:
                connection.sock.settimeout(timeout)
        try:
            connection.request("POST", target, body=payload, headers=dict(headers))
            response = connection.getresponse()
            body = response.read()
        except (ConnectionResetError, BrokenPipeError, http.client.BadStatusLine):
            connection.close()
            if reused:  # the server dropped an idle connection: try the next one
                continue
            raise
        except BaseException:
            connection.close()
            raise
        if response.will_close:
            connection.close()
        else:
            _pool.give(key, connection)
        return Reply(response.status, dict(response.headers.items()), body)


def _uses_proxy(parts: urllib.parse.SplitResult) -> bool:
    host = parts.hostname or ""
    if host in _LOOPBACK_HOSTS or parts.scheme not in urllib.request.getproxies():
        return False
    return not urllib.request.proxy_bypass(host)


def _post_via_urllib(url: str, payload: bytes, headers: Mapping[str, str], timeout: float) -> Reply:
    request = urllib.request.Request(url, data=payload, headers=dict(headers), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Reply(response.status, dict(response.headers.items()), response.read())
    except urllib.error.HTTPError as exc:
        try:
            body = exc.read()
        finally:
            exc.close()
        return Reply(exc.code, dict(exc.headers.items()) if exc.headers else {}, body)
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, BaseException):
            raise exc.reason from None
        raise


_ssl_context: ssl.SSLContext | None = None


def _connect(scheme: str, host: str, port: int, timeout: float) -> http.client.HTTPConnection:
    global _ssl_context
    if scheme == "http":
        return http.client.HTTPConnection(host, port, timeout=timeout)
    if _ssl_context is None:
        _ssl_context = ssl.create_default_context()
    return http.client.HTTPSConnection(host, port, timeout=timeout, context=_ssl_context)


class _Pool:
    """Idle connections by (scheme, host, port); thread-safe, a few per host."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, str, int], list[http.client.HTTPConnection]] = {}
        self._lock = threading.Lock()

    def take(self, key: tuple[str, str, int]) -> http.client.HTTPConnection | None:
        with self._lock:
            idle = self._idle.get(key)
            return idle.pop() if idle else None

    def give(self, key: tuple[str, str, int], connection: http.client.HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if len(idle) < _MAX_IDLE_PER_HOST:
                idle.append(connection)
                return
        connection.close()

    def close_all(self) -> None:
        with self._lock:
            connections = [c for idle in self._idle.values() for c in idle]
            self._idle.clear()
        for connection in connections:
            connection.close()


_pool = _Pool()
atexit.register(_pool.close_all)

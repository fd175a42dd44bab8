"""Which ``Host`` and ``Origin`` values a server answers: DNS-rebinding and CSRF protection.

A page of another site must not drive a server on the user's machine: not through a DNS name it
rebinds to 127.0.0.1 (its requests carry that name in ``Host``), and not through a cross-site
form or fetch (its requests carry the other site in ``Origin``). ``HostPolicy`` is the one check
both ``yadk web`` (``HostOriginGuard``) and ``yadk serve`` (``Guard``) apply before anything else.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["ANY_HOST", "LOOPBACK_NAMES", "HostPolicy", "allowed_hosts", "with_port"]

ANY_HOST = "*"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_HAS_PORT = re.compile(r"(\[[^\]]*\]|[^:\[\]]*):\d+")


def allowed_hosts(host: str, port: int) -> set[str]:
    """The ``Host`` values a server bound to ``host``:``port`` answers: the address itself and,
    for loopback or all-interfaces binds, the loopback names."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = {shown}
    if shown in LOOPBACK_NAMES or host in ("0.0.0.0", "::"):
        names.update(LOOPBACK_NAMES)
    return {f"{name}:{port}" for name in names} | ({*names} if port == 80 else set())


def with_port(name: str, port: int) -> set[str]:
    """The ``Host`` values that name ``name`` on a server at ``port``: ``name:port`` and, as a
    client behind a proxy on the default port sends it, ``name`` alone (a name that already
    carries a port stays as it is)."""
    if _HAS_PORT.fullmatch(name):
        return {name}
    return {name, f"{name}:{port}"}


class HostPolicy:
    """Requests addressed to one of ``hosts`` (``Host`` values such as ``127.0.0.1:8000``,
    ``127.0.0.1:*`` for any port, or ``*`` for any) and, when they carry an ``Origin``, sent
    by a page of one of those hosts or of ``origins``, are answered; ``refusal`` says why any
    other is not.

    ``host_fix`` and ``origin_fix`` end the refusals with what the user can do about them."""

    def __init__(
        self,
        hosts: Iterable[str],
        *,
        origins: Iterable[str] = (),
        host_fix: str = "",
        origin_fix: str = "",
    ) -> None:
        names = {h.lower() for h in hosts}
        self.any_host = ANY_HOST in names
        self.hosts = frozenset(names - {ANY_HOST})
        pages = {f"{scheme}://{h}" for h in self.hosts for scheme in ("http", "https")}
        self.origins = frozenset(pages | {o.lower().rstrip("/") for o in origins})
        self.host_fix = host_fix
        self.origin_fix = origin_fix

    def _any_port(self, host: str) -> bool:
        """Whether ``host`` is an answered name on a port not known in advance (``name:*``:
        a server started on port 0)."""
        name, colon, port = host.rpartition(":")
        return bool(colon) and port.isdigit() and f"{name}:*" in self.hosts

    def refusal(self, host: str, origin: str | None) -> str | None:
        """None when a request with these ``Host`` and ``Origin`` headers may go on, else the
        message to refuse it with (403)."""
        host = host.lower()
        if not self.any_host and host not in self.hosts and not self._any_port(host):
            return (
                f"Host {host or '(none)'!r} is not served here; {self.host_fix} (requests for"
                " other host names are refused against DNS rebinding)."
            )
        if origin is None:
            return None
        seen = origin.lower()
        netloc = seen.partition("://")[2]
        if (
            seen in self.origins
            or self._any_port(netloc)
            or (self.any_host and netloc == host != "")
        ):
            return None
        return (
            f"Origin {origin!r} may not use this server: only pages it serves may"
            f"{self.origin_fix} (cross-site requests are refused)."
        )

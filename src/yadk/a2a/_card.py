"""Reading a remote agent's A2A card: which JSON-RPC endpoint to call, in which protocol version.

A 1.0 card lists ``supportedInterfaces`` (``url``, ``protocolBinding``, ``protocolVersion``); a
0.3 card has a ``url`` with its ``preferredTransport`` (JSON-RPC when unset) and
``additionalInterfaces``. yadk calls JSON-RPC: the first 1.x JSON-RPC interface wins, then a
0.3 one, then the legacy ``url``.

A card fetched over the network may only send calls (and the headers configured for them) to
its own origin, over HTTPS or over plain HTTP to this machine, as google-adk requires; a card
read from a file is the config author's own word.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from typing import Any, Final
from urllib.parse import urlsplit

from yadk.a2a._parts import Protocol
from yadk.errors import AgentCardResolutionError

__all__ = [
    "AGENT_CARD_WELL_KNOWN_PATH",
    "AgentCard",
    "card_url",
    "is_loopback",
    "read_card",
]

AGENT_CARD_WELL_KNOWN_PATH: Final = "/.well-known/agent-card.json"
_JSONRPC: Final = "JSONRPC"


@dataclasses.dataclass(frozen=True)
class AgentCard:
    """What the client needs of a card: who the agent is and where and how to call it."""

    name: str
    description: str
    endpoint: str
    protocol: Protocol
    streaming: bool
    data: dict[str, Any]


def card_url(url: str) -> str:
    """The URL the card is fetched from: ``url`` itself when it names a ``.json`` file, else the
    well-known card path under it (``https://host/a2a/app`` ->
    ``https://host/a2a/app/.well-known/agent-card.json``)."""
    parts = urlsplit(url)
    if parts.path.endswith(".json"):
        return url
    return parts._replace(path=parts.path.rstrip("/") + AGENT_CARD_WELL_KNOWN_PATH).geturl()


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` names this machine (``localhost`` or a loopback address)."""
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def read_card(data: Any, *, source: str, fetched_from: str | None = None) -> AgentCard:
    """The card in ``data`` (parsed JSON). ``source`` names it in errors; ``fetched_from`` is
    the URL it came from, which then bounds where its endpoint may be."""
    if not isinstance(data, dict):
        raise AgentCardResolutionError(
            f"The agent card {source} is not a JSON object: an A2A agent card has `name` and"
            " `supportedInterfaces` (A2A 1.0) or `url` (A2A 0.3)."
        )
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise AgentCardResolutionError(f"The agent card {source} has no `name`.")
    endpoint, protocol = _endpoint(data, source)
    scheme = urlsplit(endpoint).scheme.lower()
    if scheme not in ("http", "https") or not urlsplit(endpoint).hostname:
        raise AgentCardResolutionError(
            f"The agent card {source} gives `{endpoint}` as its JSON-RPC endpoint: expected an"
            " http:// or https:// URL."
        )
    if fetched_from is not None:
        _check_origin(endpoint, fetched_from, source)
    description = data.get("description")
    capabilities = data.get("capabilities")
    streaming = isinstance(capabilities, dict) and capabilities.get("streaming") is True
    return AgentCard(
        name=name,
        description=description if isinstance(description, str) else "",
        endpoint=endpoint,
        protocol=protocol,
        streaming=streaming,
        data=data,
    )


def _endpoint(data: dict[str, Any], source: str) -> tuple[str, Protocol]:
    offered: list[str] = []
    candidates: list[tuple[int, str, Protocol]] = []
    interfaces = data.get("supportedInterfaces")
    for entry in interfaces if isinstance(interfaces, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            continue
        binding = str(entry.get("protocolBinding") or entry.get("transport") or _JSONRPC)
        offered.append(binding)
        if binding.upper() != _JSONRPC:
            continue
        version = str(entry.get("protocolVersion") or "1.0")
        protocol: Protocol = "0.3" if version.startswith("0.") else "1.0"
        candidates.append((0 if protocol == "1.0" else 1, entry["url"], protocol))
    url = data.get("url")
    if isinstance(url, str) and url:
        transport = str(data.get("preferredTransport") or _JSONRPC)
        offered.append(transport)
        if transport.upper() == _JSONRPC:
            candidates.append((2, url, "0.3"))
    additional = data.get("additionalInterfaces")
    for entry in additional if isinstance(additional, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("url"), str):
            transport = str(entry.get("transport") or "")
            offered.append(transport)
            if transport.upper() == _JSONRPC:
                candidates.append((3, entry["url"], "0.3"))
    if not candidates:
        found = ", ".join(sorted(set(offered))) or "none"
        raise AgentCardResolutionError(
            f"The agent card {source} offers no JSON-RPC interface (found: {found}): yadk calls"
            " remote agents over A2A's JSON-RPC binding."
        )
    _rank, endpoint, protocol = min(candidates, key=lambda c: c[0])
    return endpoint, protocol


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    port = parts.port or {"http": 80, "https": 443}.get(scheme)
    return scheme, "loopback" if is_loopback(host) else host, port


def _check_origin(endpoint: str, fetched_from: str, source: str) -> None:
    if urlsplit(endpoint).scheme.lower() != "https" and not is_loopback(
        urlsplit(endpoint).hostname
    ):
        raise AgentCardResolutionError(
            f"The agent card {source} sends calls to `{endpoint}` over plain HTTP: a remote"
            " agent must be called over https:// (plain http:// only on this machine)."
        )
    if _origin(endpoint) != _origin(fetched_from):
        raise AgentCardResolutionError(
            f"The agent card {source} sends calls to `{endpoint}`, another origin than the one"
            " it was fetched from; the configured headers would go there. Point `agent_card` at"
            " the card the endpoint's own server publishes, or keep a copy of the card in a file."
        )

"""``agent_class: RemoteA2aAgent``: its card reference, headers and timeout.

The card is a URL or a JSON file beside the config. A file is read and checked like every file
a config names (confined to the agent folder, size-capped, a card that yadk can call); a URL is
checked for its shape and scheme only, so ``yadk validate`` works offline. With ``--network``
(``Loader.network``) the card is fetched, with the configured headers, and checked as a run
would check it.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from yadk._files import FileProblem, read_json
from yadk.config._context import FileScope
from yadk.config._fields import local_file
from yadk.config._yaml import KeyPath
from yadk.errors import AgentCardResolutionError

if TYPE_CHECKING:
    from yadk.config._refs import LoaderBase

__all__ = ["read_remote"]

_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+\Z")
_DEFAULT_TIMEOUT = 600.0


def read_remote(
    reader: LoaderBase,
    scope: FileScope,
    data: dict[str, Any],
    kwargs: dict[str, Any],
    *,
    misspelled: set[str],
) -> None:
    """Read the remote agent's own keys of ``data`` into ``kwargs`` (problems are reported;
    a key in ``misspelled`` was reported as a near miss, so its absence is not)."""
    headers = _headers(reader, scope, data.get("headers"))
    if headers is not None:
        kwargs["headers"] = headers
    timeout = _timeout(reader, scope, data)
    if timeout is not None:
        kwargs["timeout"] = timeout
    if "agent_card" not in data:
        if "agent_card" in misspelled:
            return
        reader.error(
            scope,
            (),
            "missing-field",
            "A RemoteA2aAgent needs `agent_card`: where the remote agent's A2A card is.",
            "Add `agent_card: https://host/.well-known/agent-card.json` or `agent_card:"
            " card.json` (a file beside this config).",
        )
        return
    value = data["agent_card"]
    at: KeyPath = ("agent_card",)
    if not reader.expect(scope, at, value, str, "a URL or a path to a card file (a string)"):
        return
    if value.startswith(("http://", "https://")) or "://" in value:
        if _url(reader, scope, at, value):
            kwargs["agent_card"] = value
            if getattr(reader, "network", False):
                _fetch(reader, scope, at, value, headers or {}, timeout or _DEFAULT_TIMEOUT)
        return
    target = local_file(reader, scope, at, value, "Agent card file")
    if target is None:
        return
    try:
        card = read_json(target, kind="agent_card", root=scope.root)
    except FileProblem as problem:
        reader.error(scope, at, problem.rule, problem.message, problem.hint)
        return
    reader.files.add(target)
    from yadk.a2a import read_card

    try:
        read_card(card, source=f"in {value}")
    except AgentCardResolutionError as exc:
        reader.error(scope, at, "invalid-agent-card", str(exc), _CARD_HINT)
        return
    kwargs["agent_card"] = card  # read once here: a run does not read the file again


_CARD_HINT = (
    "An A2A card names the agent and its JSON-RPC endpoint: `supportedInterfaces: [{url,"
    " protocolBinding: JSONRPC, protocolVersion: '1.0'}]` (A2A 1.0) or `url` (0.3)."
)


def _url(reader: LoaderBase, scope: FileScope, at: KeyPath, value: str) -> bool:
    from yadk.a2a import is_loopback

    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        reader.error(scope, at, "invalid-url", f"`agent_card` is not a valid URL: {exc}.")
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname:
        reader.error(
            scope,
            at,
            "invalid-url",
            f"`agent_card` `{value}` is not an http:// or https:// URL.",
            "Give the card's URL, or a path to a card file relative to this config.",
        )
        return False
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        reader.error(
            scope,
            at,
            "insecure-url",
            f"`agent_card` `{value}` uses plain http:// to `{parts.hostname}`: the card and the"
            " calls (with their headers) would cross the network unencrypted.",
            "Use https:// (plain http:// only to this machine: localhost, 127.0.0.1, ::1).",
        )
        return False
    return True


def _headers(reader: LoaderBase, scope: FileScope, value: Any) -> dict[str, str] | None:
    if value is None:
        return None
    at: KeyPath = ("headers",)
    if not reader.expect(
        scope, at, value, dict, "a mapping of header names to values", "e.g. `X-Team: search`."
    ):
        return None
    headers: dict[str, str] = {}
    for name, item in value.items():
        if not isinstance(name, str) or not _HEADER_NAME.match(name):
            reader.error(
                scope,
                (*at, name),
                "invalid-header",
                f"`{name}` is not an HTTP header name.",
                "Use letters, digits and - (e.g. `Authorization`, `X-Api-Key`).",
                key=True,
            )
            continue
        if not reader.expect(scope, (*at, name), item, str, "a string", "Quote numbers."):
            continue
        if "\n" in item or "\r" in item:
            reader.error(
                scope,
                (*at, name),
                "invalid-header",
                f"The value of header `{name}` has a line break.",
                "A header value is one line.",
            )
            continue
        headers[name] = item
    return headers


def _timeout(reader: LoaderBase, scope: FileScope, data: dict[str, Any]) -> float | None:
    if "timeout" not in data:
        return None
    value = data["timeout"]
    at: KeyPath = ("timeout",)
    if not reader.expect(scope, at, value, (int, float), "a number of seconds"):
        return None
    if not value > 0:
        reader.error(
            scope,
            at,
            "invalid-value",
            f"`timeout` must be a positive number of seconds, got {value}.",
            "Leave it out for google-adk's default, 600 seconds.",
        )
        return None
    return float(value)


def _fetch(
    reader: LoaderBase,
    scope: FileScope,
    at: KeyPath,
    url: str,
    headers: dict[str, str],
    timeout: float,
) -> None:
    from yadk.a2a import card_url, fetch_card_blocking, read_card

    where = card_url(url)
    try:
        card = fetch_card_blocking(where, headers=headers, timeout=min(timeout, 30.0))
        read_card(card, source=f"at {where}", fetched_from=where)
    except AgentCardResolutionError as exc:
        reader.error(
            scope,
            at,
            "agent-card-unavailable",
            str(exc),
            "Check that the remote agent is running and that the URL is its card's; validate"
            " without --network to check the config alone.",
        )

"""``${env:VAR}`` in what leaves the machine: refused unless the host it goes to is trusted.

A config names the server a remote MCP toolset (or any mapping with a ``url``) talks to, and the
headers, credentials and URL sent there; ``${env:OPENAI_API_KEY}`` in one of those would hand
the user's secret to whoever the config names. So an environment value may only go to a
loopback host or one the project root lists under ``[tool.yadk] trusted_hosts``.

A mapping that has a URL (``url``, ``base_url``, ``endpoint``, ``agent_card``, ``*_url``), or a
mapping whose direct child has one (an MCP entry's ``args``: the connection params beside
``auth_credential``), governs every value under it: they go to that URL's host.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from yadk._paths import display_path
from yadk.config._context import FileScope
from yadk.config._yaml import KeyPath

if TYPE_CHECKING:
    from yadk.config._refs import LoaderBase

__all__ = ["check_outbound_env"]

_URL_KEYS = frozenset({"url", "base_url", "endpoint", "agent_card"})


def check_outbound_env(reader: LoaderBase, scope: FileScope) -> None:
    """Report every ``${env:...}`` value of ``scope``'s file bound for an untrusted host."""
    if not scope.doc.env:
        return
    reported: set[KeyPath] = set()
    _visit(reader, scope, scope.doc.data, (), reported)


def _visit(
    reader: LoaderBase, scope: FileScope, value: Any, at: KeyPath, reported: set[KeyPath]
) -> None:
    if isinstance(value, dict):
        found = _url_of(value, at)
        if found is not None:
            _check(reader, scope, at, found, reported)
        for key, item in value.items():
            _visit(reader, scope, item, (*at, key), reported)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _visit(reader, scope, item, (*at, index), reported)


def _url_of(mapping: dict[Any, Any], at: KeyPath) -> tuple[KeyPath, str] | None:
    for key, item in mapping.items():
        if _url_key(key) and isinstance(item, str):
            return (*at, key), item
    for key, child in mapping.items():
        if isinstance(child, dict):
            for child_key, item in child.items():
                if _url_key(child_key) and isinstance(item, str):
                    return (*at, key, child_key), item
    return None


def _url_key(key: Any) -> bool:
    return isinstance(key, str) and (key in _URL_KEYS or key.endswith("_url"))


def _check(
    reader: LoaderBase,
    scope: FileScope,
    at: KeyPath,
    found: tuple[KeyPath, str],
    reported: set[KeyPath],
) -> None:
    url_at, url = found
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return  # a malformed URL is reported where the URL is read
    if not host:
        return  # a file path or a relative reference: nothing leaves the machine
    policy = reader.trust_policy(scope)
    if policy.trusts_host(host):
        return
    where = f" ({display_path(policy.source)})" if policy.source is not None else ""
    for path, names in sorted(scope.doc.env.items(), key=lambda item: scope.doc.where(item[0])):
        if path[: len(at)] != at or path in reported:
            continue
        reported.add(path)
        shown = ", ".join(f"`${{env:{name}}}`" for name in names)
        reader.error(
            scope,
            path,
            "env-to-untrusted-host",
            f"{shown} would be sent to `{host}` (the `{url_at[-1]}` here), a host this project"
            " does not trust: a config must not send values from your environment, such as API"
            " keys, to a server it names.",
            f'If you trust `{host}`, add `trusted_hosts = ["{host}"]` under [tool.yadk] in the'
            f" project root's pyproject.toml{where}; or write the value without `${{env:...}}`"
            " (loopback hosts are always trusted).",
        )

"""The auth keys of an ``MCPToolset`` entry: google-adk's ``auth_scheme`` / ``auth_credential``
(sent as HTTP headers; flows that need a browser or a token service are refused at the key),
and yadk's ``header_provider`` (a dotted name, resolved under the trust policy as callbacks are).

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from yadk.config._context import FileScope
from yadk.config._yaml import KeyPath

if TYPE_CHECKING:
    import pydantic

    from yadk.config._refs import LoaderBase

__all__ = ["AUTH_OPTION_KEYS", "read_auth", "report_invalid"]

AUTH_OPTION_KEYS = ("auth_scheme", "auth_credential", "header_provider")
_HINT = (
    "Use an API key or HTTP bearer/basic credential, e.g. `auth_scheme: {type: http, scheme:"
    " bearer}` with `auth_credential: {auth_type: http, http: {scheme: bearer, credentials:"
    " {token: '${env:TOKEN}'}}}`, or pass headers under the connection params' `headers:`."
)


def read_auth(
    reader: LoaderBase, scope: FileScope, at: KeyPath, args: dict[str, Any], *, http: bool
) -> dict[str, Any] | None:
    """The toolset's auth options (keyword arguments), or None after reporting a problem."""
    import pydantic

    from yadk.tools.mcp import (
        AuthCredential,
        AuthScheme,
        UnsupportedAuth,
        auth_headers,
        to_model,
    )

    before = reader.errors
    options: dict[str, Any] = {}
    for key, model in (("auth_scheme", AuthScheme), ("auth_credential", AuthCredential)):
        if key not in args:
            continue
        if not reader.expect(scope, (*at, key), args[key], dict, "a mapping"):
            continue
        try:
            options[key] = to_model(args[key], model)
        except pydantic.ValidationError as exc:
            report_invalid(reader, scope, (*at, key), exc)
    if reader.errors == before and ("auth_scheme" in options or "auth_credential" in options):
        try:
            auth_headers(options.get("auth_scheme"), options.get("auth_credential"))
        except UnsupportedAuth as exc:
            reader.error(
                scope, (*at, exc.key), "unsupported-auth", f"{_sentence(str(exc))}", _HINT, key=True
            )
    if "header_provider" in args:
        named = reader.code_name(
            scope, (*at, "header_provider"), args["header_provider"], "a header provider"
        )
        found = None if named is None else reader.reference(scope, named[0], named[1], "callback")
        if found is not None:
            options["header_provider"] = found.obj
    given = [key for key in AUTH_OPTION_KEYS if key in args]
    if given and not http and reader.errors == before:
        reader.warn(
            scope,
            (*at, given[0]),
            "mcp-auth-ignored",
            f"`{given[0]}` is sent as HTTP headers, and a stdio server has none: it is ignored.",
            "Give the server its credentials through `env:` instead.",
        )
    return options if reader.errors == before else None


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def report_invalid(
    reader: LoaderBase, scope: FileScope, at: KeyPath, exc: pydantic.ValidationError
) -> None:
    for problem in exc.errors():
        loc = tuple(problem["loc"])
        where = (*at, *loc)
        kind = problem["type"]
        if kind == "missing":
            reader.error(
                scope,
                (*at, *loc[:-1]),
                "missing-field",
                f"`{loc[-1]}` is required here.",
            )
        elif kind == "extra_forbidden":
            reader.error(scope, where, "unknown-key", f"Unknown key `{loc[-1]}`.", key=True)
        else:
            message = str(problem["msg"]).removeprefix("Value error, ")
            reader.error(scope, where, "invalid-value", f"`{loc[-1]}`: {message}.")

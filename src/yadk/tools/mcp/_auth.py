"""MCP authentication as HTTP headers: google-adk 2.13's ``auth_scheme`` / ``auth_credential``
shapes, for the schemes that need no browser and no token service.

Supported (the header google-adk's ``build_auth_headers`` sends):

    auth_scheme                          auth_credential                       header
    {type: apiKey, in: header, name: N}  {auth_type: apiKey, api_key: K}       N: K
    {type: http, scheme: bearer}         {auth_type: http, http: {scheme:      Authorization:
                                          bearer, credentials: {token: T}}}     Bearer T
    {type: http, scheme: basic}          ... credentials: {username, password}  Authorization:
                                                                                Basic base64(u:p)
    {type: http, scheme: S}              ... credentials: {token: T}            Authorization: S T

plus ``http.additional_headers``. OAuth2, OpenID Connect and service accounts need an
authorization flow (a browser, or a token endpoint on the network) that yadk does not run:
``UnsupportedAuth`` says so, and the config loader reports it at the key.
"""

from __future__ import annotations

import base64
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AuthCredential",
    "AuthScheme",
    "UnsupportedAuth",
    "auth_headers",
    "merge_headers",
    "to_model",
]

_FLOW_SCHEMES = {"oauth2": "OAuth2", "openIdConnect": "OpenID Connect"}
_FLOW_CREDENTIALS = {
    "oauth2": "OAuth2",
    "openIdConnect": "OpenID Connect",
    "serviceAccount": ("service account"),
}


class UnsupportedAuth(ValueError):
    """An auth scheme or credential yadk cannot turn into headers; ``key`` names the field."""

    def __init__(self, message: str, *, key: str) -> None:
        super().__init__(message)
        self.key = key


class AuthScheme(BaseModel):
    """An OpenAPI security scheme (google-adk's ``AuthScheme``), the fields yadk reads."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    type_: str = Field(alias="type")
    in_: Literal["header", "query", "cookie"] | None = Field(default=None, alias="in")
    name: str | None = None
    scheme: str | None = None
    description: str | None = None


class HttpCredentials(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: str | None = None
    password: str | None = Field(default=None, repr=False)
    token: str | None = Field(default=None, repr=False)


class HttpAuth(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scheme: str
    credentials: HttpCredentials = Field(default_factory=HttpCredentials)
    additional_headers: dict[str, str] | None = Field(default=None, repr=False)


class AuthCredential(BaseModel):
    """google-adk's ``AuthCredential``: the fields yadk reads; flow credentials are kept as
    given only to be refused with a clear message."""

    model_config = ConfigDict(extra="forbid")

    auth_type: Literal["apiKey", "http", "oauth2", "openIdConnect", "serviceAccount"]
    resource_ref: str | None = None
    api_key: str | None = Field(default=None, repr=False)
    http: HttpAuth | None = None
    oauth2: dict[str, Any] | None = Field(default=None, repr=False)
    service_account: dict[str, Any] | None = Field(default=None, repr=False)


def to_model(value: Any, model: type[BaseModel]) -> Any:
    """``value`` as ``model``: a dict, one of ours, or google-adk's own pydantic object."""
    if value is None or isinstance(value, model):
        return value
    if isinstance(value, BaseModel):  # google-adk's (or fastapi's) model of the same shape
        value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return model.model_validate(value)


def auth_headers(scheme: AuthScheme | None, credential: AuthCredential | None) -> dict[str, str]:
    """The headers that carry ``credential`` for ``scheme``; ``UnsupportedAuth`` otherwise."""
    if scheme is None and credential is None:
        return {}
    if scheme is None:
        raise UnsupportedAuth(
            "`auth_credential` needs `auth_scheme` (which header carries it).",
            key="auth_credential",
        )
    if scheme.type_ in _FLOW_SCHEMES:
        raise UnsupportedAuth(
            f"{_FLOW_SCHEMES[scheme.type_]} auth schemes need an authorization flow (a browser"
            " or a token endpoint), which yadk does not run.",
            key="auth_scheme",
        )
    if scheme.type_ not in ("apiKey", "http"):
        raise UnsupportedAuth(
            f"auth scheme type {scheme.type_!r} is not supported; use apiKey or http.",
            key="auth_scheme",
        )
    if credential is None:
        raise UnsupportedAuth(
            "`auth_scheme` needs `auth_credential` (yadk does not ask the user for one).",
            key="auth_scheme",
        )
    if credential.auth_type in _FLOW_CREDENTIALS:
        raise UnsupportedAuth(
            f"{_FLOW_CREDENTIALS[credential.auth_type]} credentials need an authorization flow,"
            " which yadk does not run.",
            key="auth_credential",
        )
    if scheme.type_ == "apiKey":
        return _api_key(scheme, credential)
    return _http(credential)


def _api_key(scheme: AuthScheme, credential: AuthCredential) -> dict[str, str]:
    if credential.auth_type != "apiKey" or not credential.api_key:
        raise UnsupportedAuth(
            "an apiKey scheme needs `auth_credential: {auth_type: apiKey, api_key: ...}`.",
            key="auth_credential",
        )
    if scheme.in_ not in (None, "header"):
        raise UnsupportedAuth(
            f"API keys are sent in a header only (as google-adk), not `in: {scheme.in_}`.",
            key="auth_scheme",
        )
    if not scheme.name:
        raise UnsupportedAuth(
            "an apiKey scheme needs `name`, the header, e.g. X-API-Key.", key="auth_scheme"
        )
    return {scheme.name: credential.api_key}


def _http(credential: AuthCredential) -> dict[str, str]:
    http = credential.http
    if credential.auth_type != "http" or http is None:
        raise UnsupportedAuth(
            "an http scheme needs `auth_credential: {auth_type: http, http: {scheme: bearer,"
            " credentials: {token: ...}}}`.",
            key="auth_credential",
        )
    given = http.credentials
    headers: dict[str, str] = {}
    if http.scheme.lower() == "basic":
        if not (given.username and given.password):
            raise UnsupportedAuth(
                "basic auth needs `credentials: {username: ..., password: ...}`.",
                key="auth_credential",
            )
        pair = base64.b64encode(f"{given.username}:{given.password}".encode()).decode()
        headers["Authorization"] = f"Basic {pair}"
    elif given.token:
        name = "Bearer" if http.scheme.lower() == "bearer" else http.scheme
        headers["Authorization"] = f"{name} {given.token}"
    elif not http.additional_headers:
        raise UnsupportedAuth(
            f"{http.scheme} auth needs `credentials: {{token: ...}}`.", key="auth_credential"
        )
    headers.update(http.additional_headers or {})
    return headers


def merge_headers(provided: dict[str, str] | None, auth: dict[str, str]) -> dict[str, str]:
    """A header provider's headers with the auth headers on top (names compared without case),
    as google-adk merges them."""
    names = {name.lower() for name in auth}
    merged = {k: v for k, v in (provided or {}).items() if k.lower() not in names}
    merged.update(auth)
    return merged

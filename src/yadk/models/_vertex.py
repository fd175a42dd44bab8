"""Where a Gemini request goes on Vertex AI, and how it is authorised there.

Vertex is chosen as google-genai chooses it: ``GOOGLE_GENAI_USE_VERTEXAI`` is ``true`` or ``1``.
With ``GOOGLE_CLOUD_PROJECT`` set, requests go to the project's ``GOOGLE_CLOUD_LOCATION``
(default ``us-central1``; ``global`` is served by ``aiplatform.googleapis.com``) and carry an
OAuth token from Application Default Credentials (``google-auth``, the ``yadk[vertex]`` extra).
Without a project, ``GOOGLE_API_KEY`` selects express mode: no project in the path, the key in
the ``x-goog-api-key`` header. ``GOOGLE_VERTEX_BASE_URL`` replaces the host.

google-auth (an optional dependency, the ``vertex`` extra) is imported only when Vertex AI
credentials are needed.
"""

from __future__ import annotations

import asyncio
import os
import threading
import urllib.parse
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from yadk.errors import ModelError

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

__all__ = ["CLOUD_PLATFORM_SCOPE", "GoogleAuth", "VertexTarget", "vertex_target"]

CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
DEFAULT_LOCATION = "us-central1"
_GLOBAL_HOST = "https://aiplatform.googleapis.com"
_INSTALL_HINT = "Install the Vertex AI extra: pip install 'yadk[vertex]'."
_ADC_HINT = (
    "Run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a"
    " service-account key file; for express mode, unset GOOGLE_CLOUD_PROJECT and set"
    " GOOGLE_API_KEY."
)


@dataclass(frozen=True)
class VertexTarget:
    """Vertex AI settings from the environment: a project (ADC) or an API key (express)."""

    project: str | None
    location: str
    api_key: str | None
    base_url: str | None

    @property
    def host(self) -> str:
        if self.base_url:
            return self.base_url.rstrip("/")
        if self.project is None or self.location == "global":
            return _GLOBAL_HOST
        return f"https://{self.location}-aiplatform.googleapis.com"

    def url(self, model: str, method: str) -> str:
        """The URL of ``method`` (``generateContent``, ...) for ``model``; a resource name
        (``projects/.../endpoints/...``) is the path as it is."""
        if model.startswith("projects/"):
            path = model
        elif self.project is None:
            path = f"publishers/google/models/{model}"
        else:
            path = (
                f"projects/{self.project}/locations/{self.location}/publishers/google/models/"
                f"{model}"
            )
        return f"{self.host}/v1/{urllib.parse.quote(path)}:{method}"


def vertex_target(environ: Mapping[str, str] | None = None) -> VertexTarget | None:
    """The Vertex AI settings when ``GOOGLE_GENAI_USE_VERTEXAI`` asks for Vertex, else None."""
    env = os.environ if environ is None else environ
    if env.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() not in ("true", "1"):
        return None
    return VertexTarget(
        project=env.get("GOOGLE_CLOUD_PROJECT") or None,
        location=env.get("GOOGLE_CLOUD_LOCATION") or DEFAULT_LOCATION,
        api_key=env.get("GOOGLE_API_KEY") or None,
        base_url=env.get("GOOGLE_VERTEX_BASE_URL") or None,
    )


class GoogleAuth(httpx.Auth):
    """``Authorization: Bearer`` from Application Default Credentials, loaded on first use.

    Loading and refreshing do blocking I/O (files, the token endpoint, the metadata server), so
    they run in a worker thread, one at a time. A 401 answer refreshes the token once and sends
    the request once more (a token revoked or rotated before its expiry).
    """

    def __init__(self, service: str, credentials: Credentials | None = None) -> None:
        self._service = service
        self._credentials = credentials
        self._lock = threading.Lock()

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        token = await asyncio.to_thread(self._token, False)
        request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == 401:
            token = await asyncio.to_thread(self._token, True)
            request.headers["Authorization"] = f"Bearer {token}"
            yield request

    def _token(self, force_refresh: bool) -> str:
        with self._lock:
            credentials = self._credentials or self._load()
            self._credentials = credentials
            if force_refresh or not credentials.valid:
                self._refresh(credentials)
            return str(credentials.token)

    def _load(self) -> Credentials:
        try:
            import google.auth
            from google.auth.exceptions import DefaultCredentialsError
        except ImportError:
            raise ModelError(
                f"{self._service}: Vertex AI with a project needs google-auth for Application"
                f" Default Credentials. {_INSTALL_HINT}"
            ) from None
        try:
            credentials, _ = google.auth.default(scopes=[CLOUD_PLATFORM_SCOPE])
        except DefaultCredentialsError as exc:
            raise ModelError(
                f"{self._service}: no Application Default Credentials ({exc}). {_ADC_HINT}"
            ) from None
        return credentials

    def _refresh(self, credentials: Credentials) -> None:
        from google.auth.exceptions import GoogleAuthError

        # google-auth's methods carry no annotations; typed here for mypy.
        refresh: Callable[[_HttpxRequest], None] = credentials.refresh
        try:
            refresh(_HttpxRequest())
        except GoogleAuthError as exc:
            raise ModelError(
                f"{self._service}: could not get an access token ({exc}). {_ADC_HINT}"
            ) from None


class _HttpxRequest:
    """google-auth's transport interface (``google.auth.transport.Request``) on a short-lived
    synchronous ``httpx`` client, so the extra needs no ``requests``."""

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> _HttpxResponse:
        from google.auth.exceptions import TransportError

        failure: type[Exception] = TransportError  # the error google-auth's flows expect
        try:
            with httpx.Client(timeout=timeout if timeout is not None else 60.0) as client:
                response = client.request(method, url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise failure(f"{type(exc).__name__}: {exc}") from None
        return _HttpxResponse(response)


class _HttpxResponse:
    """google-auth's ``google.auth.transport.Response`` over an ``httpx.Response``."""

    def __init__(self, response: httpx.Response) -> None:
        self.status = response.status_code
        self.headers = dict(response.headers)
        self.data = response.content

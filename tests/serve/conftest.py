"""Serve tests: the echo agent (twin of the one google-adk's fixtures were recorded with) in a
temporary folder, an app with in-memory stores, and an in-process ASGI client."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from yadk.artifacts import InMemoryArtifactService
from yadk.serve import create_app
from yadk.sessions import InMemorySessionService

AGENTS = Path(__file__).parent / "agents"

Client = httpx.AsyncClient


@pytest.fixture
def apps_dir(tmp_path: Path) -> Path:
    target = tmp_path / "agents"
    shutil.copytree(AGENTS, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
def make_client(apps_dir: Path) -> Callable[..., Any]:
    """``async with make_client(**create_app_options) as client``: a running app (lifespan
    included) behind an httpx client."""

    class _Running:
        def __init__(self, path: Path | None = None, **options: Any) -> None:
            options.setdefault("session_service", InMemorySessionService())
            options.setdefault("artifact_service", InMemoryArtifactService())
            self.app = create_app(path or apps_dir, **options)

        async def __aenter__(self) -> httpx.AsyncClient:
            self._lifespan = self.app.router.lifespan_context(self.app)
            await self._lifespan.__aenter__()
            self.client = httpx.AsyncClient(
                transport=httpx.ASGITransport(app=self.app), base_url="http://testserver"
            )
            return self.client

        async def __aexit__(self, *exc: object) -> None:
            await self.client.aclose()
            await self._lifespan.__aexit__(None, None, None)

    return _Running


@pytest.fixture
async def client(make_client: Callable[..., Any]) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client() as running:
        yield running


def message(text: str, session: str = "s1", **extra: Any) -> dict[str, Any]:
    return {
        "appName": "echo",
        "userId": "u1",
        "sessionId": session,
        "newMessage": {"role": "user", "parts": [{"text": text}]},
        **extra,
    }


def sse_events(body: str) -> list[dict[str, Any]]:
    """Parse an SSE body strictly: frames separated by a blank line, each one ``data:`` line."""
    import json

    assert body.endswith("\n\n"), body[-50:]
    frames = body[:-2].split("\n\n")
    out = []
    for chunk in frames:
        if chunk.startswith(":"):
            continue
        assert "\n" not in chunk, chunk
        assert chunk.startswith("data: "), chunk
        out.append(json.loads(chunk[6:]))
    return out

"""Safe by default: bearer token, body size limit, CORS allow-list, app names matched against
the listed apps, 4xx ``{"detail": ...}`` for every kind of bad input, and never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.conftest import message

from yadk.artifacts import FileArtifactService
from yadk.sessions import InMemorySessionService

S = "/apps/echo/users/u1/sessions"


async def test_a_token_is_required_on_every_route_but_health(
    make_client: Callable[..., Any],
) -> None:
    async with make_client(token="s3cret") as client:
        assert (await client.get("/health")).status_code == 200
        missing = await client.get("/list-apps")
        assert missing.status_code == 401
        assert missing.headers["www-authenticate"] == "Bearer"
        assert missing.json() == {
            "detail": "Missing bearer token: send 'Authorization: Bearer TOKEN' with the"
            " server's --token."
        }
        wrong = await client.get("/list-apps", headers={"Authorization": "Bearer nope"})
        assert (wrong.status_code, wrong.json()) == (401, {"detail": "Invalid bearer token."})
        for path in ("/openapi.json", "/docs", S, "/run"):
            assert (await client.get(path)).status_code == 401, path
        right = await client.get("/list-apps", headers={"Authorization": "Bearer s3cret"})
        assert right.json() == ["echo"]


async def test_a_body_over_10_mb_gets_413(client: httpx.AsyncClient) -> None:
    big = b'{"state": {"x": "' + b"a" * (10 * 1024 * 1024) + b'"}}'
    response = await client.post(S, content=big, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"detail": "Request body too large: the limit is 10485760 bytes."}
    assert (await client.get(S)).json() == []  # nothing was created


async def test_a_streamed_body_over_the_limit_gets_413_without_content_length(
    make_client: Callable[..., Any],
) -> None:
    async def chunks() -> Any:
        for _ in range(10):
            yield b"x" * 500

    async with make_client(max_body=2000) as client:
        response = await client.post(S, content=chunks())
        assert response.status_code == 413


async def test_cors_only_for_allowed_origins(make_client: Callable[..., Any]) -> None:
    preflight = {
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    async with make_client() as client:
        response = await client.get("/list-apps", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in response.headers
    async with make_client(allow_origins=["https://app.example.com"]) as client:
        ok = await client.options(
            "/run", headers={"Origin": "https://app.example.com", **preflight}
        )
        assert ok.headers["access-control-allow-origin"] == "https://app.example.com"
        other = await client.options(
            "/run", headers={"Origin": "https://evil.example", **preflight}
        )
        assert "access-control-allow-origin" not in other.headers
        simple = await client.get("/list-apps", headers={"Origin": "https://app.example.com"})
        assert simple.headers["access-control-allow-origin"] == "https://app.example.com"


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "detail"),
    [
        (
            "GET",
            "/apps/nope/users/u1/sessions",
            None,
            404,
            "App not found: 'nope'. Served apps: echo",
        ),
        (
            "POST",
            "/apps/nope/users/u1/sessions",
            {},
            404,
            "App not found: 'nope'. Served apps: echo",
        ),
        ("GET", "/apps/..%2Fecho/users/u1/sessions", None, 404, "Not Found"),
        ("GET", "/apps/%2Fetc%2Fpasswd/users/u1/sessions", None, 404, "Not Found"),
        (
            "GET",
            "/apps/.../users/u1/sessions",
            None,
            404,
            "App not found: '...'. Served apps: echo",
        ),
        (
            "POST",
            "/run",
            message("hi") | {"appName": "../echo"},
            404,
            "App not found: '../echo'. Served apps: echo",
        ),
        ("POST", "/run", message("hi", session="nope"), 404, "Session not found: nope"),
        ("POST", "/run_sse", message("hi", session="nope"), 404, "Session not found: nope"),
        ("GET", f"{S}/nope", None, 404, "Session not found"),
        ("GET", f"{S}/s1/artifacts/nothing", None, 404, "Artifact not found"),
        ("GET", f"{S}/s1/artifacts/a/versions/x", None, 422, "Invalid version ID"),
        (
            "POST",
            f"{S}/s1/artifacts",
            {"filename": "..", "artifact": {"text": "x"}},
            400,
            "Invalid artifact name '..'.",
        ),
    ],
)
async def test_bad_requests_get_a_4xx_detail(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    body: Any,
    status: int,
    detail: str,
) -> None:
    await client.post(S, json={"sessionId": "s1"})
    response = await client.request(method, path, json=body)
    assert (response.status_code, response.json()) == (status, {"detail": detail})


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'{"appName": "echo", "userId": "u1", "sessionId": "s1", "newMessage": "hi"}',
        b'{"appName": "echo", "userId": "u1", "sessionId": "s1", "newMessage": {"parts": [{"bogus": 1}]}}',
        b'{"appName": "echo", "userId": "u1", "sessionId": "s1", "streaming": "lots"}',
        b'{"appName": "echo", "userId": "u1", "sessionId": "s1", "stateDelta": []}',
        b'{"appName": 7, "userId": "u1", "sessionId": "s1"}',
        b'{"appName": "echo", "userId": "' + b"u" * 300 + b'", "sessionId": "s1"}',
    ],
)
async def test_malformed_or_invalid_run_bodies_get_422(
    client: httpx.AsyncClient, body: bytes
) -> None:
    await client.post(S, json={"sessionId": "s1"})
    for route in ("/run", "/run_sse"):
        response = await client.post(
            route, content=body, headers={"content-type": "application/json"}
        )
        assert response.status_code == 422, (route, response.text)
        assert isinstance(response.json()["detail"], list)


async def test_traversal_looking_ids_and_artifact_names_are_only_keys(
    make_client: Callable[..., Any], tmp_path: Path
) -> None:
    store = tmp_path / "store" / "artifacts"
    user, session = "..\\..\\etc", "..."
    base = f"/apps/echo/users/{user}/sessions"
    async with make_client(artifact_service=FileArtifactService(store)) as client:
        created = await client.post(base, json={"sessionId": session})
        assert (created.json()["userId"], created.json()["id"]) == (user, session)
        for name in ("../../escape.txt", "/etc/escape.txt", "a/../../escape.txt"):
            saved = await client.post(
                f"{base}/{session}/artifacts", json={"filename": name, "artifact": {"text": "x"}}
            )
            assert saved.status_code == 200, saved.text
        listed = (await client.get(f"{base}/{session}/artifacts")).json()
        assert sorted(listed) == sorted(
            ["../../escape.txt", "/etc/escape.txt", "a/../../escape.txt"]
        )
    assert [p for p in tmp_path.rglob("*escape*") if store not in p.parents] == []


async def test_an_app_that_does_not_load_answers_503_and_the_others_serve(
    make_client: Callable[..., Any], apps_dir: Path
) -> None:
    broken = apps_dir / "broken"
    broken.mkdir()
    (broken / "root_agent.yaml").write_text("name: broken\ninstruction: Hi.\ncolour: red\n")
    async with make_client() as client:
        assert (await client.get("/list-apps")).json() == ["broken", "echo"]
        created = await client.post("/apps/broken/users/u1/sessions", json={"sessionId": "s1"})
        assert created.status_code == 503
        assert created.json()["diagnostics"][0]["rule"] == "unknown-key"
        response = await client.post("/run", json=message("hi") | {"appName": "broken"})
        assert response.status_code == 503
        data = response.json()
        assert data["detail"].startswith(f"App 'broken' is not available: {broken} was not loaded")
        [diagnostic] = data["diagnostics"]
        assert (diagnostic["path"], diagnostic["line"], diagnostic["column"]) == (
            str(broken / "root_agent.yaml"),
            3,
            1,
        )
        assert diagnostic["rule"] == "unknown-key"
        detailed = (await client.get("/list-apps?detailed=true")).json()["apps"]
        assert [(a["name"], a.get("ok", True)) for a in detailed] == [
            ("broken", False),
            ("echo", True),
        ]
        await client.post(S, json={"sessionId": "s1"})
        assert (await client.post("/run", json=message("hi"))).status_code == 200


async def test_a_crash_below_the_routes_is_a_json_500_without_traceback(
    make_client: Callable[..., Any],
) -> None:
    class Broken(InMemorySessionService):
        async def list_sessions(self, **kwargs: Any) -> Any:
            raise RuntimeError("disk on fire")

    async with make_client(session_service=Broken()) as client:
        response = await client.get(S)
        assert response.status_code == 500
        assert response.json() == {
            "detail": "Internal server error (RuntimeError); the server log has the details."
        }
        assert (await client.get("/health")).status_code == 200


async def test_the_agent_card_names_the_endpoint_it_is_served_at(
    client: httpx.AsyncClient,
) -> None:
    card = (await client.get("/.well-known/agent-card.json")).json()
    assert card["name"] == "echo"
    assert card["url"] == "http://testserver/a2a/echo"
    assert card["description"] == "Echoes what it is told."

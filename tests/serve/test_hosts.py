"""Host and Origin checks of ``yadk serve`` (the policy ``yadk web`` applies too): a web page
cannot drive the server by DNS rebinding or by a cross-site request, token or not."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.conftest import AGENTS
from tests.serve.test_server import Server

from yadk.serve._hosts import allowed_hosts, with_port

LOOPBACK = allowed_hosts("127.0.0.1", 8000)
REBINDING = (
    "Host 'evil.example:8000' is not served here; send the address the server was started"
    " for, or start it with --allow-host NAME (requests for other host names are refused"
    " against DNS rebinding)."
)


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "127.0.0.1:8000"}, 200),
        ({"Host": "localhost:8000"}, 200),
        ({"Host": "[::1]:8000"}, 200),
        ({"Host": "evil.example:8000"}, 403),
        ({"Host": "127.0.0.1.evil.example:8000"}, 403),
        ({"Host": ""}, 403),
        ({"Host": "127.0.0.1:8000", "Origin": "http://127.0.0.1:8000"}, 200),
        ({"Host": "127.0.0.1:8000", "Origin": "https://app.example.com"}, 200),
        ({"Host": "127.0.0.1:8000", "Origin": "http://evil.example"}, 403),
        ({"Host": "127.0.0.1:8000", "Origin": "null"}, 403),
    ],
)
async def test_only_the_served_hosts_and_origins_are_answered(
    make_client: Callable[..., Any], headers: dict[str, str], status: int
) -> None:
    running = make_client(hosts=LOOPBACK, allow_origins=["https://app.example.com"])
    async with running as client:
        response = await client.get("/list-apps", headers=headers)
    assert response.status_code == status, response.text
    if status == 200:
        assert response.json() == ["echo"]


async def test_the_refusals_say_what_to_do(make_client: Callable[..., Any]) -> None:
    async with make_client(hosts=LOOPBACK, token="s3cret") as client:
        auth = {"Authorization": "Bearer s3cret"}
        rebound = await client.get("/list-apps", headers={**auth, "Host": "evil.example:8000"})
        assert (rebound.status_code, rebound.json()) == (403, {"detail": REBINDING})
        page = await client.post(
            "/run", headers={**auth, "Host": "localhost:8000", "Origin": "http://evil.example"}
        )
        assert page.json() == {
            "detail": "Origin 'http://evil.example' may not use this server: only pages it"
            " serves may or those named by --allow-origin (cross-site requests are refused)."
        }
        # Probes reach /health whatever name they use.
        health = await client.get("/health", headers={"Host": "10.0.0.7:8000"})
        assert health.status_code == 200


async def test_any_host_still_refuses_other_sites_pages(make_client: Callable[..., Any]) -> None:
    async with make_client(hosts=["*"]) as client:
        named = await client.get("/list-apps", headers={"Host": "agents.internal"})
        assert named.status_code == 200
        same = {"Host": "agents.internal", "Origin": "https://agents.internal"}
        assert (await client.get("/list-apps", headers=same)).status_code == 200
        other = {"Host": "agents.internal", "Origin": "https://evil.example"}
        assert (await client.get("/list-apps", headers=other)).status_code == 403


def test_allow_host_names_with_and_without_port() -> None:
    assert with_port("agents.example.com", 8000) == {
        "agents.example.com",
        "agents.example.com:8000",
    }
    assert with_port("proxy:443", 8000) == {"proxy:443"}
    assert with_port("[::1]:9000", 8000) == {"[::1]:9000"}


async def test_a_bearer_scheme_in_any_case_is_accepted(make_client: Callable[..., Any]) -> None:
    async with make_client(token="s3cret") as client:
        for scheme in ("Bearer", "bearer", "BEARER", "bEaReR"):
            response = await client.get("/list-apps", headers={"Authorization": f"{scheme} s3cret"})
            assert response.status_code == 200, scheme
        for wrong in ("Basic s3cret", "Bearer", "s3cret", "Bearers3cret", "Bearer s3cre"):
            response = await client.get("/list-apps", headers={"Authorization": wrong})
            assert response.json() == {"detail": "Invalid bearer token."}, wrong


@pytest.mark.subprocess
def test_yadk_serve_refuses_rebound_hosts_with_or_without_a_token(tmp_path: Path) -> None:
    shutil.copytree(AGENTS, tmp_path / "agents", ignore=shutil.ignore_patterns("__pycache__"))
    plain = Server("agents", "--db", ":memory:", cwd=tmp_path)
    try:
        with httpx.Client(base_url=plain.url, timeout=30) as client:
            assert client.get("/list-apps").json() == ["echo"]
            rebound = client.get("/list-apps", headers={"Host": f"evil.example:{plain.port}"})
            assert rebound.status_code == 403
            page = client.post(
                "/apps/echo/users/u/sessions", headers={"Origin": "http://evil.example"}
            )
            assert page.status_code == 403
    finally:
        plain.stop()
    guarded = Server(
        "agents", "--db", ":memory:", "--token", "t0k", "--allow-host", "agents.test",
        cwd=tmp_path,
    )  # fmt: skip
    try:
        auth = {"Authorization": "Bearer t0k"}
        with httpx.Client(base_url=guarded.url, timeout=30, headers=auth) as client:
            assert client.get("/list-apps").status_code == 200
            evil = client.get("/list-apps", headers={"Host": f"evil.example:{guarded.port}"})
            assert evil.status_code == 403
            for name in ("agents.test", f"agents.test:{guarded.port}"):
                assert client.get("/list-apps", headers={"Host": name}).status_code == 200
    finally:
        guarded.stop()


def test_a_server_on_port_0_answers_its_names_on_any_port() -> None:
    import argparse

    from yadk.cli._serve import _hosts
    from yadk.serve._hosts import HostPolicy

    args = argparse.Namespace(host="127.0.0.1", port=0, allow_host=["agents.test"])
    hosts = _hosts(args)
    assert hosts == {"127.0.0.1:*", "localhost:*", "[::1]:*", "agents.test", "agents.test:*"}
    policy = HostPolicy(hosts)
    assert policy.refusal("127.0.0.1:40123", None) is None
    assert policy.refusal("agents.test:40123", "http://localhost:40123") is None
    assert policy.refusal("evil.example:40123", None) is not None
    assert policy.refusal("127.0.0.1:40123", "http://evil.example:40123") is not None
    assert policy.refusal("127.0.0.1:x", None) is not None

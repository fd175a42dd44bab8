"""Host and Origin checks: DNS-rebinding and CSRF protection of the web UI's server."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from yadk.serve._devguard import HostOriginGuard, allowed_hosts


async def _ok(scope: dict[str, Any], receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def _client(hosts: set[str]) -> httpx.AsyncClient:
    app = HostOriginGuard(_ok, hosts=hosts)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://x")


def test_allowed_hosts() -> None:
    loopback = {"127.0.0.1:8000", "localhost:8000", "[::1]:8000"}
    assert allowed_hosts("127.0.0.1", 8000) == loopback
    assert allowed_hosts("localhost", 8000) == loopback
    assert allowed_hosts("192.168.1.5", 9000) == {"192.168.1.5:9000"}
    assert allowed_hosts("0.0.0.0", 8000) == loopback | {"0.0.0.0:8000"}
    assert allowed_hosts("::1", 8000) == loopback
    assert "127.0.0.1" in allowed_hosts("127.0.0.1", 80)


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "127.0.0.1:8000"}, 200),
        ({"Host": "LOCALHOST:8000"}, 200),
        ({"Host": "127.0.0.1:8000", "Origin": "http://127.0.0.1:8000"}, 200),
        ({"Host": "localhost:8000", "Origin": "http://localhost:8000"}, 200),
        # DNS rebinding: evil.example resolved to 127.0.0.1, the request names evil.example.
        ({"Host": "evil.example:8000"}, 403),
        ({"Host": "127.0.0.1:8001"}, 403),
        # CSRF: a page of another site posting to the server.
        ({"Host": "127.0.0.1:8000", "Origin": "http://evil.example"}, 403),
        ({"Host": "127.0.0.1:8000", "Origin": "null"}, 403),
        ({"Host": "127.0.0.1:8000", "Origin": "http://127.0.0.1:9999"}, 403),
    ],
)
async def test_requests_for_other_hosts_or_from_other_origins_are_refused(
    headers: dict[str, str], status: int
) -> None:
    async with _client(allowed_hosts("127.0.0.1", 8000)) as client:
        response = await client.post("/run_sse", headers=headers)
    assert response.status_code == status
    if status == 403:
        detail = response.json()["detail"]
        assert "refused" in detail
        assert ("Host" in detail) != ("Origin" in detail)
    else:
        assert response.text == "ok"


async def test_refusal_names_the_address_to_use() -> None:
    async with _client({"127.0.0.1:8000"}) as client:
        response = await client.get("/", headers={"Host": "rebound.example"})
    assert response.json() == {
        "detail": "Host 'rebound.example' is not served here; open the UI at"
        " http://127.0.0.1:8000/ (requests for other host names are refused against DNS"
        " rebinding)."
    }

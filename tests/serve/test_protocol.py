"""Every google-adk api_server exchange recorded in fixtures/ (see recording/record.py), replayed
against yadk in the same order: same status, same content type, same JSON shape.

Shape means: the same keys at every level (user data keys such as state keys included), the
same JSON types, lists of the same length. Values that are generated (ids, timestamps,
versions of the server) may differ. The documented differences (docs/serve.md) are listed in
``DIFFERENCES`` and are the only ones allowed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.serve.conftest import sse_events

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = sorted(
    (json.loads(p.read_text(encoding="utf-8")) | {"name": p.stem} for p in FIXTURES.glob("*.json")),
    key=lambda r: r["seq"],
)

# google-adk's artifact services record a creation time; yadk's do not.
ARTIFACT_ONLY_IN_ADK = {"createTime"}


def shape(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        shapes = [shape(item) for item in value]
        if all(isinstance(item, dict) and "userId" in item for item in value):
            return sorted(shapes, key=json.dumps)  # a session list's order is not specified
        return shapes
    if isinstance(value, bool) or value is None:
        return value if value is None else "bool"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def without_adk_only(value: Any) -> Any:
    """The recorded value minus the documented google-adk-only fields."""
    if isinstance(value, list):
        return [without_adk_only(item) for item in value]
    if not isinstance(value, dict):
        return value
    drop = set()
    if "canonicalUri" in value:
        drop = ARTIFACT_ONLY_IN_ADK
    return {k: without_adk_only(v) for k, v in value.items() if k not in drop}


def body_of(response: httpx.Response) -> Any:
    if response.headers["content-type"].startswith("text/event-stream"):
        return sse_events(response.text)
    return response.json()


def recorded_body(record: dict[str, Any]) -> Any:
    answer = record["response"]
    if answer["content_type"].startswith("text/event-stream"):
        return sse_events(answer["body"])
    return answer["body"]


def test_every_route_was_recorded() -> None:
    names = {r["name"] for r in RECORDED}
    for route in ("health", "version", "list_apps", "run", "run_sse", "run_sse_streaming"):
        assert route in names
    assert len(RECORDED) == 42


async def test_yadk_answers_every_recorded_exchange_in_the_same_shape(
    client: httpx.AsyncClient,
) -> None:
    mismatches = []
    for record in RECORDED:
        request = record["request"]
        body = request.get("body")
        if request.get("raw"):
            response = await client.request(
                request["method"],
                request["path"],
                content=body,
                headers={"content-type": "application/json"},
            )
        else:
            response = await client.request(request["method"], request["path"], json=body)
        expected = record["response"]
        got_type = response.headers.get("content-type", "")
        if response.status_code != expected["status"]:
            mismatches.append((record["name"], response.status_code, response.text[:300]))
            continue
        assert got_type.split(";")[0] == expected["content_type"].split(";")[0], record["name"]
        want = shape(without_adk_only(recorded_body(record)))
        got = shape(body_of(response))
        if got != want:
            mismatches.append((record["name"], got, want))
    assert mismatches == []


@pytest.mark.parametrize("name", ["run_malformed_json", "run_missing_fields", "run_wrong_types"])
async def test_validation_errors_are_google_adks_exactly(
    client: httpx.AsyncClient, name: str
) -> None:
    record = next(r for r in RECORDED if r["name"] == name)
    request = record["request"]
    if request.get("raw"):
        response = await client.post(
            "/run", content=request["body"], headers={"content-type": "application/json"}
        )
    else:
        response = await client.post("/run", json=request["body"])
    assert (response.status_code, response.json()) == (422, record["response"]["body"])

"""Fuzzing every operation of ``/openapi.json`` (hypothesis): path parameters with
traversal-looking and odd text, query parameters, bodies that follow the schema loosely or not
at all, raw bytes. No answer is a 5xx, and every error is ``{"detail": ...}`` JSON."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yadk.artifacts import InMemoryArtifactService
from yadk.serve import create_app
from yadk.sessions import InMemorySessionService

AGENTS = Path(__file__).parent / "agents"

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=30),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
odd_text = st.one_of(
    st.sampled_from(["echo", "s1", "u1", "..", ".", "...", "a/b", "%2e%2e", "latest", "0", "-1"]),
    st.text(min_size=1, max_size=24).filter(lambda t: t not in (".", "..")),
)


def value_for(schema: dict[str, Any], components: dict[str, Any], depth: int = 0) -> Any:
    """A strategy for values that follow ``schema`` loosely (right keys, often right types)."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return st.one_of(*(value_for(o, components, depth) for o in options))
    kind = schema.get("type")
    if kind == "object" and "properties" in schema and depth < 3:
        props = {
            name: value_for(sub, components, depth + 1)
            for name, sub in schema["properties"].items()
        }
        return st.fixed_dictionaries({}, optional=props) | json_values
    if kind == "array" and depth < 3:
        return st.lists(value_for(schema.get("items", {}), components, depth + 1), max_size=3)
    typed = {
        "string": st.text(max_size=30),
        "boolean": st.booleans(),
        "integer": st.integers(min_value=-5, max_value=5),
        "number": st.floats(allow_nan=False),
        "null": st.none(),
    }
    return st.one_of(typed.get(kind or "", json_values), json_values)


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if path != "/dev/events"
    ]


def test_no_operation_answers_5xx() -> None:
    app = create_app(
        AGENTS,
        session_service=InMemorySessionService(),
        artifact_service=InMemoryArtifactService(),
    )
    runner = asyncio.Runner()
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://fuzz")
    spec = runner.run(client.get("/openapi.json")).json()
    components = spec.get("components", {}).get("schemas", {})
    ops = operations(spec)
    assert len(ops) >= 20

    @st.composite
    def requests(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
        method, path, op = draw(st.sampled_from(ops))
        query: dict[str, str] = {}
        for param in op.get("parameters", []):
            text = draw(odd_text)
            if param["in"] == "path":
                path = path.replace("{" + param["name"] + "}", quote(text, safe=""))
                path = path.replace("{" + param["name"] + ":path}", quote(text, safe="/"))
            elif draw(st.booleans()):
                query[param["name"]] = text
        options: dict[str, Any] = {"params": query}
        body = op.get("requestBody")
        if body is not None or method in ("POST", "PATCH"):
            schema = (body or {}).get("content", {}).get("application/json", {}).get("schema", {})
            choice = draw(st.integers(0, 2))
            if choice == 0:
                options["content"] = draw(st.binary(max_size=60))
                options["headers"] = {"content-type": "application/json"}
            else:
                options["json"] = draw(value_for(schema, components))
        return method, path, options

    @settings(
        max_examples=100,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        derandomize=True,
    )
    @given(requests())
    def check(request: tuple[str, str, dict[str, Any]]) -> None:
        method, path, options = request
        response = runner.run(client.request(method, path, **options))
        assert response.status_code < 500, (method, path, options, response.text[:300])
        if response.status_code >= 400 and response.status_code != 405:
            assert "detail" in json.loads(response.text), response.text[:300]

    try:
        check()
    finally:
        runner.run(client.aclose())
        runner.close()

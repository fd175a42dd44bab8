"""A2A parts <-> yadk parts, in both protocol versions' shapes (exact dicts both ways)."""

from __future__ import annotations

from typing import Any

import pytest

from yadk.a2a._parts import (
    PartError,
    part_from_a2a,
    part_to_a2a,
    parts_from_a2a,
    parts_to_a2a,
)
from yadk.types import Blob, FileData, FunctionCall, FunctionResponse, Part

DATA_BLOB = b'<a2a_datapart_json>{"city": "Oslo", "n": 2}</a2a_datapart_json>'

# (case, yadk part, A2A 1.0 shape, A2A 0.3 shape)
TABLE: list[tuple[str, Part, dict[str, Any], dict[str, Any]]] = [
    ("text", Part(text="hi"), {"text": "hi"}, {"kind": "text", "text": "hi"}),
    (
        "thought",
        Part(text="hmm", thought=True),
        {"text": "hmm", "metadata": {"adk_thought": True}},
        {"kind": "text", "text": "hmm", "metadata": {"adk_thought": True}},
    ),
    (
        "bytes",
        Part(inline_data=Blob(data=b"\x89PNG", mime_type="image/png", display_name="a.png")),
        {"raw": "iVBORw==", "mediaType": "image/png", "filename": "a.png"},
        {"kind": "file", "file": {"bytes": "iVBORw==", "mimeType": "image/png", "name": "a.png"}},
    ),
    (
        "uri",
        Part(file_data=FileData(file_uri="gs://b/x.pdf", mime_type="application/pdf")),
        {"url": "gs://b/x.pdf", "mediaType": "application/pdf"},
        {"kind": "file", "file": {"uri": "gs://b/x.pdf", "mimeType": "application/pdf"}},
    ),
    (
        "data",
        Part(inline_data=Blob(data=DATA_BLOB, mime_type="text/plain")),
        {"data": {"city": "Oslo", "n": 2}},
        {"kind": "data", "data": {"city": "Oslo", "n": 2}},
    ),
    (
        "function call",
        Part(function_call=FunctionCall(id="c1", name="ask", args={"q": "x"})),
        {
            "data": {"id": "c1", "name": "ask", "args": {"q": "x"}},
            "metadata": {"adk_type": "function_call"},
        },
        {
            "kind": "data",
            "data": {"id": "c1", "name": "ask", "args": {"q": "x"}},
            "metadata": {"adk_type": "function_call"},
        },
    ),
    (
        "function response",
        Part(function_response=FunctionResponse(id="c1", name="ask", response={"ok": True})),
        {
            "data": {"id": "c1", "name": "ask", "response": {"ok": True}},
            "metadata": {"adk_type": "function_response"},
        },
        {
            "kind": "data",
            "data": {"id": "c1", "name": "ask", "response": {"ok": True}},
            "metadata": {"adk_type": "function_response"},
        },
    ),
]
IDS = [row[0] for row in TABLE]


@pytest.mark.parametrize(("case", "part", "v1", "v03"), TABLE, ids=IDS)
def test_yadk_parts_go_out_in_each_versions_shape(
    case: str, part: Part, v1: dict[str, Any], v03: dict[str, Any]
) -> None:
    assert part_to_a2a(part, version="1.0") == v1
    assert part_to_a2a(part, version="0.3") == v03


@pytest.mark.parametrize(("case", "part", "v1", "v03"), TABLE, ids=IDS)
def test_either_versions_shape_reads_back_as_the_same_part(
    case: str, part: Part, v1: dict[str, Any], v03: dict[str, Any]
) -> None:
    assert part_from_a2a(v1) == part
    assert part_from_a2a(v03) == part


def test_a_peers_extra_function_response_fields_are_left_out() -> None:
    part = part_from_a2a(
        {
            "data": {"id": "c", "name": "f", "response": {}, "willContinue": False},
            "metadata": {"adk_type": "function_response"},
        }
    )
    assert part == Part(function_response=FunctionResponse(id="c", name="f", response={}))


def test_a_non_object_data_value_is_wrapped_for_0_3() -> None:
    blob = Part(
        inline_data=Blob(
            data=b"<a2a_datapart_json>[1, 2]</a2a_datapart_json>", mime_type="text/plain"
        )
    )
    assert part_to_a2a(blob, version="1.0") == {"data": [1, 2]}
    assert part_to_a2a(blob, version="0.3") == {"kind": "data", "data": {"value": [1, 2]}}


def test_parts_a2a_cannot_carry_are_left_out() -> None:
    assert parts_to_a2a([Part(), Part(text="a")]) == [{"text": "a"}]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("hi", "message.parts: expected a list of parts, got a string"),
        ([3], "message.parts[0]: expected an object, got int"),
        ([{"text": 3}], "message.parts[0].text: expected a string, got int"),
        (
            [{"text": "a"}, {"kind": "video"}],
            "message.parts[1]: expected one of text, raw, url, data (A2A 1.0) or a kind of text,"
            " file, data (A2A 0.3)",
        ),
        ([{"raw": "***"}], "message.parts[0]: the bytes are not valid base64"),
        ([{"kind": "file", "file": {}}], "message.parts[0].file: expected base64 bytes or a URI"),
        (
            [{"data": {"args": {}}, "metadata": {"adk_type": "function_call"}}],
            "message.parts[0].data: not a valid function_call: Field required (name)",
        ),
        (
            [{"text": "a", "metadata": []}],
            "message.parts[0].metadata: expected an object, got a list",
        ),
    ],
)
def test_unreadable_parts_say_where_and_what_was_expected(value: Any, message: str) -> None:
    with pytest.raises(PartError) as caught:
        parts_from_a2a(value)
    assert str(caught.value).startswith(message)

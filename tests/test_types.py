"""yadk.types accepts the google-genai shapes, snake_case and camelCase."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from yadk.types import Content, ModelContent, Part, UserContent, content_text


@pytest.mark.parametrize(
    "data",
    [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "user", "parts": [{"text": "hi", "thought": None, "inline_data": None}]},
    ],
)
def test_plain_dict_shapes(data: dict) -> None:
    content = Content.model_validate(data)
    assert content.role == "user"
    assert content.parts[0].text == "hi"


@pytest.mark.parametrize(
    "key_call, key_resp, key_blob, key_mime",
    [
        ("function_call", "function_response", "inline_data", "mime_type"),
        ("functionCall", "functionResponse", "inlineData", "mimeType"),
    ],
)
def test_snake_and_camel_case(key_call: str, key_resp: str, key_blob: str, key_mime: str) -> None:
    content = Content.model_validate(
        {
            "role": "model",
            "parts": [
                {key_call: {"name": "f", "args": {"x": 1}}},
                {key_resp: {"name": "f", "response": {"ok": True}}},
                {key_blob: {key_mime: "text/plain", "data": "aGVsbG8="}},
            ],
        }
    )
    assert content.parts[0].function_call.name == "f"
    assert content.parts[0].function_call.args == {"x": 1}
    assert content.parts[1].function_response.response == {"ok": True}
    assert content.parts[2].inline_data.data == b"hello"
    assert content.parts[2].inline_data.mime_type == "text/plain"


def test_json_round_trip_encodes_bytes_as_base64() -> None:
    part = Part.from_bytes(data=b"\x00\x01", mime_type="application/octet-stream")
    assert part.to_dict() == {
        "inline_data": {"mime_type": "application/octet-stream", "data": "AAE="}
    }
    assert Part.model_validate(part.to_dict()) == part


def test_unknown_key_is_an_error() -> None:
    with pytest.raises(ValidationError, match="txt"):
        Content.model_validate({"role": "user", "parts": [{"txt": "typo"}]})


def test_user_and_model_content_helpers() -> None:
    assert UserContent("hi").to_dict() == {"role": "user", "parts": [{"text": "hi"}]}
    assert UserContent(parts=[Part(text="a"), "b"]).to_dict() == {
        "role": "user",
        "parts": [{"text": "a"}, {"text": "b"}],
    }
    assert ModelContent(Part.from_function_call(name="f", args={})).to_dict() == {
        "role": "model",
        "parts": [{"function_call": {"name": "f", "args": {}}}],
    }


def test_accepts_foreign_pydantic_objects() -> None:
    from pydantic import BaseModel

    class ForeignPart(BaseModel):
        text: str | None = None
        video_metadata: dict | None = None

    part = Part.model_validate(ForeignPart(text="x"))
    assert part.text == "x"


def test_content_text_skips_thoughts() -> None:
    content = Content(
        role="model", parts=[Part(text="a"), Part(text="t", thought=True), Part(text="b")]
    )
    assert content_text(content) == "ab"
    assert content_text(None) == ""


def test_thought_signature_round_trips_as_base64() -> None:
    part = Part.model_validate({"text": "t", "thoughtSignature": "c2ln"})
    assert part.thought_signature == b"sig"
    assert part.to_dict() == {"text": "t", "thought_signature": "c2ln"}


def test_event_ids_are_random_version_4_uuids_in_their_text_form() -> None:
    import uuid

    from yadk.events import Event, new_event_id

    ids = [new_event_id() for _ in range(2000)] + [Event(author="a").id for _ in range(10)]
    assert len(set(ids)) == len(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, text)

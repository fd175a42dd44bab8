"""``{artifact.NAME}``: loading, errors, and rendering a Part as prompt text.

Text renders as google-adk 2.13 renders it. Where google-adk inserts ``str(part)`` (images, PDFs,
audio, file references: a dump of every pydantic field), yadk inserts a one-line marker instead.
"""

from __future__ import annotations

import io
import zipfile
from typing import TYPE_CHECKING

import pytest

from yadk.errors import TemplateKeyError, TemplateValueError
from yadk.templating import artifact_to_text, inject_session_state
from yadk.types import Blob, FileData, FunctionCall, Part

if TYPE_CHECKING:
    from tests.templating.conftest import MakeContext


def docx(*paragraphs: str) -> bytes:
    body = "".join(
        f'<w:p><w:pPr><w:jc w:val="left"/></w:pPr><w:r><w:t xml:space="preserve">{text}</w:t>'
        "</w:r></w:p>"
        for text in paragraphs
    )
    xml = (
        '<?xml version="1.0"?><w:document xmlns:w='
        '"http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f"<w:body>{body}</w:body></w:document>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/document.xml", xml)
    return buffer.getvalue()


def blob(mime_type: str | None, data: bytes | None) -> Part:
    return Part(inline_data=Blob(mime_type=mime_type, data=data))


@pytest.mark.parametrize(
    ("name", "part", "expected"),
    [
        # the same text google-adk renders
        ("notes", Part(text="hello world"), "hello world"),
        ("empty", Part(text=""), ""),
        ("a.txt", blob("text/plain", b"plain"), "plain"),
        ("a", blob("text/plain; charset=utf-8", "héllo".encode()), "héllo"),
        ("a", blob("Text/Markdown", b"# Title"), "# Title"),
        ("a", blob("application/json", b'{"k": 1}'), '{"k": 1}'),
        ("a", blob("application/xml", b"<a/>"), "<a/>"),
        ("a", blob("image/svg+xml", b"<svg/>"), "<svg/>"),
        ("rows.csv", blob("application/octet-stream", b"a,b\n1,2"), "a,b\n1,2"),
        ("data.JSON", blob(None, b"[1]"), "[1]"),
        ("bad", blob("text/plain", b"ok \xff"), "ok \ufffd"),
        (
            "letter.docx",
            blob("application/octet-stream", docx("Dear Ada,", "Thanks.")),
            "Dear Ada,\nThanks.",
        ),
        (
            "blob.bin",
            blob("application/octet-stream", bytes(1536)),
            (
                "[Binary artifact: blob.bin, type: application/octet-stream, size: 1.5 KB. "
                "Content cannot be displayed inline.]"
            ),
        ),
        (
            "raw",
            blob(None, b"abc"),
            (
                "[Binary artifact: raw, type: application/octet-stream, size: 0.0 KB. "
                "Content cannot be displayed inline.]"
            ),
        ),
        (
            "nothing",
            blob("application/zip", None),
            "[Artifact: nothing, type: application/zip. No inline data was provided.]",
        ),
        # deliberately better than google-adk, which dumps str(part) for these
        (
            "logo.png",
            blob("image/png", b"\x89PNG" + bytes(2044)),
            (
                "[Binary artifact: logo.png, type: image/png, size: 2.0 KB. "
                "Content cannot be displayed inline.]"
            ),
        ),
        (
            "report.pdf",
            blob("application/pdf", bytes(10240)),
            (
                "[Binary artifact: report.pdf, type: application/pdf, size: 10.0 KB. "
                "Content cannot be displayed inline.]"
            ),
        ),
        (
            "clip",
            blob("audio/wav", None),
            "[Artifact: clip, type: audio/wav. No inline data was provided.]",
        ),
        (
            "remote",
            Part(file_data=FileData(file_uri="gs://bucket/x.pdf", mime_type="application/pdf")),
            (
                "[File artifact: remote, type: application/pdf, uri: gs://bucket/x.pdf. "
                "Content cannot be displayed inline.]"
            ),
        ),
        (
            "call",
            Part(function_call=FunctionCall(name="f", args={"a": 1})),
            '{"function_call": {"args": {"a": 1}, "name": "f"}}',
        ),
        ("blank", Part(), ""),
    ],
)
def test_artifact_to_text(name: str, part: Part, expected: str) -> None:
    assert artifact_to_text(part, name) == expected


def test_artifact_to_text_accepts_google_genai_shaped_dicts() -> None:
    assert artifact_to_text({"text": "hi", "thought": None}, "a") == "hi"


def test_artifact_to_text_falls_back_to_str_for_foreign_objects() -> None:
    assert artifact_to_text(42, "a") == "42"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("Notes: {artifact.notes}", "Notes: hello world"),
        ("{ artifact.notes }", "hello world"),
        ("{artifact.notes?}", "hello world"),
        ("{artifact.report.v2.txt}", "v2 text"),
        ("{artifact.user:profile}", "user-scoped"),
        ("[{artifact.missing?}]", "[]"),
        ("[{artifact.?}]", "[]"),
        ("{artifact.notes} and {name}", "hello world and Ada"),
        # the artifact's text is inserted verbatim, never re-scanned
        ("{artifact.braces}", "{name}"),
    ],
)
async def test_artifact_placeholders(
    make_context: MakeContext, template: str, expected: str
) -> None:
    ctx = await make_context(
        {"name": "Ada"},
        artifacts={
            "notes": "hello world",
            "report.v2.txt": "v2 text",
            "user:profile": "user-scoped",
            "braces": "{name}",
        },
    )
    assert await inject_session_state(template, ctx) == expected


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{artifact.missing}", "Artifact 'missing' not found in agent 'support'."),
        ("{artifact. spaced}", "Artifact ' spaced' not found in agent 'support'."),
        # a name the artifact service refuses is simply not found, as in google-adk
        ("{artifact.}", "Artifact '' not found in agent 'support'."),
        ("{artifact...}", "Artifact '..' not found in agent 'support'."),
    ],
)
async def test_missing_required_artifact_is_a_key_error(
    make_context: MakeContext, template: str, message: str
) -> None:
    ctx = await make_context(agent_name="support")
    with pytest.raises(KeyError) as caught:
        await inject_session_state(template, ctx)
    assert isinstance(caught.value, TemplateKeyError)
    assert caught.value.message == message


@pytest.mark.parametrize("template", ["{artifact.notes}", "{artifact.notes?}"])
async def test_no_artifact_service_is_a_value_error_even_when_optional(
    make_context: MakeContext, template: str
) -> None:
    ctx = await make_context(with_artifact_service=False)
    with pytest.raises(ValueError) as caught:
        await inject_session_state(template, ctx)
    assert isinstance(caught.value, TemplateValueError)
    assert str(caught.value) == "Artifact service is not initialized."


async def test_latest_artifact_version_is_rendered(make_context: MakeContext) -> None:
    ctx = await make_context(artifacts={"notes": "v0"})
    ic = ctx.invocation_context
    assert ic.artifact_service is not None
    await ic.artifact_service.save_artifact(
        app_name="app",
        user_id="u",
        session_id=ic.session.id,
        filename="notes",
        artifact=Part(text="v1"),
    )
    assert await inject_session_state("{artifact.notes}", ctx) == "v1"

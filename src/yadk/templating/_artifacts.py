"""Artifacts inside instructions: loading ``{artifact.name}`` and turning a Part into prompt text.

google-adk inserts ``str(part)`` for artifacts it cannot turn into text (images, PDFs, audio,
file references), which dumps every pydantic field of the Part and, for bytes, a truncated
``b'...'`` repr into the prompt. yadk renders text as text and everything else as a one-line
marker naming the artifact, its type and its size.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from pydantic import ValidationError

from yadk.errors import ArtifactError, TemplateKeyError, TemplateValueError
from yadk.types import Part

if TYPE_CHECKING:
    from yadk._contexts import ReadonlyContext

__all__ = ["artifact_to_text", "load_artifact_text"]

_OCTET_STREAM: Final = "application/octet-stream"
_DOCX: Final = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
# Types that are text even though they are not ``text/*`` (SVG and XML images included: they are
# markup, and a model reads them better as text than as an image it may not accept).
_TEXT_TYPES: Final = frozenset(
    {
        "application/csv",
        "application/json",
        "application/svg+xml",
        "application/xml",
        "image/svg",
        "image/svg+xml",
        "image/xml",
    }
)
_TEXT_SUFFIXES: Final = (".csv", ".txt", ".json", ".xml")


def artifact_to_text(artifact: Any, name: str) -> str:
    """The text an instruction shows for artifact ``name``.

    * a text Part: its text;
    * inline bytes of a text type (``text/*``, JSON, CSV, XML, or a ``.txt``/``.csv``/``.json``/
      ``.xml`` name): the bytes decoded as UTF-8; a ``.docx``: its paragraphs;
    * other bytes: ``[Binary artifact: NAME, type: MIME, size: N.N KB. Content cannot be
      displayed inline.]``;
    * a file reference: ``[File artifact: NAME, type: MIME, uri: URI. Content cannot be displayed
      inline.]``;
    * anything else (a function call saved as an artifact, ...): its non-empty fields as JSON.
    """
    part = _as_part(artifact)
    if part is None:
        return str(artifact)
    if part.text is not None:
        return part.text
    if part.inline_data is not None:
        blob = part.inline_data
        return _bytes_to_text(blob.data, _base_mime_type(blob.mime_type), name)
    if part.file_data is not None:
        file = part.file_data
        mime = _base_mime_type(file.mime_type) or "unknown"
        return (
            f"[File artifact: {name}, type: {mime}, uri: {file.file_uri or 'none'}. "
            "Content cannot be displayed inline.]"
        )
    fields = part.to_dict()
    return json.dumps(fields, ensure_ascii=False, sort_keys=True) if fields else ""


async def load_artifact_text(
    readonly_context: ReadonlyContext, name: str, *, optional: bool = False
) -> str:
    """Load artifact ``name`` of the current session as text, with google-adk's errors.

    No artifact service: ``TemplateValueError`` (a ``ValueError``), whether or not the
    placeholder is optional. Missing: ``""`` if ``optional``, else ``TemplateKeyError``.
    """
    ic = readonly_context._invocation_context
    service = ic.artifact_service
    if service is None:
        raise TemplateValueError("Artifact service is not initialized.")
    session = ic.session
    try:
        part = await service.load_artifact(
            app_name=session.app_name,
            user_id=session.user_id,
            session_id=session.id,
            filename=name,
        )
    except ArtifactError:
        # A name the service refuses ("", "..") can name no artifact: treat it as missing, as
        # google-adk's services do.
        part = None
    if part is None:
        if optional:
            return ""
        raise TemplateKeyError(
            f"Artifact '{name}' not found in agent '{readonly_context.agent_name}'."
        )
    return artifact_to_text(part, name)


def _as_part(artifact: Any) -> Part | None:
    if isinstance(artifact, Part):
        return artifact
    try:
        return Part.model_validate(artifact)
    except ValidationError:
        return None


def _base_mime_type(mime_type: str | None) -> str | None:
    """``"Text/Plain; charset=utf-8"`` -> ``"text/plain"``; empty -> ``None``."""
    if not mime_type:
        return None
    return mime_type.split(";", 1)[0].strip().lower() or None


def _bytes_to_text(data: bytes | None, mime: str | None, name: str) -> str:
    mime = mime or _OCTET_STREAM
    if data is None:
        return f"[Artifact: {name}, type: {mime}. No inline data was provided.]"
    lowered = name.lower()
    if mime in (_DOCX, _OCTET_STREAM) or lowered.endswith(".docx"):
        from yadk._docx import docx_text  # only a DOCX artifact needs the reader

        text = docx_text(data)
        if text is not None:
            return text
    if mime.startswith("text/") or mime in _TEXT_TYPES or lowered.endswith(_TEXT_SUFFIXES):
        return data.decode("utf-8", errors="replace")
    return (
        f"[Binary artifact: {name}, type: {mime}, size: {len(data) / 1024:.1f} KB. "
        "Content cannot be displayed inline.]"
    )

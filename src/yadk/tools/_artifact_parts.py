"""What ``load_artifacts`` hands the model for a stored artifact (google-adk 2.13's conversions).

Gemini takes images, audio, video and PDF inline; everything else is turned into text first:
DOCX into its paragraphs, text-like types (``text/*``, CSV, JSON, XML, SVG, or a ``.csv``,
``.txt``, ``.json``, ``.xml`` name) into their UTF-8 text, and any other binary into a one-line
placeholder naming its type and size, so an upload can never make the request invalid.
"""

from __future__ import annotations

from yadk._docx import docx_text
from yadk.types import Part

__all__ = ["as_safe_part_for_llm"]


_INLINE_PREFIXES = ("image/", "audio/", "video/")
_INLINE_TYPES = frozenset({"application/pdf"})
# Image types Gemini refuses inline: they are XML, and go to the model as text.
_XML_IMAGES = frozenset({"image/svg", "image/svg+xml", "image/xml"})
_TEXT_TYPES = frozenset(
    {"application/csv", "application/json", "application/svg+xml", "application/xml", *_XML_IMAGES}
)
_TEXT_SUFFIXES = (".csv", ".txt", ".json", ".xml")
_DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def as_safe_part_for_llm(artifact: Part, artifact_name: str) -> Part:
    """``artifact`` as a part any Gemini request accepts (see the module docstring)."""
    blob = artifact.inline_data
    if blob is None:
        return artifact
    declared = blob.mime_type
    mime_type = _base_type(declared)
    if declared and mime_type and _inline_ok(mime_type):
        base, sep, params = declared.partition(";")
        canonical = f"{base.strip().lower()}{sep}{params}"
        if canonical == declared:
            return artifact
        return Part(inline_data=blob.model_copy(update={"mime_type": canonical}))
    mime_type = mime_type or "application/octet-stream"
    if blob.data is None:
        return Part(
            text=f"[Artifact: {artifact_name}, type: {mime_type}. No inline data was provided.]"
        )
    data = blob.data
    lowered = artifact_name.lower()
    if mime_type in (_DOCX, "application/octet-stream") or lowered.endswith(".docx"):
        paragraphs = docx_text(data)
        if paragraphs is not None:
            return Part(text=paragraphs)
    if (
        mime_type.startswith("text/")
        or mime_type in _TEXT_TYPES
        or lowered.endswith(_TEXT_SUFFIXES)
    ):
        return Part(text=data.decode("utf-8", errors="replace"))
    return Part(
        text=(
            f"[Binary artifact: {artifact_name}, type: {mime_type},"
            f" size: {len(data) / 1024:.1f} KB. Content cannot be displayed inline.]"
        )
    )


def _base_type(mime_type: str | None) -> str | None:
    """The MIME type without parameters, lower-cased (``None`` when there is none)."""
    if not mime_type:
        return None
    return mime_type.split(";", 1)[0].strip().lower()


def _inline_ok(mime_type: str) -> bool:
    if mime_type in _XML_IMAGES:
        return False
    return mime_type.startswith(_INLINE_PREFIXES) or mime_type in _INLINE_TYPES

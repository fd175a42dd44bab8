"""The text of a Word (.docx) document, for artifacts rendered into a prompt or a tool result."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Final

__all__ = ["docx_text"]

# A .docx is a zip; reading is capped so a crafted archive cannot exhaust memory.
_READ_LIMIT: Final = 10 * 1024 * 1024
_WORD_NS = re.compile(
    r'xmlns:(\w+)="http://schemas\.openxmlformats\.org/wordprocessingml/2006/main"'
)


def docx_text(data: bytes) -> str | None:
    """The paragraphs of a Word document, one per line, or ``None`` if ``data`` is not one.

    Regular expressions rather than an XML parser: the document is untrusted, and entity
    expansion (an XML bomb) is not a risk worth taking to show a document's text.
    """
    if not data.startswith(b"PK"):
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if "word/document.xml" not in archive.namelist():
                return None
            with archive.open("word/document.xml") as member:
                xml = member.read(_READ_LIMIT).decode("utf-8", errors="ignore")
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, ValueError):
        return None
    found = _WORD_NS.search(xml)
    ns = re.escape(found.group(1) if found else "w")
    run_text = re.compile(rf"<{ns}:t(?:\s[^>]*)?>([^<]*)</{ns}:t>")
    paragraphs = []
    for chunk in re.split(rf"<{ns}:p(?:\s[^>]*)?>", xml):
        texts = run_text.findall(chunk)
        if texts:
            paragraphs.append("".join(texts))
    return "\n".join(paragraphs)

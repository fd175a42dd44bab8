"""docs/workflows.md's Python example runs and prints what the page says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "workflows.md"


def test_the_python_example_prints_what_the_page_shows() -> None:
    text = DOC.read_text(encoding="utf-8")
    code, printed = re.search(
        r"```python\n(.*?)```\n\nprints\n\n```text\n(.*?)```", text, re.S
    ).groups()  # type: ignore[union-attr]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {"__name__": "docs_example"})
    assert out.getvalue() == printed

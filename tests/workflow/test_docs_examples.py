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


async def test_the_dynamic_nodes_example_runs_through_the_shim() -> None:
    from tests.workflow.kit import run_turns

    from yadk.adk_compat import disable, enable, install

    text = DOC.read_text(encoding="utf-8")
    code = re.search(r"```python\n(import asyncio\n.*?)```", text, re.S).group(1)  # type: ignore[union-attr]
    install()
    try:
        namespace: dict[str, object] = {"__name__": "docs_dynamic"}
        exec(compile(code, str(DOC), "exec"), namespace)
    finally:
        disable()
        enable()
    turns, _, _ = await run_turns(namespace["root_agent"], ["space, oceans"])
    outputs = [e.output for e in turns[0] if e.output is not None]
    assert outputs[-1] == "News about space!\nNews about oceans!"
    assert [e.branch for e in turns[0] if e.output is not None][:2] == ["headline@1", "headline@2"]

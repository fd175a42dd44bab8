"""google-adk dotted names in YAML: the ones the compatibility shim serves resolve to yadk's
objects; the others are refused with the shim's reason."""

from __future__ import annotations

from pathlib import Path

from yadk.config import load_agent, validate_paths
from yadk.tools import exit_loop, load_memory


def agent(tmp_path: Path, tools: str) -> Path:
    folder = tmp_path / "adk_names"
    folder.mkdir()
    (folder / "s.yaml").write_text("turns:\n  - text: hi\n")
    (folder / "root_agent.yaml").write_text(
        f"name: a\ninstruction: hi\nmodel: scripted:s.yaml\ntools:\n{tools}"
    )
    return folder


def test_names_the_shim_serves_resolve_to_yadks_objects(tmp_path: Path) -> None:
    folder = agent(
        tmp_path,
        "  - name: google.adk.tools.exit_loop_tool.exit_loop\n"
        "  - name: google.adk.tools.load_memory\n",
    )
    assert validate_paths([folder]) == []
    assert load_agent(folder).tools == [exit_loop, load_memory]  # type: ignore[attr-defined]


def test_a_name_it_does_not_serve_is_refused_with_its_reason(tmp_path: Path) -> None:
    folder = agent(tmp_path, "  - name: google.adk.tools.preload_memory_tool.PreloadMemoryTool\n")
    [found] = validate_paths([folder])
    assert (found.line, found.column, found.rule) == (5, 11, "adk-only")
    assert found.message == (
        "`google.adk.tools.preload_memory_tool.PreloadMemoryTool` is not provided by yadk's"
        " google-adk compatibility layer: use the ready-made `preload_memory`. See"
        " docs/adk_compat.md for what is provided."
    )

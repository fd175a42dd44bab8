"""The reload machinery: which file changes matter, what to watch, the real watcher, and
AgentReloader's validate-then-swap outcomes as data."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from yadk.errors import AgentLoadError
from yadk.models import ScriptedModel
from yadk.reload import (
    AgentReloader,
    WatchfilesChanges,
    changed_files_text,
    matters,
    watch_roots,
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    write(tmp_path / "bot" / "root_agent.yaml", "name: bot\ninstruction: Be brief.\n")
    return tmp_path / "bot"


@pytest.mark.parametrize(
    ("path", "added", "expected"),
    [
        ("bot/prompts/", True, True),  # a new folder: files made in it may go unreported
        ("bot/root_agent.yaml", False, True),
        ("bot/skills/greet/SKILL.md", False, True),  # inside a watched folder
        ("bot/skills/new/SKILL.md", True, True),
        ("bot/prompts/new.md", True, True),  # a new file that a config may now reference
        ("bot/extra.py", True, True),
        ("bot/replay.json", False, False),  # an edit to a file the agent does not use
        ("bot/notes.log", True, False),
        ("bot/notes/", False, False),  # a folder that is not new
        ("bot/__pycache__/tools.cpython-311.pyc", True, False),
        ("bot/.yadk/sessions.db", True, False),
        ("bot/.yadk/artifacts/notes.md", True, False),
        ("bot/skills/__pycache__/", True, False),
        ("bot/skills/greet/node_modules/x.md", True, False),
        ("bot/.root_agent.yaml.swp", True, False),
        ("bot/root_agent.yaml~", True, False),
        ("bot/4913", True, False),
        ("bot/skills/greet/.#SKILL.md", True, False),
        ("elsewhere/new.yaml", True, False),  # outside the agent folder
        ("shared/tools.py", False, True),  # a dependency outside it
    ],
)
def test_which_changes_matter(tmp_path: Path, path: str, added: bool, expected: bool) -> None:
    files = frozenset(
        {
            tmp_path / "bot" / "root_agent.yaml",
            tmp_path / "bot" / "skills",
            tmp_path / "shared" / "tools.py",
        }
    )
    folder = path.endswith("/")  # the table marks folders with a trailing slash
    found = matters(tmp_path / path, root=tmp_path / "bot", files=files, added=added, folder=folder)
    assert found is expected


def test_a_project_inside_a_dot_folder_is_watched(tmp_path: Path) -> None:
    root = tmp_path / ".work" / "bot"
    new = root / "prompts" / "new.md"
    assert matters(new, root=root, files=frozenset(), added=True)


def test_watch_roots_cover_the_agent_folder_and_dependencies_outside_it(tmp_path: Path) -> None:
    for folder in ("bot/prompts", "shared/skills/greet", "lib"):
        (tmp_path / folder).mkdir(parents=True)
    files = [
        tmp_path / "bot" / "root_agent.yaml",
        tmp_path / "bot" / "prompts",
        tmp_path / "shared" / "skills" / "greet",
        tmp_path / "lib" / "tools.py",
        tmp_path / "gone" / "x.md",
    ]
    assert watch_roots(tmp_path / "bot", files) == [
        tmp_path / "bot",
        tmp_path / "lib",
        tmp_path / "shared" / "skills" / "greet",
    ]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["root_agent.yaml"], "1 file changed (root_agent.yaml)"),
        (["b.md", "a.yaml"], "2 files changed (a.yaml, b.md)"),
        (
            [f"{n}.md" for n in "abcdefg"],
            "7 files changed (a.md, b.md, c.md, d.md, e.md, and 2 more)",
        ),
    ],
)
def test_changed_files_text(tmp_path: Path, names: list[str], expected: str) -> None:
    assert changed_files_text([tmp_path / n for n in names], tmp_path) == expected


def test_watchfiles_source_reports_real_edits_and_new_files(bot: Path) -> None:
    root = bot / "root_agent.yaml"
    (bot / "prompts").mkdir()
    source = WatchfilesChanges(timeout_ms=50)
    try:
        source.watch(bot, {root})
        assert source.wait_ready(10)
        write(bot / "__pycache__" / "tools.cpython-311.pyc", "x")
        write(bot / "notes.log", "x")
        write(root, "name: bot\ninstruction: Be kind.\n")
        write(bot / "prompts" / "new.md", "New.")
        wanted = {root, bot / "prompts" / "new.md"}
        seen: set[Path] = set()
        deadline = time.monotonic() + 10
        while not wanted <= seen and time.monotonic() < deadline:
            seen |= source.poll()
            threading.Event().wait(0.02)
        # The cache file and the log were written first, so they would have been seen by now.
        assert seen == wanted
    finally:
        source.close()


def test_a_reload_is_data_a_server_can_send(bot: Path) -> None:
    reloader = AgentReloader(bot, model=ScriptedModel(turns=[{"text": "hi"}]))
    good = reloader.reload({write(bot / "root_agent.yaml", "name: bot\ninstruction: Hi.\n")})
    assert good.ok and good.files == ["root_agent.yaml"] and good.ms >= 0
    assert set(good.to_dict()) == {"ok", "files", "ms"}
    bad = reloader.reload(
        {write(bot / "root_agent.yaml", "name: bot\ninstruction: Hi.\ncolour: red\n")}
    )
    data = json.loads(json.dumps(bad.to_dict()))
    assert data["ok"] is False and data["files"] == ["root_agent.yaml"]
    assert data["error"].endswith(
        "was not loaded: 1 problem (run 'yadk validate " + str(bot) + "' to check it)"
    )
    [diagnostic] = data["diagnostics"]
    assert (diagnostic["path"], diagnostic["column"]) == (str(bot / "root_agent.yaml"), 1)
    assert (diagnostic["line"], diagnostic["rule"]) == (3, "unknown-key")
    assert bad.lines[0] == "reload failed: 1 file changed (root_agent.yaml)"
    assert bad.lines[-1] == "kept the previous agent; fix the file and save again"
    assert reloader.agent.instruction == "Hi."


def test_a_first_load_that_fails_raises_with_the_diagnostics(bot: Path) -> None:
    write(bot / "root_agent.yaml", "name: bot\nmodel: [\n")
    with pytest.raises(AgentLoadError) as caught:
        AgentReloader(bot)
    assert caught.value.diagnostics and caught.value.details == [
        d.format() for d in caught.value.diagnostics
    ]

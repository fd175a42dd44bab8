"""``yadk validate .`` at a repository root: every agent folder and skill at
any depth, skipping hidden folders, ``node_modules`` and what ``.gitignore`` lists; diagnostics
name files by relative path, never ``.``; eval files outside agent folders are still checked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from yadk.cli._discover import discover

pytestmark = pytest.mark.subprocess

GOOD = "name: good\nmodel: gemini-2.5-flash\ninstruction: Hi.\n"
TYPO = "name: {name}\nmodel: gemini-2.5-flash\ninstruction: Hi.\ndescriptin: A typo.\n"
SKILL = "---\nname: {name}\ndescription: A skill.\n---\nDo it.\n"
BAD_SKILL = "---\nname: Bad Name\ndescription: A skill.\n---\nDo it.\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def tree(root: Path) -> None:
    write(root / ".gitignore", "# generated\nbuild/\n/local/scratch\n*.tmp\n!keep\n")
    write(root / "apps" / "support" / "root_agent.yaml", TYPO.format(name="support"))
    write(root / "apps" / "nested" / "deeper" / "good" / "root_agent.yaml", GOOD)
    write(root / "skills" / "refunds" / "SKILL.md", SKILL.format(name="refunds"))
    write(root / "skills" / "broken" / "SKILL.md", BAD_SKILL)
    write(root / "evals" / "x.evalset.json", '{"eval_set_id": 5}')
    for skipped in (".git/x", ".venv/x", "node_modules/x", "build/x", "local/scratch", "a.tmp/x"):
        write(root / skipped / "root_agent.yaml", TYPO.format(name="skipped"))
    write(root / "local" / "kept" / "root_agent.yaml", GOOD)
    write(root / "apps" / "sub" / ".gitignore", "ignored_here\n")
    write(root / "apps" / "sub" / "ignored_here" / "root_agent.yaml", TYPO.format(name="x"))


def test_discover_finds_every_agent_and_skill_and_skips_ignored(tmp_path: Path) -> None:
    tree(tmp_path)
    found = [p.relative_to(tmp_path).as_posix() for p in discover(tmp_path)]
    assert found == [
        "apps/nested/deeper/good",
        "apps/support",
        "local/kept",
        "skills/broken",
        "skills/refunds",
    ]


def test_validate_dot_at_a_repository_root(tmp_path: Path) -> None:
    tree(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "yadk.cli", "validate", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        # The configs name a Gemini model: with a key set, no api-key-missing warning.
        env={**os.environ, "GOOGLE_API_KEY": "not-used"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout == (
        "apps/support/root_agent.yaml:4:1: error unknown-key: Unknown key `descriptin` in an"
        " LlmAgent config.\n"
        "  hint: Did you mean `description`?\n"
        "skills/broken/SKILL.md:2:7: error skill-name-format: name must be lowercase kebab-case"
        " (a-z, 0-9, hyphens), with no leading, trailing, or consecutive delimiters\n"
        "  hint: Use the folder's name, 'broken'.\n"
        "evals/x.evalset.json:1:1: error missing-key: An eval set needs `eval_cases`.\n"
        "evals/x.evalset.json:1:17: error wrong-type: `eval_set_id` must be a string, not a"
        " number.\n"
        "4 errors in 3 agents, 2 skills, 1 eval file\n"
    )


def test_a_tree_without_agents_is_still_reported(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "readme.txt", "nothing")
    done = subprocess.run(
        [sys.executable, "-m", "yadk.cli", "validate", "docs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "nothing-to-validate" in done.stdout

"""The public surface: names, the error type, sources for the dev loop, lazy imports."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import yadk
import yadk.config
from yadk.config import ConfigError, Diagnostic, load_agent, load_agent_with_sources

WriteTree = Callable[[dict[str, str]], Path]


def test_all_is_sorted_and_complete() -> None:
    assert yadk.config.__all__ == sorted(yadk.config.__all__)
    for name in (
        "Diagnostic",
        "agent_config_json_schema",
        "load_agent",
        "validate_paths",
        "ConfigError",
        "LoadedAgent",
        "load_agent_with_sources",
    ):
        assert hasattr(yadk.config, name)


def test_yadk_load_agent_is_the_config_loader(write_tree: WriteTree) -> None:
    root = write_tree({"my_agent/root_agent.yaml": "name: a\ninstruction: hi\n"})
    assert yadk.load_agent(root / "my_agent" / "root_agent.yaml").name == "a"


@pytest.mark.parametrize(
    ("diagnostic", "text"),
    [
        (
            Diagnostic("/a/b.yaml", 3, 7, "unknown-key", "error", "Bad.", "Fix it."),
            "/a/b.yaml:3:7: error unknown-key: Bad.\n  hint: Fix it.",
        ),
        (
            Diagnostic("/a/b.yaml", 0, 0, "file-not-found", "warning", "Gone."),
            "/a/b.yaml: warning file-not-found: Gone.",
        ),
    ],
)
def test_diagnostic_format(diagnostic: Diagnostic, text: str) -> None:
    assert diagnostic.format() == text
    assert str(diagnostic) == text
    assert diagnostic.to_dict()["rule"] == diagnostic.rule


def test_diagnostic_paths_are_shown_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    diagnostic = Diagnostic(str(tmp_path / "agents" / "a.yaml"), 1, 2, "r", "error", "m")
    assert diagnostic.format() == "agents/a.yaml:1:2: error r: m"


def test_config_error_is_a_value_error_with_every_diagnostic(write_tree: WriteTree) -> None:
    root = write_tree({"my_agent/root_agent.yaml": "nme: a\n"})
    with pytest.raises(ValueError, match="unknown-key") as caught:
        load_agent(root / "my_agent")
    assert isinstance(caught.value, ConfigError)
    # `nme` is reported once, as an unknown key that means `name`; `instruction` is missing.
    assert [d.rule for d in caught.value.diagnostics] == ["unknown-key", "missing-field"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: a\ninstructions: Hi.\n", "Unknown key `instructions` in an LlmAgent config."),
        ("nmae: a\ninstruction: Hi.\n", "Unknown key `nmae` in an LlmAgent config."),
    ],
)
def test_a_misspelled_required_key_is_one_error_not_two(
    write_tree: WriteTree, text: str, message: str
) -> None:
    root = write_tree({"my_agent/root_agent.yaml": text})
    with pytest.raises(ConfigError) as caught:
        load_agent(root / "my_agent")
    assert [(d.rule, d.message) for d in caught.value.diagnostics] == [("unknown-key", message)]


def test_loaded_agent_knows_its_sources(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": """
                name: root
                instruction: {file: prompts/root.md}
                tools: [.tools.search]
                sub_agents: [{config_path: sub/helper.yaml}]
                examples: examples.yaml
            """,
            "my_agent/prompts/root.md": "Root.",
            "my_agent/tools.py": "from my_agent import util\n\ndef search(q: str) -> str:\n"
            "    return util.clean(q)\n",
            "my_agent/util.py": "def clean(q):\n    return q.strip()\n",
            "my_agent/sub/helper.yaml": "name: helper\ninstruction: Help.\n",
            "my_agent/examples.yaml": "- input: {role: user, parts: [{text: a}]}\n  output: []\n",
        }
    )
    folder = root / "my_agent"
    loaded = load_agent_with_sources(folder)
    assert loaded.path == folder / "root_agent.yaml"
    assert sorted(p.relative_to(folder).as_posix() for p in loaded.files) == [
        "examples.yaml",
        "prompts/root.md",
        "root_agent.yaml",
        "sub/helper.yaml",
        "tools.py",
        "util.py",
    ]
    assert loaded.modules == {"my_agent.tools", "my_agent.util"}
    assert loaded.agent_files == {
        "root": folder / "root_agent.yaml",
        "helper": folder / "sub" / "helper.yaml",
    }
    assert loaded.diagnostics == []


def test_reload_modules_picks_up_edited_code(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": "name: a\ninstruction: hi\ntools: [.tools.search]\n",
            "my_agent/tools.py": "def search(q: str) -> str:\n    return 'old'\n",
        }
    )
    folder = root / "my_agent"
    assert load_agent(folder).tools[0]("x") == "old"
    tools_py = folder / "tools.py"
    tools_py.write_text("def search(q: str) -> str:\n    return 'new'\n")
    os.utime(tools_py, (1, 1))  # a different mtime than the cached bytecode, whatever the clock
    assert load_agent(folder).tools[0]("x") == "old"
    assert load_agent_with_sources(folder, reload_modules=True).agent.tools[0]("x") == "new"


@pytest.mark.subprocess
def test_importing_the_config_layer_stays_light() -> None:
    code = (
        "import sys, yadk\n"
        "before = set(sys.modules)\n"
        "import yadk.config\n"
        "added = sorted(set(sys.modules) - before)\n"
        "print(sorted(m for m in added if m.split('.')[0] not in sys.stdlib_module_names))\n"
        "print(sorted(m for m in ('jinja2', 'tomllib', 'yadk.skills', 'yadk.cli', 'pydantic') "
        "if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    added, heavy = result.stdout.splitlines()
    # No engine and no pydantic: `yadk validate` needs neither.
    allowed = ("'yadk.config", "'yadk._yaml", "'yadk._files", "'yadk.errors", "'yaml", "'_yaml")
    allowed += ("'yadk._model_names",)  # model name rules only: re
    allowed += ("'yadk._script_format",)  # the scripted model file's rules, shared with the engine
    allowed += ("'yadk._graph_shape",)  # a workflow's shape checks: names and edges only
    allowed += ("'yadk._blocked_modules",)  # the trust policy's always-blocked modules: sys only
    allowed += ("'yadk._paths",)  # paths shown relative to the working directory: os, pathlib
    allowed += ("'_cython", "'cython_runtime")  # PyYAML's C loader
    assert [m for m in added[1:-1].split(", ") if not m.startswith(allowed)] == []
    assert heavy == "[]"

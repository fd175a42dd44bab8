"""``validate_paths``: files and folders of configs and skills, without running user code."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.config import Diagnostic, validate_paths

WriteTree = Callable[[dict[str, str]], Path]

SIDE_EFFECT_PY = """
from pathlib import Path

Path(__file__).with_name("IMPORTED").write_text("yes")

if True:
    def conditional():
        pass

try:
    from json import loads as parse
except ImportError:
    parse = None

WIDTH: int = 3
handler = lambda ctx: None


def search(query: str) -> str:
    return query


class Store:
    yadk_config_args = frozenset({"size"})
"""


def rules(found: list[Diagnostic]) -> list[tuple[str, int, int, str]]:
    return [(Path(d.path).name, d.line, d.column, d.rule) for d in found]


def test_static_validation_never_imports_user_code(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": """
                name: a
                instruction: hi
                tools:
                  - .tools.search
                  - .tools.conditional
                  - .tools.parse
                  - .tools.handler
                  - name: .tools.Store
                    args: {size: 3, colour: red}
                  - .tools.WIDTH
                  - .tools.missing
                before_model_callbacks: [{name: .tools.Store}]
            """,
            "my_agent/tools.py": SIDE_EFFECT_PY,
        }
    )
    found = validate_paths([root / "my_agent"])
    assert not (root / "my_agent" / "IMPORTED").exists()
    assert "my_agent.tools" not in sys.modules
    assert [(d.line, d.column, d.rule, d.message) for d in found] == [
        (
            6,
            5,
            "blocked-module",
            "`my_agent.tools.parse` is `json.loads` under another name: configs cannot reference"
            " the `json` module.",
        ),
        (
            9,
            21,
            "args-not-allowed",
            "`my_agent.tools.Store` does not accept `colour` from YAML.",
        ),
        (11, 5, "attribute-not-found", "Module `my_agent.tools` has no attribute `missing`."),
        (12, 33, "wrong-kind", "`my_agent.tools.Store` is a class, expected a function."),
    ]


def test_import_mode_runs_the_code(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": "name: a\ninstruction: hi\ntools: [.tools.search]\n",
            "my_agent/tools.py": SIDE_EFFECT_PY,
        }
    )
    assert validate_paths([root / "my_agent"], import_code=True) == []
    assert (root / "my_agent" / "IMPORTED").read_text() == "yes"


def test_star_imports_and_module_getattr_are_not_guessed(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": "name: a\ninstruction: hi\n"
            "tools: [.star.anything, .lazy.whatever, .facade.whatever]\n",
            "my_agent/star.py": "from json import *\n",
            "my_agent/lazy.py": "def __getattr__(name):\n    return None\n",
            # yadk's own facades assign theirs (yadk._lazy.lazy_facade)
            "my_agent/facade.py": "__getattr__, __dir__ = (lambda name: None), list\n",
        }
    )
    assert validate_paths([root / "my_agent"]) == []


def test_packages_and_installed_modules(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": "name: a\ninstruction: hi\ntools:\n"
            "  - my_agent.lib.helpers.search\n  - yadk.tools.FunctionTool\n"
            "  - yadk.tools.FuncTool\n",
            "my_agent/lib/__init__.py": "",
            "my_agent/lib/helpers.py": "def search(q):\n    return q\n",
        }
    )
    found = validate_paths([root / "my_agent"])
    assert [(d.line, d.rule, d.message, d.hint) for d in found] == [
        (
            6,
            "attribute-not-found",
            "Module `yadk.tools` has no attribute `FuncTool`.",
            "Did you mean `FunctionTool`?",
        )
    ]


def test_folder_of_agents_and_skills(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "agents/one/root_agent.yaml": "name: one\ninstruction: hi\n",
            "agents/two/root_agent.yaml": "name: two\n",
            "agents/broken-skill/SKILL.md": "---\nname: broken-skill\n---\nBody.\n",
            "agents/notes/readme.txt": "not an agent",
        }
    )
    assert rules(validate_paths([root / "agents"])) == [
        ("root_agent.yaml", 1, 1, "missing-field"),
        ("SKILL.md", 1, 1, "skill-description-required"),
    ]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("agent.yaml", "name: a\ninstruction: hi\n", []),
        ("agent.yml", "name: a\n", [("agent.yml", 1, 1, "missing-field")]),
        ("notes.txt", "x", [("notes.txt", 0, 0, "unsupported-file")]),
        (
            "SKILL.md",
            "---\nname: x\ndescription: y\n---\nBody.\n",
            [("SKILL.md", 2, 7, "skill-name-mismatch")],
        ),
    ],
)
def test_single_files(
    write_tree: WriteTree, name: str, text: str, expected: list[tuple[str, int, int, str]]
) -> None:
    root = write_tree({f"thing/{name}": text})
    assert rules(validate_paths([root / "thing" / name])) == expected


def test_missing_and_empty_paths(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    found = validate_paths([tmp_path / "nope", tmp_path / "empty"])
    assert [d.format() for d in found] == [
        f"{tmp_path}/nope: error file-not-found: {tmp_path}/nope does not exist.",
        (
            f"{tmp_path}/empty: error nothing-to-validate: {tmp_path}/empty holds no "
            "root_agent.yaml, no agent.py defining root_agent, no SKILL.md and no folders with"
            " one.\n"
            "  hint: Pass a config file, an agent folder or a skill folder."
        ),
    ]


def test_skills_and_examples_keys_are_validated(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": """
                name: a
                instruction: hi
                skills: [skills]
                examples: examples.jsonl
            """,
            "my_agent/skills/good/SKILL.md": "---\nname: good\ndescription: Good.\n---\nBody.\n",
            "my_agent/skills/Bad/SKILL.md": "---\nname: Bad\ndescription: Bad.\n---\nBody.\n",
            "my_agent/examples.jsonl": '{"input": {"role": "user", "parts": [{"text": "x"}]}, '
            '"output": []}\n{"input": 3, "output": []}\n',
        }
    )
    assert rules(validate_paths([root / "my_agent"])) == [
        ("SKILL.md", 2, 7, "skill-name-format"),
        ("examples.jsonl", 2, 1, "invalid-examples"),
    ]

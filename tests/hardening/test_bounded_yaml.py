"""YAML within bounds: every hostile document is a located, named problem in
each format that reads YAML (configs, SKILL.md frontmatter, example files, scripted models), never
a hang, a traceback or an ``internal-error``."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk import _yaml as bounded
from yadk.config import validate_paths
from yadk.errors import ExampleError, ModelError, SkillError
from yadk.examples._files import load_examples_file
from yadk.models import ScriptedModel
from yadk.skills import load_skill_from_dir

BILLION_LAUGHS = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
)
SELF_ALIAS = "a: &a [1, *a]\n"
DEEP = "a: " + "[" * 1000 + "]" * 1000 + "\n"
HUGE_INT = "a: " + "9" * 5000 + "\n"

# (document, rule, line, column) as the bounded reader reports them.
HOSTILE = [
    ("billion laughs", BILLION_LAUGHS, "yaml-too-large", 6, 8),
    ("self-referencing alias", SELF_ALIAS, "yaml-recursive-alias", 1, 11),
    ("1000 levels of nesting", DEEP, "yaml-too-deep", 1, 103),
    ("integer over 4300 digits", HUGE_INT, "yaml-invalid-value", 1, 4),
    ("!!int that is no integer", 'a: !!int "x"\n', "yaml-invalid-value", 1, 4),
    ("!!float that is no number", 'a: !!float "nope"\n', "yaml-invalid-value", 1, 4),
    ("lone surrogate escape", '"\\udfff": 1\n', "yaml-invalid-string", 1, 1),
    ("DEL character", "a: b\x7f\n", "yaml-invalid-character", 1, 5),
    ("python tag", "a: !!python/object/apply:os.system [id]\n", "yaml-unsafe-tag", 1, 4),
]
IDS = [case[0] for case in HOSTILE]


@pytest.mark.parametrize("parser", ["libyaml", "pure-python"])
@pytest.mark.parametrize(("text", "rule", "line", "column"), [c[1:] for c in HOSTILE], ids=IDS)
def test_the_bounded_reader_names_and_locates_each_problem(
    text: str, rule: str, line: int, column: int, parser: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if parser == "pure-python":
        monkeypatch.setattr(bounded, "CParser", None)
    with pytest.raises(bounded.YamlProblem) as caught:
        bounded.load(text)
    assert (caught.value.rule, caught.value.line, caught.value.column) == (rule, line, column)


def test_the_limits_leave_ordinary_documents_alone() -> None:
    text = "base: &base {model: m, tools: [a, b]}\nagents:\n" + "".join(
        f"  - {{<<: *base, name: agent_{n}}}\n" for n in range(200)
    )
    data = bounded.load(text)
    assert data["agents"][199] == {"model": "m", "tools": ["a", "b"], "name": "agent_199"}


@pytest.mark.parametrize(("text", "rule", "line", "column"), [c[1:] for c in HOSTILE], ids=IDS)
def test_a_config(tmp_path: Path, text: str, rule: str, line: int, column: int) -> None:
    config = tmp_path / "root_agent.yaml"
    config.write_text("name: a\ninstruction: hi\n" + text, encoding="utf-8")
    diagnostics = validate_paths([config])
    assert [(d.rule, d.line, d.column) for d in diagnostics if d.is_error] == [
        (rule, line + 2, column)
    ]
    assert all("internal" not in d.rule for d in diagnostics)


def _skill(tmp_path: Path, metadata: str) -> Path:
    folder = tmp_path / "demo"
    folder.mkdir()
    indented = "".join("  " + line + "\n" for line in metadata.splitlines())
    (folder / "SKILL.md").write_text(
        f"---\nname: demo\ndescription: A demo skill.\nmetadata:\n{indented}---\nBody.\n",
        encoding="utf-8",
    )
    return folder


@pytest.mark.parametrize(("text", "rule", "line", "column"), [c[1:] for c in HOSTILE], ids=IDS)
def test_skill_md_metadata(tmp_path: Path, text: str, rule: str, line: int, column: int) -> None:
    folder = _skill(tmp_path, text)
    if rule == "yaml-too-deep":
        column -= 1  # the frontmatter's `metadata:` mapping is one level of the 100
    problems = validate_paths([folder])
    assert [(d.rule, d.line, d.column) for d in problems if d.is_error] == [
        (rule, line + 4, column + 2)
    ]
    with pytest.raises(SkillError) as caught:
        load_skill_from_dir(folder)
    assert f"SKILL.md:{line + 4}:{column + 2}" in str(caught.value)


@pytest.mark.parametrize(
    "frontmatter",
    ['name: !!int "x"', "name: " + "9" * 5000, 'description: !!float "nope"'],
)
def test_skill_md_frontmatter_values_raise_skill_errors(tmp_path: Path, frontmatter: str) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        f"---\n{frontmatter}\ndescription: d\n---\nBody.\n", encoding="utf-8"
    )
    with pytest.raises(SkillError) as caught:
        load_skill_from_dir(folder)
    assert "SKILL.md:2:" in str(caught.value)
    assert "yaml-invalid-value" in str(caught.value)


@pytest.mark.parametrize(("text", "rule", "line", "column"), [c[1:] for c in HOSTILE], ids=IDS)
def test_an_examples_file(tmp_path: Path, text: str, rule: str, line: int, column: int) -> None:
    file = tmp_path / "examples.yaml"
    file.write_text(text, encoding="utf-8")
    with pytest.raises(ExampleError) as caught:
        load_examples_file(file)
    assert str(caught.value).startswith(f"{file}:{line}:{column}: ")


@pytest.mark.parametrize(("text", "rule", "line", "column"), [c[1:] for c in HOSTILE], ids=IDS)
def test_a_scripted_model_file(
    tmp_path: Path, text: str, rule: str, line: int, column: int
) -> None:
    file = tmp_path / "turns.yaml"
    file.write_text(text, encoding="utf-8")
    with pytest.raises(ModelError) as caught:
        ScriptedModel.from_file(file)
    assert caught.value.message.startswith(f"{file}:{line}:{column}: ")

"""load_skill_from_dir, load_skills_from_dir, list_skills_in_dir and the Frontmatter model."""

from __future__ import annotations

import logging
from pathlib import Path

import pydantic
import pytest

from yadk.errors import SkillError
from yadk.skills import Frontmatter, Resources, Skill, load_skill_from_dir, load_skills_from_dir
from yadk.skills._loading import list_skills_in_dir


def test_load_skill_from_dir(make_skill) -> None:
    folder = make_skill(
        "code-review",
        "---\nname: code-review\ndescription: Reviews code.\nlicense: MIT\n"
        "allowed-tools: Read Grep\nmetadata:\n  adk_inject_state: true\n"
        "  adk_additional_tools: [lint]\nowner: team-a\n---\n\n  Review {dev_name?}.\n\n",
        files={"references/style.md": "Be kind."},
    )

    skill = load_skill_from_dir(folder)

    assert skill.name == "code-review"
    assert skill.description == "Reviews code."
    assert skill.instructions == "Review {dev_name?}."
    assert skill.path == folder
    assert skill.frontmatter.license == "MIT"
    assert skill.frontmatter.allowed_tools == "Read Grep"
    assert skill.frontmatter.inject_state is True
    assert skill.frontmatter.additional_tools == ["lint"]
    assert skill.frontmatter.model_extra == {"owner": "team-a"}
    assert skill.resources.list_references() == ["style.md"]
    assert skill.frontmatter.model_dump(mode="json") == {
        "name": "code-review",
        "description": "Reviews code.",
        "license": "MIT",
        "compatibility": None,
        "allowed_tools": "Read Grep",
        "metadata": {"adk_inject_state": True, "adk_additional_tools": ["lint"]},
        "owner": "team-a",
    }


def test_name_is_nfkc_normalised(tmp_path: Path) -> None:
    folder = tmp_path / "skill-1"
    folder.mkdir()
    # U+FF11 FULLWIDTH DIGIT ONE normalises to "1".
    (folder / "SKILL.md").write_text("---\nname: skill-\uff11\ndescription: d\n---\nb\n")

    assert load_skill_from_dir(folder).name == "skill-1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "no frontmatter",
            (
                "{md}:1:1: error skill-frontmatter-missing: SKILL.md must start with YAML frontmatter "
                "(---)\n  hint: Begin SKILL.md with a line '---', then 'name: <folder name>' and "
                "'description: <what it does and when to use it>', then a line '---'."
            ),
        ),
        (
            "---\nname: other\ndescription: d\n---\nb\n",
            (
                "{md}:2:7: error skill-name-mismatch: Skill name 'other' does not match directory "
                "name 'demo'.\n  hint: Rename the folder to 'other', or set 'name: demo'."
            ),
        ),
        (
            "---\nname: demo\ndescription: ''\nmetadata:\n  adk_inject_state: 'true'\n---\nb\n",
            (
                "{md}:3:14: error skill-description-empty: description must not be empty\n"
                "  hint: Say what the skill does and when the model should use it.\n"
                "{md}:5:21: error skill-inject-state-type: adk_inject_state must be a bool\n"
                "  hint: Write 'adk_inject_state: true' or 'adk_inject_state: false', without quotes."
            ),
        ),
    ],
)
def test_invalid_skill_raises_every_error(tmp_path: Path, text: str, message: str) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "SKILL.md").write_text(text)

    with pytest.raises(SkillError) as caught:
        load_skill_from_dir(folder)

    assert str(caught.value) == message.format(md=folder / "SKILL.md")
    assert isinstance(caught.value, ValueError)


def test_warnings_do_not_stop_loading(make_skill) -> None:
    folder = make_skill("demo", "---\nname: demo\ndescription: d\nowner: me\n---\n")

    assert load_skill_from_dir(folder).instructions == ""


def test_missing_skill_md(tmp_path: Path) -> None:
    (tmp_path / "demo").mkdir()

    with pytest.raises(SkillError, match=r"SKILL.md not found in '.*demo'\."):
        load_skill_from_dir(tmp_path / "demo")


def test_load_skills_from_dir_sorted_and_skipping_plain_folders(make_skill, tmp_path: Path) -> None:
    make_skill("beta")
    make_skill("alpha")
    (tmp_path / "skills" / "notes").mkdir()
    (tmp_path / "skills" / "README.md").write_text("hi")

    assert [s.name for s in load_skills_from_dir(tmp_path / "skills")] == ["alpha", "beta"]


def test_load_skills_from_dir_raises_with_the_invalid_skills_paths(
    make_skill, tmp_path: Path
) -> None:
    make_skill("alpha")
    make_skill("beta", "---\nname: beta\n---\nb\n")
    make_skill("gamma", "oops")

    with pytest.raises(SkillError) as caught:
        load_skills_from_dir(tmp_path / "skills")

    lines = [line for line in str(caught.value).splitlines() if not line.startswith("  hint")]
    assert lines == [
        (
            f"{tmp_path}/skills/beta/SKILL.md:1:1: error skill-description-required: "
            "Frontmatter field 'description' is required"
        ),
        (
            f"{tmp_path}/skills/gamma/SKILL.md:1:1: error skill-frontmatter-missing: "
            "SKILL.md must start with YAML frontmatter (---)"
        ),
    ]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "Skills directory '{p}' does not exist."),
        ("file", "'{p}' is not a directory."),
    ],
)
def test_load_skills_from_dir_bad_folder(tmp_path: Path, setup: str, message: str) -> None:
    path = tmp_path / "skills"
    if setup == "file":
        path.write_text("x")

    with pytest.raises(SkillError) as caught:
        load_skills_from_dir(path)

    assert str(caught.value) == message.format(p=path)


def test_list_skills_in_dir_reports_and_skips(make_skill, tmp_path: Path) -> None:
    make_skill("alpha")
    make_skill("broken", "---\nname: nope\ndescription: d\n---\nb\n")
    reported: list[tuple[str, str]] = []

    listed = list_skills_in_dir(
        tmp_path / "skills", on_error=lambda name, exc: reported.append((name, str(exc)))
    )

    assert list(listed) == ["alpha"]
    assert listed["alpha"].description == "Does a thing."
    assert [(name, msg.splitlines()[0]) for name, msg in reported] == [
        (
            "broken",
            (
                f"{tmp_path}/skills/broken/SKILL.md:2:7: error skill-name-mismatch: "
                "Skill name 'nope' does not match directory name 'broken'."
            ),
        ),
    ]


def test_list_skills_in_dir_logs_without_on_error(
    make_skill, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    make_skill("broken", "nope")

    with caplog.at_level(logging.WARNING, logger="yadk.skills"):
        assert list_skills_in_dir(tmp_path / "skills") == {}

    assert caplog.messages[0].startswith("Skipping invalid skill 'broken': ")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"name": "Bad Name", "description": "d"},
            (
                "name must be lowercase kebab-case (a-z, 0-9, hyphens), with no leading, trailing, or "
                "consecutive delimiters"
            ),
        ),
        (
            {"name": "-lead", "description": "d"},
            (
                "name must be lowercase kebab-case (a-z, 0-9, hyphens), with no leading, trailing, or "
                "consecutive delimiters"
            ),
        ),
        ({"name": "a" * 65, "description": "d"}, "name must be at most 64 characters"),
        ({"name": "ok", "description": ""}, "description must not be empty"),
        (
            {"name": "ok", "description": "d" * 1025},
            "description must be at most 1024 characters. Description length: 1025",
        ),
        (
            {"name": "ok", "description": "d", "compatibility": "c" * 501},
            "compatibility must be at most 500 characters",
        ),
        (
            {"name": "ok", "description": "d", "metadata": {"adk_inject_state": "true"}},
            "adk_inject_state must be a bool",
        ),
        (
            {"name": "ok", "description": "d", "metadata": {"adk_additional_tools": "x"}},
            "adk_additional_tools must be a list of strings",
        ),
    ],
)
def test_frontmatter_model_rules(fields: dict[str, object], message: str) -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        Frontmatter.model_validate(fields)

    assert caught.value.errors()[0]["msg"] == f"Value error, {message}"


def test_frontmatter_accepts_both_spellings_of_allowed_tools() -> None:
    assert Frontmatter(name="a", description="d", allowed_tools="Read").allowed_tools == "Read"
    assert (
        Frontmatter.model_validate(
            {"name": "a", "description": "d", "allowed-tools": "Grep"}
        ).allowed_tools
        == "Grep"
    )


def test_skill_built_in_python() -> None:
    skill = Skill(
        frontmatter=Frontmatter(name="inline", description="In memory."),
        instructions="Step 1.",
        resources=Resources(references={"a.md": "A"}),
    )

    assert (skill.name, skill.description, skill.path) == ("inline", "In memory.", None)
    assert skill.resources.get_reference("a.md") == "A"
    assert skill.frontmatter.inject_state is False

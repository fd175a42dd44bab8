"""validate_skill_dir / validate_skill_paths: every problem, with file, line, column and rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk.skills._validation import SkillProblem, validate_skill_dir, validate_skill_paths

NAME_FORMAT = (
    "name must be lowercase kebab-case (a-z, 0-9, hyphens), with no leading, trailing, or "
    "consecutive delimiters"
)

# (SKILL.md text in a folder named "demo", [(line, column, severity, rule, message), ...])
CASES: list[tuple[str, str, list[tuple[int, int, str, str, str]]]] = [
    (
        "clean",
        "---\nname: demo\ndescription: Does a thing.\n---\nDo it.\n",
        [],
    ),
    (
        "no frontmatter",
        "Just instructions.\n",
        [
            (
                1,
                1,
                "error",
                "skill-frontmatter-missing",
                "SKILL.md must start with YAML frontmatter (---)",
            )
        ],
    ),
    (
        "unclosed frontmatter",
        "---\nname: demo\ndescription: d\n",
        [
            (
                1,
                1,
                "error",
                "skill-frontmatter-unclosed",
                "SKILL.md frontmatter not properly closed with ---",
            )
        ],
    ),
    (
        "dashes inside a value do not close the frontmatter",
        "---\nname: demo\ndescription: a---b\n---\nbody\n",
        [],
    ),
    (
        "invalid YAML, with its line in SKILL.md",
        "---\nname: demo\ndescription: [unclosed\nlicense: MIT\n---\nbody\n",
        [
            (
                4,
                8,
                "error",
                "skill-frontmatter-yaml",
                (
                    "Invalid YAML in frontmatter: expected ',' or ']', but got ':'"
                    " (while parsing a flow sequence)."
                ),
            )
        ],
    ),
    (
        "frontmatter that is a list",
        "---\n- name\n- description\n---\nbody\n",
        [
            (
                2,
                1,
                "error",
                "skill-frontmatter-not-mapping",
                "SKILL.md frontmatter must be a YAML mapping",
            )
        ],
    ),
    (
        "empty frontmatter",
        "---\n---\nbody\n",
        [
            (
                2,
                1,
                "error",
                "skill-frontmatter-not-mapping",
                "SKILL.md frontmatter must be a YAML mapping",
            )
        ],
    ),
    (
        "missing name and description",
        "---\nlicense: MIT\n---\nbody\n",
        [
            (1, 1, "error", "skill-name-required", "Frontmatter field 'name' is required"),
            (
                1,
                1,
                "error",
                "skill-description-required",
                "Frontmatter field 'description' is required",
            ),
        ],
    ),
    (
        "name/folder mismatch",
        "---\nname: other\ndescription: d\n---\nbody\n",
        [
            (
                2,
                7,
                "error",
                "skill-name-mismatch",
                "Skill name 'other' does not match directory name 'demo'.",
            )
        ],
    ),
    (
        "every problem at once, in file order",
        "---\nname: Demo_Skill\ndescription: ''\ncompatibility: " + "c" * 501 + "\n"
        "metadata:\n  adk_inject_state: 'true'\n  adk_additional_tools: [1, search]\n"
        "descriptoin: typo\nowner: me\n---\n",
        [
            (2, 7, "error", "skill-name-format", NAME_FORMAT),
            (3, 14, "error", "skill-description-empty", "description must not be empty"),
            (
                4,
                16,
                "error",
                "skill-compatibility-length",
                "compatibility must be at most 500 characters",
            ),
            (6, 21, "error", "skill-inject-state-type", "adk_inject_state must be a bool"),
            (
                7,
                25,
                "error",
                "skill-additional-tools-type",
                "adk_additional_tools must be a list of strings",
            ),
            (8, 1, "warning", "skill-unknown-field", "Unknown frontmatter field 'descriptoin'"),
            (9, 1, "warning", "skill-unknown-field", "Unknown frontmatter field 'owner'"),
            (
                11,
                1,
                "warning",
                "skill-body-empty",
                "SKILL.md has no instructions after the frontmatter",
            ),
        ],
    ),
    (
        "wrong types",
        (
            "---\nname: 5\ndescription: true\nlicense: [a]\nallowed-tools: [Read, Grep]\n"
            "metadata: [1]\n---\nbody\n"
        ),
        [
            (2, 7, "error", "skill-field-type", "name must be a string, not an integer"),
            (3, 14, "error", "skill-field-type", "description must be a string, not a boolean"),
            (4, 10, "error", "skill-field-type", "license must be a string, not a list"),
            (5, 16, "error", "skill-field-type", "allowed-tools must be a string, not a list"),
            (6, 11, "error", "skill-field-type", "metadata must be a mapping, not a list"),
        ],
    ),
    (
        "name rules: length and doubled hyphens",
        "---\nname: " + "a-" * 33 + "b\ndescription: d\n---\nbody\n",
        [
            (2, 7, "error", "skill-name-length", "name must be at most 64 characters"),
        ],
    ),
    (
        "description too long",
        "---\nname: demo\ndescription: " + "x" * 1025 + "\n---\nbody\n",
        [
            (
                3,
                14,
                "error",
                "skill-description-length",
                "description must be at most 1024 characters. Description length: 1025",
            )
        ],
    ),
    (
        "duplicate key",
        "---\nname: demo\nname: demo\ndescription: d\n---\nbody\n",
        [
            (
                3,
                1,
                "warning",
                "skill-frontmatter-duplicate-key",
                "Duplicate frontmatter key 'name' (first set on line 2); the last value wins",
            )
        ],
    ),
    (
        "placeholders without adk_inject_state",
        "---\nname: demo\ndescription: d\n---\n\nHello {dev_name?}, and {user:x}.\n",
        [
            (
                6,
                7,
                "warning",
                "skill-placeholders-not-injected",
                (
                    "The instructions contain {dev_name?} but metadata.adk_inject_state is not true, so "
                    "the model receives the placeholder text as is"
                ),
            )
        ],
    ),
    (
        "placeholders with adk_inject_state are fine",
        (
            "---\nname: demo\ndescription: d\nmetadata:\n  adk_inject_state: true\n---\n"
            "Hello {dev_name?}.\n"
        ),
        [],
    ),
    (
        "both spellings of allowed-tools",
        "---\nname: demo\ndescription: d\nallowed-tools: Read\nallowed_tools: Grep\n---\nbody\n",
        [
            (
                5,
                1,
                "warning",
                "skill-allowed-tools-twice",
                "Both 'allowed-tools' and 'allowed_tools' are set; 'allowed-tools' wins",
            )
        ],
    ),
    (
        "a byte-order mark before the fence is accepted",
        "\ufeff---\nname: demo\ndescription: d\n---\nbody\n",
        [],
    ),
]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_problems_of_one_skill(
    tmp_path: Path, text: str, expected: list[tuple[int, int, str, str, str]]
) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "SKILL.md").write_text(text, encoding="utf-8")

    problems = validate_skill_dir(folder)

    assert [(p.line, p.column, p.severity, p.rule, p.message) for p in problems] == expected
    assert all(p.path == str(folder / "SKILL.md") for p in problems)
    assert all(p.hint for p in problems)


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("---\nname: Demo\ndescription: d\n---\nb\n", "Use the folder's name, 'demo'."),
        (
            "---\nname: other\ndescription: d\n---\nb\n",
            "Rename the folder to 'other', or set 'name: demo'.",
        ),
        ("---\ndescription: d\n---\nb\n", "Add 'name: demo' (the skill folder's name)."),
        (
            "---\nname: demo\ndescription: d\nmetadata:\n  adk_inject_state: 'yes'\n---\nb\n",
            "Write 'adk_inject_state: true' or 'adk_inject_state: false', without quotes.",
        ),
        ("---\nname: demo\ndescription: d\nlicence: MIT\n---\nb\n", "Did you mean 'license'?"),
    ],
)
def test_hints_say_how_to_fix(tmp_path: Path, text: str, hint: str) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "SKILL.md").write_text(text, encoding="utf-8")

    assert [p.hint for p in validate_skill_dir(folder)] == [hint]


def test_lowercase_skill_md_is_accepted(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "skill.md").write_text("---\nname: demo\ndescription: d\n---\nb\n")

    assert validate_skill_dir(folder) == []


@pytest.mark.parametrize(
    ("setup", "rule", "message"),
    [
        ("missing", "skill-dir-missing", "Skill directory '{p}' not found."),
        ("file", "skill-not-a-directory", "'{p}' is not a directory."),
        ("no-skill-md", "skill-md-missing", "SKILL.md not found in '{p}'."),
    ],
)
def test_path_problems(tmp_path: Path, setup: str, rule: str, message: str) -> None:
    path = tmp_path / "demo"
    if setup == "file":
        path.write_text("x")
    elif setup == "no-skill-md":
        path.mkdir()

    assert validate_skill_dir(path) == [
        SkillProblem(
            str(path), 0, 0, rule, "error", message.format(p=path), validate_skill_dir(path)[0].hint
        )
    ]


def test_not_utf8(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(b"---\nname: demo\ndescription: caf\xe9\n---\n")

    [problem] = validate_skill_dir(folder)

    assert (problem.line, problem.column, problem.rule, problem.message) == (
        3,
        17,
        "skill-md-encoding",
        "SKILL.md is not valid UTF-8 (byte 0xe9)",
    )


def test_format() -> None:
    problem = SkillProblem("s/SKILL.md", 3, 14, "skill-x", "error", "Bad.", "Fix it.")
    path_problem = SkillProblem("s", 0, 0, "skill-y", "warning", "Odd.")

    assert problem.format() == "s/SKILL.md:3:14: error skill-x: Bad.\n  hint: Fix it."
    assert path_problem.format() == "s: warning skill-y: Odd."


def test_paths_mix_skill_folders_and_folders_of_skills(make_skill, tmp_path: Path) -> None:
    make_skill("alpha")
    make_skill("beta", "---\nname: beta\n---\nb\n")
    (tmp_path / "skills" / "drafts").mkdir()
    (tmp_path / "skills" / ".hidden").mkdir()
    lone = make_skill("gamma", parent=tmp_path / "elsewhere")

    problems = validate_skill_paths(["skills", lone, "nowhere"], base_dir=tmp_path)

    assert [(p.path, p.rule, p.severity) for p in problems] == [
        (str(tmp_path / "skills" / "drafts"), "skill-md-missing", "warning"),
        (str(tmp_path / "nowhere"), "skill-path-missing", "error"),
        (str(tmp_path / "skills" / "beta" / "SKILL.md"), "skill-description-required", "error"),
    ]
    assert problems[1].message == (
        f"Skill path 'nowhere' does not exist (looked for '{tmp_path / 'nowhere'}')."
    )
    assert problems[1].hint == f"Relative skill paths are resolved against '{tmp_path}'."


def test_paths_report_duplicate_names(make_skill, tmp_path: Path) -> None:
    make_skill("alpha")
    make_skill("alpha", parent=tmp_path / "more")

    problems = validate_skill_paths(["skills", "more"], base_dir=tmp_path)

    assert [(p.path, p.rule, p.message) for p in problems] == [
        (
            str(tmp_path / "more" / "alpha" / "SKILL.md"),
            "skill-name-duplicate",
            "Duplicate skill name 'alpha'.",
        ),
    ]


def test_paths_accept_a_skill_md_file_and_ignore_repeats(make_skill, tmp_path: Path) -> None:
    make_skill("alpha")

    assert (
        validate_skill_paths(["skills/alpha/SKILL.md", "skills/alpha", "skills"], base_dir=tmp_path)
        == []
    )


def test_empty_folder_is_neither(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()

    [problem] = validate_skill_paths(["empty"], base_dir=tmp_path)

    assert (problem.rule, problem.message) == (
        "skill-path-empty",
        f"'{tmp_path / 'empty'}' is neither a skill folder (no SKILL.md) nor a folder of skills.",
    )

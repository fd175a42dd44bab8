"""The rules a SKILL.md frontmatter must follow, as data: every broken rule, not the first.

The pydantic models and ``validate_skill_dir`` both call these functions, so a skill built in
Python and a skill read from disk are held to the same rules with the same messages (google-adk's
messages where it has one).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Final

from yadk._yaml import type_name
from yadk.skills._skill_md import Severity

__all__ = [
    "KNOWN_FIELDS",
    "FieldProblem",
    "check_frontmatter",
    "compatibility_problems",
    "description_problems",
    "metadata_problems",
    "name_problems",
    "normalize_name",
    "plainly_valid",
]

KNOWN_FIELDS: Final = (
    "name",
    "description",
    "license",
    "compatibility",
    "allowed-tools",
    "allowed_tools",
    "metadata",
)
MAX_NAME: Final = 64
MAX_DESCRIPTION: Final = 1024
MAX_COMPATIBILITY: Final = 500

_KEBAB: Final = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_NAME_FORMAT: Final = (
    "name must be lowercase kebab-case (a-z, 0-9, hyphens), with no leading, trailing, or "
    "consecutive delimiters"
)


@dataclasses.dataclass(frozen=True)
class FieldProblem:
    """A broken rule at a frontmatter key path such as ``("metadata", "adk_inject_state")``."""

    key_path: tuple[str, ...]
    rule: str
    message: str
    hint: str
    severity: Severity = "error"
    at_value: bool = True


def normalize_name(name: str) -> str:
    return unicodedata.normalize("NFKC", name)


def suggest_name(name: str) -> str:
    """A kebab-case spelling of ``name`` (``My_Skill`` -> ``my-skill``)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:MAX_NAME].strip("-")


def name_problems(name: str, *, folder_name: str | None = None) -> list[tuple[str, str, str]]:
    """(rule, message, hint) for each rule the (already NFKC-normalised) name breaks."""
    problems = []
    if len(name) > MAX_NAME:
        problems.append(
            (
                "skill-name-length",
                f"name must be at most {MAX_NAME} characters",
                f"Shorten the name (it has {len(name)} characters) and rename the folder to match.",
            )
        )
    if not _KEBAB.match(name):
        if folder_name is not None and _KEBAB.match(folder_name):
            hint = f"Use the folder's name, '{folder_name}'."
        elif suggestion := suggest_name(name):
            hint = f"Use lowercase letters, digits and single hyphens, e.g. '{suggestion}'."
        else:
            hint = "Use lowercase letters, digits and single hyphens between words."
        problems.append(("skill-name-format", _NAME_FORMAT, hint))
    return problems


def description_problems(description: str) -> list[tuple[str, str, str]]:
    if not description:
        return [
            (
                "skill-description-empty",
                "description must not be empty",
                "Say what the skill does and when the model should use it.",
            )
        ]
    if len(description) > MAX_DESCRIPTION:
        return [
            (
                "skill-description-length",
                (
                    f"description must be at most {MAX_DESCRIPTION} characters. Description length: "
                    f"{len(description)}"
                ),
                "Keep the description to a short summary; move details into the SKILL.md body.",
            )
        ]
    return []


def compatibility_problems(compatibility: str) -> list[tuple[str, str, str]]:
    if len(compatibility) > MAX_COMPATIBILITY:
        return [
            (
                "skill-compatibility-length",
                f"compatibility must be at most {MAX_COMPATIBILITY} characters",
                f"Shorten it (it has {len(compatibility)} characters).",
            )
        ]
    return []


def metadata_problems(metadata: Mapping[Any, Any]) -> list[tuple[str, str, str, str]]:
    """(key, rule, message, hint) for each ``adk_*`` metadata entry of the wrong type."""
    problems = []
    if "adk_additional_tools" in metadata:
        tools = metadata["adk_additional_tools"]
        if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
            problems.append(
                (
                    "adk_additional_tools",
                    "skill-additional-tools-type",
                    "adk_additional_tools must be a list of strings",
                    "List tool names, e.g. 'adk_additional_tools: [search, fetch_page]'.",
                )
            )
    if "adk_inject_state" in metadata and not isinstance(metadata["adk_inject_state"], bool):
        problems.append(
            (
                "adk_inject_state",
                "skill-inject-state-type",
                "adk_inject_state must be a bool",
                "Write 'adk_inject_state: true' or 'adk_inject_state: false', without quotes.",
            )
        )
    return problems


def _type_problem(key: str, value: Any, expected: str, hint: str) -> FieldProblem:
    return FieldProblem(
        (key,),
        "skill-field-type",
        f"{key} must be {expected}, not {type_name(value)}",
        hint,
    )


def check_frontmatter(
    data: Mapping[Any, Any], *, folder_name: str | None = None
) -> list[FieldProblem]:
    """Every problem with a frontmatter mapping; ``folder_name`` enables the name/folder check."""
    problems: list[FieldProblem] = []
    name = data.get("name")
    if "name" not in data:
        problems.append(
            FieldProblem(
                ("name",),
                "skill-name-required",
                "Frontmatter field 'name' is required",
                f"Add 'name: {folder_name}' (the skill folder's name)."
                if folder_name
                else "Add 'name: <skill name>' in kebab-case.",
            )
        )
    elif not isinstance(name, str):
        problems.append(
            _type_problem("name", name, "a string", "Write the name as lowercase kebab-case text.")
        )
    else:
        name = normalize_name(name)
        broken = name_problems(name, folder_name=folder_name)
        problems.extend(FieldProblem(("name",), *p) for p in broken)
        # An invalid name is reported as such; the mismatch would only repeat it.
        if not broken and folder_name is not None and name != folder_name:
            if name_problems(folder_name):
                hint = f"Rename the folder to '{name}'."
            else:
                hint = f"Rename the folder to '{name}', or set 'name: {folder_name}'."
            problems.append(
                FieldProblem(
                    ("name",),
                    "skill-name-mismatch",
                    f"Skill name '{name}' does not match directory name '{folder_name}'.",
                    hint,
                )
            )

    description = data.get("description")
    if "description" not in data:
        problems.append(
            FieldProblem(
                ("description",),
                "skill-description-required",
                "Frontmatter field 'description' is required",
                "Add 'description: ...' saying what the skill does and when to use it.",
            )
        )
    elif not isinstance(description, str):
        problems.append(
            _type_problem("description", description, "a string", "Quote the description.")
        )
    else:
        problems.extend(
            FieldProblem(("description",), *p) for p in description_problems(description)
        )

    for key in ("license", "compatibility", "allowed-tools", "allowed_tools"):
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            hint = (
                "Write the tools as one space-separated string, e.g. 'allowed-tools: Read Grep'."
                if key.startswith("allowed")
                else f"Quote the {key} value."
            )
            problems.append(_type_problem(key, value, "a string", hint))
        elif key == "compatibility":
            problems.extend(FieldProblem((key,), *p) for p in compatibility_problems(value))

    if "allowed-tools" in data and "allowed_tools" in data:
        problems.append(
            FieldProblem(
                ("allowed_tools",),
                "skill-allowed-tools-twice",
                "Both 'allowed-tools' and 'allowed_tools' are set; 'allowed-tools' wins",
                "Keep only 'allowed-tools'.",
                severity="warning",
                at_value=False,
            )
        )

    metadata = data.get("metadata")
    if metadata is not None:
        if not isinstance(metadata, dict):
            problems.append(
                _type_problem(
                    "metadata",
                    metadata,
                    "a mapping",
                    "Write metadata as indented 'key: value' lines.",
                )
            )
        else:
            problems.extend(
                FieldProblem(("metadata", key), rule, message, hint)
                for key, rule, message, hint in metadata_problems(metadata)
            )

    for key in data:
        if key in KNOWN_FIELDS:
            continue
        import difflib  # only a mistake needs a suggestion: imported then

        close = difflib.get_close_matches(str(key), KNOWN_FIELDS, n=1)
        problems.append(
            FieldProblem(
                (str(key),),
                "skill-unknown-field",
                f"Unknown frontmatter field '{key}'",
                f"Did you mean '{close[0]}'?"
                if close
                else "Known fields: name, description, license, compatibility, allowed-tools, "
                "metadata; put custom entries under 'metadata'.",
                severity="warning",
                at_value=False,
            )
        )
    return problems


def plainly_valid(data: Mapping[Any, Any]) -> bool:
    """Whether frontmatter that ``check_frontmatter`` found no error in certainly makes a
    ``Frontmatter`` model too (plain strings and a string-keyed ``metadata`` mapping), so that
    ``yadk validate`` can skip building it. ``False`` means "not sure": build the model then."""
    strings = ("name", "description", "license", "compatibility", "allowed-tools", "allowed_tools")
    metadata = data.get("metadata", {})
    return (
        all(isinstance(key, str) for key in data)
        and not ("allowed-tools" in data and "allowed_tools" in data)
        and isinstance(data.get("name"), str)
        and isinstance(data.get("description"), str)
        and all(data.get(key) is None or isinstance(data[key], str) for key in strings)
        and type(metadata) is dict
        and all(isinstance(key, str) for key in metadata)
    )

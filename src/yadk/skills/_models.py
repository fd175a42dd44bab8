"""The skill data model: Frontmatter (L1, for discovery), Skill (frontmatter + L2 instructions +
L3 resources), as in google-adk so code written for ADK builds skills the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from yadk.skills._checks import (
    compatibility_problems,
    description_problems,
    metadata_problems,
    name_problems,
    normalize_name,
)
from yadk.skills._resources import Resources

__all__ = ["Frontmatter", "Skill"]


def _raise_first(problems: list[tuple[str, str, str]]) -> None:
    # pydantic reports one message per field; validate_skill_dir reports them all.
    if problems:
        raise ValueError(problems[0][1])


class Frontmatter(BaseModel):
    """The metadata block of SKILL.md.

    ``name`` is kebab-case (NFKC-normalised, at most 64 characters); ``description`` says what the
    skill does and when to use it (1-1024 characters). ``allowed_tools`` also accepts the
    ``allowed-tools`` spelling. In ``metadata``, ``adk_inject_state: true`` renders the body with
    session state when the skill is loaded, and ``adk_additional_tools`` names tools the skill
    brings once loaded. Unknown top-level keys are kept.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    name: str
    description: str
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: str | None = Field(
        default=None, alias="allowed-tools", serialization_alias="allowed-tools"
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        value = normalize_name(value)
        _raise_first(name_problems(value))
        return value

    @field_validator("description")
    @classmethod
    def _check_description(cls, value: str) -> str:
        _raise_first(description_problems(value))
        return value

    @field_validator("compatibility")
    @classmethod
    def _check_compatibility(cls, value: str | None) -> str | None:
        if value is not None:
            _raise_first(compatibility_problems(value))
        return value

    @field_validator("metadata")
    @classmethod
    def _check_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        _raise_first(
            [(rule, message, hint) for _key, rule, message, hint in metadata_problems(value)]
        )
        return value

    @property
    def inject_state(self) -> bool:
        """Whether ``load_skill`` renders the body with session state."""
        return self.metadata.get("adk_inject_state") is True

    @property
    def additional_tools(self) -> list[str]:
        """Names of the tools the skill brings once loaded (``adk_additional_tools``)."""
        return list(self.metadata.get("adk_additional_tools") or [])


class Skill(BaseModel):
    """A skill: frontmatter (L1), the SKILL.md body as instructions (L2), resources (L3)."""

    frontmatter: Frontmatter
    instructions: str
    resources: Resources = Field(default_factory=Resources)

    _path: Path | None = PrivateAttr(default=None)

    @property
    def name(self) -> str:
        return self.frontmatter.name

    @property
    def description(self) -> str:
        return self.frontmatter.description

    @property
    def path(self) -> Path | None:
        """The folder the skill was loaded from (``None`` for a skill built in Python)."""
        return self._path

"""SkillToolset: offers skills to a model by progressive disclosure.

The system instruction gets a short guide and each skill's name and description; the model
loads a skill's instructions (``load_skill``) and files (``load_skill_resource``) when it needs
them. Everything derived from the skill set is computed once per registry version, not per turn.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from yadk.errors import SkillError
from yadk.skills._models import Skill
from yadk.skills._prompt import format_skills_as_xml, skill_system_instruction
from yadk.skills._registry import SkillRegistry
from yadk.skills._resources import DEFAULT_MAX_RESOURCE_BYTES
from yadk.skills._scripts import RunSkillScriptTool
from yadk.skills._tools import (
    ListSkillsTool,
    LoadSkillResourceTool,
    LoadSkillTool,
    activated_skills_state_key,
)
from yadk.skills._validation import SkillProblem
from yadk.tools import BaseTool, BaseToolset, FunctionTool

if TYPE_CHECKING:
    from yadk._contexts import ReadonlyContext, ToolContext
    from yadk.models import LlmRequest

__all__ = ["DEFAULT_SCRIPT_TIMEOUT", "SkillToolset", "skill_toolset_from_paths"]

logger = logging.getLogger("yadk.skills")

DEFAULT_SCRIPT_TIMEOUT = 300.0


@dataclasses.dataclass(frozen=True)
class _View:
    """What the toolset derives from one version of the skill set."""

    version: int
    listing: str
    instructions: tuple[str, ...]
    scripts: bool


class SkillToolset(BaseToolset):
    """Skills as tools: ``list_skills``, ``load_skill``, ``load_skill_resource`` (and
    ``run_skill_script`` when ``allow_scripts`` is set and some skill has scripts).

    ``skills`` may mix ``Skill`` objects with paths to skill folders or folders of skills
    (relative to ``base_dir``); or pass a shared ``registry`` instead. Duplicate names raise
    ``SkillError``. ``additional_tools`` are offered only while a loaded skill names them in its
    ``adk_additional_tools`` metadata.
    """

    def __init__(
        self,
        skills: Iterable[Skill | str | os.PathLike[str]] | None = None,
        *,
        registry: SkillRegistry | None = None,
        base_dir: str | os.PathLike[str] | None = None,
        allow_scripts: bool = False,
        script_timeout: float = DEFAULT_SCRIPT_TIMEOUT,
        max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
        additional_tools: Sequence[BaseTool | BaseToolset | Callable[..., Any]] | None = None,
    ) -> None:
        given = list(skills or [])
        if registry is not None and given:
            raise SkillError("Pass SkillToolset either skills or a registry, not both.")
        if registry is None:
            fixed = [s for s in given if isinstance(s, Skill)]
            paths = [s for s in given if not isinstance(s, Skill)]
            for path in paths:
                if not isinstance(path, (str, os.PathLike)):
                    raise SkillError(
                        f"SkillToolset skills must be Skill objects or folder paths, got "
                        f"{type(path).__name__}."
                    )
            registry = SkillRegistry(fixed, paths=paths, base_dir=base_dir)
        if script_timeout <= 0:
            raise SkillError(f"script_timeout must be positive, got {script_timeout}.")
        self._registry = registry
        self.allow_scripts = allow_scripts
        self.script_timeout = script_timeout
        self.max_resource_bytes = max_resource_bytes
        self._core: list[BaseTool] = [
            ListSkillsTool(self),
            LoadSkillTool(self),
            LoadSkillResourceTool(self),
        ]
        self._run_script = RunSkillScriptTool(self)
        self._extra_tools: dict[str, BaseTool] = {}
        self._extra_toolsets: list[BaseToolset] = []
        for item in additional_tools or []:
            if isinstance(item, BaseToolset):
                self._extra_toolsets.append(item)
            elif isinstance(item, BaseTool):
                self._extra_tools[item.name] = item
            elif callable(item):
                tool = FunctionTool(item)
                self._extra_tools[tool.name] = tool
            else:
                raise SkillError(f"additional_tools entry {item!r} is not a tool or a function.")
        self._view_cache: _View | None = None

    @property
    def registry(self) -> SkillRegistry:
        return self._registry

    @property
    def skills(self) -> list[Skill]:
        """The current skills."""
        return list(self._registry)

    def refresh(self) -> list[SkillProblem]:
        """Rescan the skill folders (see ``SkillRegistry.refresh``); returns the problems."""
        return self._registry.refresh()

    def _view(self) -> _View:
        version = self._registry.version
        view = self._view_cache
        if view is None or view.version != version:
            skills = list(self._registry)
            scripts = self.allow_scripts and any(s.resources.list_scripts() for s in skills)
            listing = format_skills_as_xml(skills)
            view = _View(
                version,
                listing,
                (skill_system_instruction(scripts_runnable=scripts), listing),
                scripts,
            )
            self._view_cache = view
        return view

    def listing(self) -> str:
        """The ``<available_skills>`` block (what ``list_skills`` returns)."""
        return self._view().listing

    def instructions(self) -> list[str]:
        """The blocks added to the system instruction: the guide, then the listing."""
        return list(self._view().instructions)

    def list_active_skills(self, context: ReadonlyContext) -> list[str]:
        """The skills the context's agent has loaded in this session, in load order."""
        return list(context.state.get(activated_skills_state_key(context.agent_name)) or [])

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        tools = list(self._core)
        if self._view().scripts:
            tools.append(self._run_script)
        if readonly_context is not None and (self._extra_tools or self._extra_toolsets):
            tools += await self._additional_tools(readonly_context, {t.name for t in tools})
        return tools

    async def _additional_tools(self, context: ReadonlyContext, taken: set[str]) -> list[BaseTool]:
        wanted: dict[str, None] = {}  # ordered, so declarations keep a stable order
        for name in self.list_active_skills(context):
            skill = self._registry.get(name)
            if skill is not None:
                wanted.update(dict.fromkeys(skill.frontmatter.additional_tools))
        if not wanted:
            return []
        candidates = dict(self._extra_tools)
        for toolset in self._extra_toolsets:
            for tool in await toolset.get_tools(context):
                candidates[tool.name] = tool
        resolved = []
        for name in wanted:
            found = candidates.get(name)
            if found is None:
                continue
            if found.name in taken:
                logger.error("Tool name collision: tool '%s' already exists.", found.name)
                continue
            taken.add(found.name)
            resolved.append(found)
        return resolved

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        llm_request.append_instructions(list(self._view().instructions))

    async def close(self) -> None:
        for toolset in self._extra_toolsets:
            await toolset.close()


def skill_toolset_from_paths(
    paths: Iterable[str | os.PathLike[str]],
    *,
    base_dir: str | os.PathLike[str] | None = None,
    allow_scripts: bool = False,
    script_timeout: float = DEFAULT_SCRIPT_TIMEOUT,
    max_resource_bytes: int = DEFAULT_MAX_RESOURCE_BYTES,
) -> SkillToolset:
    """A SkillToolset over skill folders or folders of skills (the YAML ``skills:`` list),
    relative paths resolved against ``base_dir`` (the config file's folder).

    Raises ``SkillError`` naming every problem of every skill (see ``validate_skill_paths``).
    """
    registry = SkillRegistry(paths=paths, base_dir=base_dir)
    return SkillToolset(
        registry=registry,
        allow_scripts=allow_scripts,
        script_timeout=script_timeout,
        max_resource_bytes=max_resource_bytes,
    )

"""What the model reads about skills: the guide added to the system instruction and the
``<available_skills>`` listing. Worded exactly as google-adk 2.13 words them, so prompts tuned
for ADK behave the same."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

__all__ = ["format_skills_as_xml", "skill_system_instruction"]


# html.escape's replacements (quote=True), without importing html (its entity table is most of
# the module's import cost, and only escaping is needed).
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


class _Named(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...


def format_skills_as_xml(skills: Iterable[_Named]) -> str:
    """Name and description of each skill, HTML-escaped, as an ``<available_skills>`` block."""
    lines = ["<available_skills>"]
    for skill in skills:
        lines += [
            "<skill>",
            "<name>",
            skill.name.translate(_ESCAPES),
            "</name>",
            "<description>",
            skill.description.translate(_ESCAPES),
            "</description>",
            "</skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


_INTRO = (
    "You can use specialized 'skills' to help you with complex tasks. You MUST use the skill "
    "tools to interact with these skills.\n\n"
    "Skills are folders of instructions and resources that extend your capabilities for "
    "specialized tasks. Each skill folder contains:\n"
    "- **SKILL.md** (required): The main instruction file with skill metadata and detailed "
    "markdown instructions.\n"
    "- **references/** (Optional): Additional documentation or examples for skill usage.\n"
    "- **assets/** (Optional): Templates, scripts or other resources used by the skill.\n"
)
_SCRIPTS_RUNNABLE = "- **scripts/** (Optional): Executable scripts that can be run via bash.\n\n"
_SCRIPTS_READ_ONLY = (
    "- **scripts/** (Optional): Scripts bundled with the skill. You cannot run them; use "
    "`load_skill_resource` to read one and follow it yourself.\n\n"
)


def skill_system_instruction(*, scripts_runnable: bool) -> str:
    """The guide to the skill tools; ``scripts_runnable`` says whether ``run_skill_script`` is
    offered (it is mentioned only then, so the model is never promised a missing tool)."""
    steps = [
        (
            "If a skill seems relevant to the current user query, you MUST use the `load_skill` tool "
            'with `skill_name="<SKILL_NAME>"` to read its full instructions before proceeding.'
        ),
        (
            "Once you have read the instructions, follow them exactly as documented before replying "
            "to the user. For example, If the instruction lists multiple steps, please make sure you "
            "complete all of them in order."
        ),
        (
            "The `load_skill_resource` tool is for viewing files within a skill's directory (e.g., "
            "`references/*`, `assets/*`, `scripts/*`). It is ONLY for skill-bundled files \u2014 do "
            "NOT use it to access documents or files provided by the user at runtime. Do NOT use "
            "other tools to access skill files."
        ),
    ]
    if scripts_runnable:
        steps.append(
            "Use `run_skill_script` to run scripts from a skill's `scripts/` directory. Use "
            "`load_skill_resource` to view script content first if needed."
        )
    steps.append(
        "If `load_skill_resource` returns any error, do not retry any path. Report the error to "
        "the user and stop."
    )
    if scripts_runnable:
        steps.append(
            "If `run_skill_script` returns an error (for example `SCRIPT_NOT_FOUND`), do not "
            "retry the same script or guess a different script path. Report the error to the "
            "user and stop."
        )
    steps.append(
        "Loading a skill only retrieves its instructions; it does NOT complete your turn. After a "
        "`load_skill` call returns, continue in the SAME turn: call whatever tools the skill's "
        "steps require (search, data retrieval, render), then write your reply. Never end your "
        "turn with an empty response right after loading a skill."
    )
    numbered = "".join(f"{i}. {step}\n" for i, step in enumerate(steps, start=1))
    scripts = _SCRIPTS_RUNNABLE if scripts_runnable else _SCRIPTS_READ_ONLY
    return _INTRO + scripts + "This is very important:\n\n" + numbered

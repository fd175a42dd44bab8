"""SkillToolset: what the model sees (instructions, declarations) and what the tools return."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from yadk.errors import SkillError
from yadk.models import LlmRequest
from yadk.skills import (
    Frontmatter,
    Resources,
    Skill,
    SkillRegistry,
    SkillToolset,
    skill_toolset_from_paths,
)
from yadk.skills import _toolset as toolset_module
from yadk.skills._prompt import skill_system_instruction
from yadk.testing import tool_context
from yadk.tools import BaseTool
from yadk.types import Content, Part

# google-adk 2.13's guide, byte for byte (script execution off).
ADK_GUIDE = (
    "You can use specialized 'skills' to help you with complex tasks. You MUST use the skill "
    "tools to interact with these skills.\n\nSkills are folders of instructions and resources "
    "that extend your capabilities for specialized tasks. Each skill folder contains:\n"
    "- **SKILL.md** (required): The main instruction file with skill metadata and detailed "
    "markdown instructions.\n- **references/** (Optional): Additional documentation or examples "
    "for skill usage.\n- **assets/** (Optional): Templates, scripts or other resources used by "
    "the skill.\n- **scripts/** (Optional): Scripts bundled with the skill. You cannot run them; "
    "use `load_skill_resource` to read one and follow it yourself.\n\nThis is very important:"
    "\n\n1. If a skill seems relevant to the current user query, you MUST use the `load_skill` "
    'tool with `skill_name="<SKILL_NAME>"` to read its full instructions before proceeding.\n'
    "2. Once you have read the instructions, follow them exactly as documented before replying "
    "to the user. For example, If the instruction lists multiple steps, please make sure you "
    "complete all of them in order.\n3. The `load_skill_resource` tool is for viewing files "
    "within a skill's directory (e.g., `references/*`, `assets/*`, `scripts/*`). It is ONLY for "
    "skill-bundled files \u2014 do NOT use it to access documents or files provided by the user "
    "at runtime. Do NOT use other tools to access skill files.\n4. If `load_skill_resource` "
    "returns any error, do not retry any path. Report the error to the user and stop.\n"
    "5. Loading a skill only retrieves its instructions; it does NOT complete your turn. After "
    "a `load_skill` call returns, continue in the SAME turn: call whatever tools the skill's "
    "steps require (search, data retrieval, render), then write your reply. Never end your turn "
    "with an empty response right after loading a skill.\n"
)

REVIEW_MD = (
    '---\nname: code-review\ndescription: Reviews <code> & "style".\nmetadata:\n'
    "  adk_inject_state: true\n---\nReview for {dev_name?} ({dev_level?}).\n"
)


def _skill(name: str, instructions: str = "Do it.", **metadata: Any) -> Skill:
    return Skill(
        frontmatter=Frontmatter(name=name, description=f"About {name}.", metadata=metadata),
        instructions=instructions,
    )


async def _tools(toolset: SkillToolset, ctx: Any = None) -> dict[str, BaseTool]:
    return {t.name: t for t in await toolset.get_tools(ctx)}


async def _call(toolset: SkillToolset, name: str, ctx: Any, **args: Any) -> Any:
    return await (await _tools(toolset))[name].run_async(args=args, tool_context=ctx)


def test_guide_matches_google_adk() -> None:
    assert skill_system_instruction(scripts_runnable=False) == ADK_GUIDE


async def test_system_instruction_is_the_guide_and_the_listing(make_skill, tmp_path: Path) -> None:
    make_skill("code-review", REVIEW_MD)
    toolset = SkillToolset([tmp_path / "skills"])
    request = LlmRequest(system_instruction="You help developers.")

    await toolset.process_llm_request(tool_context=tool_context(), llm_request=request)

    assert request.system_instruction == (
        "You help developers.\n\n" + ADK_GUIDE + "\n\n<available_skills>\n<skill>\n<name>\n"
        "code-review\n</name>\n<description>\nReviews &lt;code&gt; &amp; &quot;style&quot;.\n"
        "</description>\n</skill>\n</available_skills>"
    )


async def test_declarations() -> None:
    toolset = SkillToolset([_skill("a")])

    declarations = [t.declaration().to_dict() for t in await toolset.get_tools()]  # type: ignore[union-attr]

    assert declarations == [
        {
            "name": "list_skills",
            "description": "Lists all available skills with their names and descriptions.",
            "parameters": {"type": "object", "properties": {}},
        },
        {
            "name": "load_skill",
            "description": "Loads the SKILL.md instructions for a given skill.",
            "parameters": {
                "type": "object",
                "properties": {
                    "skill_name": {
                        "type": "string",
                        "description": "The name of the skill to load.",
                    }
                },
                "required": ["skill_name"],
            },
        },
        {
            "name": "load_skill_resource",
            "description": "Loads a resource file (from references/, assets/, or scripts/) from "
            "within a skill.",
            "parameters": {
                "type": "object",
                "properties": {
                    "skill_name": {"type": "string", "description": "The name of the skill."},
                    "file_path": {
                        "type": "string",
                        "description": "The relative path to the resource (e.g., "
                        "'references/my_doc.md', 'assets/template.txt', or 'scripts/setup.sh').",
                    },
                },
                "required": ["skill_name", "file_path"],
            },
        },
    ]


async def test_list_skills() -> None:
    toolset = SkillToolset([_skill("b"), _skill("a")])

    assert await _call(toolset, "list_skills", tool_context()) == (
        "<available_skills>\n<skill>\n<name>\nb\n</name>\n<description>\nAbout b.\n</description>"
        "\n</skill>\n<skill>\n<name>\na\n</name>\n<description>\nAbout a.\n</description>\n"
        "</skill>\n</available_skills>"
    )


async def test_load_skill_renders_state_at_load_time(make_skill, tmp_path: Path) -> None:
    make_skill("code-review", REVIEW_MD)
    toolset = SkillToolset([tmp_path / "skills"])
    ctx = tool_context({"dev_name": "Alex", "dev_level": "senior"}, agent_name="reviewer")

    first = await _call(toolset, "load_skill", ctx, skill_name="code-review")
    ctx.state["dev_name"] = "Sam"
    second = await _call(toolset, "load_skill", ctx, skill_name="code-review")

    assert first == {
        "skill_name": "code-review",
        "instructions": "Review for Alex (senior).",
        "frontmatter": {
            "name": "code-review",
            "description": 'Reviews <code> & "style".',
            "license": None,
            "compatibility": None,
            "allowed_tools": None,
            "metadata": {"adk_inject_state": True},
        },
    }
    assert second["instructions"] == "Review for Sam (senior)."
    assert ctx.actions.state_delta["_adk_activated_skill_reviewer"] == ["code-review"]


async def test_optional_placeholders_render_empty(make_skill, tmp_path: Path) -> None:
    make_skill("code-review", REVIEW_MD)
    toolset = SkillToolset([tmp_path / "skills"])

    result = await _call(toolset, "load_skill", tool_context(), skill_name="code-review")

    assert result["instructions"] == "Review for  ()."


async def test_without_inject_state_placeholders_stay() -> None:
    toolset = SkillToolset([_skill("plain", "Hi {dev_name}")])

    result = await _call(toolset, "load_skill", tool_context({"dev_name": "A"}), skill_name="plain")

    assert result["instructions"] == "Hi {dev_name}"


async def test_activation_is_recorded_once_per_skill() -> None:
    toolset = SkillToolset([_skill("a"), _skill("b")])
    ctx = tool_context(agent_name="agent")

    for name in ("a", "b", "a"):
        await _call(toolset, "load_skill", ctx, skill_name=name)

    assert ctx.state["_adk_activated_skill_agent"] == ["a", "b"]
    assert toolset.list_active_skills(ctx) == ["a", "b"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, {"error": "Argument 'skill_name' is required.", "error_code": "INVALID_ARGUMENTS"}),
        (
            {"skill_name": 3},
            {"error": "Argument 'skill_name' must be a string.", "error_code": "INVALID_ARGUMENTS"},
        ),
        (
            {"skill_name": "nope"},
            {"error": "Skill 'nope' not found.", "error_code": "SKILL_NOT_FOUND"},
        ),
        (
            {"skill_name": "strict"},
            {
                "error": "Could not fill the instructions of skill 'strict' from session state: "
                "Context variable not found: `dev_name` in agent 'agent'.",
                "error_code": "STATE_INJECTION_FAILED",
            },
        ),
    ],
)
async def test_load_skill_errors(args: dict[str, Any], expected: dict[str, str]) -> None:
    toolset = SkillToolset([_skill("strict", "Hi {dev_name}", adk_inject_state=True)])
    ctx = tool_context()

    assert await _call(toolset, "load_skill", ctx, **args) == expected
    assert "_adk_activated_skill_agent" not in ctx.state


@pytest.fixture
def resource_toolset(make_skill, tmp_path: Path) -> SkillToolset:
    make_skill(
        "docs",
        files={
            "references/guide.md": "Guide text",
            "assets/logo.png": b"\x89PNG\r\n\x1a\n\xff\xfe",
            "assets/big.txt": "x" * 64,
        },
    )
    return SkillToolset([tmp_path / "skills"], max_resource_bytes=32)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"skill_name": "docs", "file_path": "references/guide.md"},
            {"skill_name": "docs", "file_path": "references/guide.md", "content": "Guide text"},
        ),
        (
            {},
            {
                "error": "Argument 'skill_name' is required.\nArgument 'file_path' is required.",
                "error_code": "INVALID_ARGUMENTS",
            },
        ),
        (
            {"skill_name": "docs"},
            {"error": "Argument 'file_path' is required.", "error_code": "INVALID_ARGUMENTS"},
        ),
        (
            {"skill_name": "nope", "file_path": "references/guide.md"},
            {"error": "Skill 'nope' not found.", "error_code": "SKILL_NOT_FOUND"},
        ),
        (
            {"skill_name": "docs", "file_path": "SKILL.md"},
            {
                "error": "Path must start with 'references/', 'assets/', or 'scripts/'.",
                "error_code": "INVALID_RESOURCE_PATH",
            },
        ),
        (
            {"skill_name": "docs", "file_path": "references/../SKILL.md"},
            {
                "error": "Resource 'references/../SKILL.md' not found in skill 'docs'.",
                "error_code": "RESOURCE_NOT_FOUND",
            },
        ),
        (
            {"skill_name": "docs", "file_path": "assets/big.txt"},
            {
                "error": "Resource 'assets/big.txt' in skill 'docs' is 64 bytes, over the limit of 32 "
                "bytes.",
                "error_code": "RESOURCE_TOO_LARGE",
            },
        ),
        (
            {"skill_name": "docs", "file_path": "assets/logo.png"},
            {
                "skill_name": "docs",
                "file_path": "assets/logo.png",
                "status": "Binary file detected. The content has been injected into the conversation "
                "history for you to analyze.",
            },
        ),
    ],
)
async def test_load_skill_resource(
    resource_toolset: SkillToolset, args: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert await _call(resource_toolset, "load_skill_resource", tool_context(), **args) == expected


async def test_repeated_missing_resources_tell_the_model_to_stop(
    resource_toolset: SkillToolset,
) -> None:
    ctx = tool_context()

    first = await _call(
        resource_toolset, "load_skill_resource", ctx, skill_name="docs", file_path="references/a.md"
    )
    second = await _call(
        resource_toolset, "load_skill_resource", ctx, skill_name="docs", file_path="references/b.md"
    )

    assert first["error_code"] == "RESOURCE_NOT_FOUND"
    assert second == {
        "error": "Resource 'references/b.md' not found in skill 'docs'. This is resource lookup "
        "failure #2 this invocation. Do not retry any path \u2014 report the error to the user "
        "and stop.",
        "error_code": "RESOURCE_NOT_FOUND_FATAL",
    }


async def test_binary_resources_are_attached_to_the_next_request(
    resource_toolset: SkillToolset,
) -> None:
    ctx = tool_context()
    response = await _call(
        resource_toolset, "load_skill_resource", ctx, skill_name="docs", file_path="assets/logo.png"
    )
    request = LlmRequest(
        contents=[
            Content(
                role="user",
                parts=[Part.from_function_response(name="load_skill_resource", response=response)],
            )
        ]
    )

    await (await _tools(resource_toolset))["load_skill_resource"].process_llm_request(
        tool_context=ctx, llm_request=request
    )

    assert request.contents[-1].to_dict() == {
        "role": "user",
        "parts": [
            {"text": "The content of binary file 'assets/logo.png' is:"},
            {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgr//g=="}},
        ],
    }
    assert "load_skill_resource" in request.tools_dict


async def test_listing_is_computed_once_per_version(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = toolset_module.format_skills_as_xml

    def counting(skills: Any) -> str:
        calls.append(1)
        return real(skills)

    monkeypatch.setattr(toolset_module, "format_skills_as_xml", counting)
    registry = SkillRegistry([_skill("a")])
    toolset = SkillToolset(registry=registry)
    ctx = tool_context()

    for _ in range(3):
        await toolset.process_llm_request(tool_context=ctx, llm_request=LlmRequest())
        await _call(toolset, "list_skills", ctx)
    assert len(calls) == 1

    registry.replace([_skill("a"), _skill("b")])
    listing = await _call(toolset, "list_skills", ctx)

    assert len(calls) == 2
    assert "<name>\nb\n</name>" in listing


async def test_an_edited_skill_is_served_after_refresh(make_skill, tmp_path: Path) -> None:
    folder = make_skill("alpha")
    toolset = skill_toolset_from_paths(["skills"], base_dir=tmp_path)
    ctx = tool_context()
    assert (await _call(toolset, "load_skill", ctx, skill_name="alpha"))["instructions"] == "Do it."

    before = (folder / "SKILL.md").stat().st_mtime_ns
    (folder / "SKILL.md").write_text("---\nname: alpha\ndescription: New.\n---\nDo it better.\n")
    os.utime(folder / "SKILL.md", ns=(before + 10**9, before + 10**9))
    assert toolset.refresh() == []

    assert (await _call(toolset, "load_skill", ctx, skill_name="alpha"))["instructions"] == (
        "Do it better."
    )
    assert "New." in toolset.listing()


def test_duplicate_names_are_an_error(make_skill, tmp_path: Path) -> None:
    make_skill("a")

    with pytest.raises(SkillError, match="Duplicate skill name 'a'."):
        SkillToolset([_skill("a"), _skill("a")])
    with pytest.raises(SkillError, match="skill-name-duplicate: Duplicate skill name 'a'."):
        SkillToolset([_skill("a"), tmp_path / "skills"])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"skills": [_skill("a")], "registry": SkillRegistry()},
            "Pass SkillToolset either skills or a registry, not both.",
        ),
        ({"skills": [3]}, "SkillToolset skills must be Skill objects or folder paths, got int."),
        ({"script_timeout": 0}, "script_timeout must be positive, got 0."),
    ],
)
def test_constructor_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(SkillError) as caught:
        SkillToolset(**kwargs)

    assert str(caught.value) == message


async def test_additional_tools_follow_the_loaded_skills() -> None:
    def lint(path: str) -> str:
        """Lints a file."""
        return "ok"

    toolset = SkillToolset(
        [_skill("linting", adk_additional_tools=["lint", "missing"]), _skill("other")],
        additional_tools=[lint],
    )
    ctx = tool_context()

    assert list(await _tools(toolset, ctx)) == ["list_skills", "load_skill", "load_skill_resource"]
    await _call(toolset, "load_skill", ctx, skill_name="other")
    assert "lint" not in await _tools(toolset, ctx)
    await _call(toolset, "load_skill", ctx, skill_name="linting")
    assert list(await _tools(toolset, ctx))[-1] == "lint"


async def test_scripts_are_off_by_default(make_skill, tmp_path: Path) -> None:
    make_skill("tool", files={"scripts/run.py": "print(1)"})

    off = SkillToolset([tmp_path / "skills"])
    on = SkillToolset([tmp_path / "skills"], allow_scripts=True)
    no_scripts = SkillToolset([_skill("plain")], allow_scripts=True)

    assert "run_skill_script" not in await _tools(off)
    assert "run_skill_script" in await _tools(on)
    assert "run_skill_script" not in await _tools(no_scripts)
    assert off.instructions()[0] == skill_system_instruction(scripts_runnable=False)
    assert on.instructions()[0] == skill_system_instruction(scripts_runnable=True)
    assert "4. Use `run_skill_script` to run scripts" in on.instructions()[0]


async def test_in_memory_resources_are_served() -> None:
    skill = Skill(
        frontmatter=Frontmatter(name="mem", description="d"),
        instructions="i",
        resources=Resources(references={"a.md": "A"}),
    )

    result = await _call(
        SkillToolset([skill]),
        "load_skill_resource",
        tool_context(),
        skill_name="mem",
        file_path="references/a.md",
    )

    assert result == {"skill_name": "mem", "file_path": "references/a.md", "content": "A"}


@pytest.mark.parametrize("text", ["plain", "a & b <c> \"d\" 'e'", "&amp; already", ""])
def test_the_skill_listing_escapes_as_html_escape_does(text: str) -> None:
    """The listing escapes names and descriptions with html.escape's table (without importing
    html at start-up): the same text google-adk's listing shows."""
    import html
    from types import SimpleNamespace

    from yadk.skills._prompt import format_skills_as_xml

    listing = format_skills_as_xml([SimpleNamespace(name=text, description=text)])
    escaped = html.escape(text)
    assert listing == (
        f"<available_skills>\n<skill>\n<name>\n{escaped}\n</name>\n<description>\n{escaped}\n"
        "</description>\n</skill>\n</available_skills>"
    )

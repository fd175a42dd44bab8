"""The seed's walkthrough: a profile stored in state personalises the shipped code-review skill
when it is loaded, and an empty profile leaves the optional placeholders empty."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yadk import LlmAgent, Runner
from yadk.agents import ToolContext
from yadk.events import Event
from yadk.models import ScriptedModel
from yadk.skills import SkillToolset, load_skill_from_dir

SKILL_DIR = Path(__file__).resolve().parents[2] / "skills" / "code-review-skill"

INTRO = "Hi, I'm Alex. I mainly write Python and I'm a senior engineer."
REVIEW = "Can you review this for me? def add(a, b): return a+b"


def remember_developer_profile(
    name: str, primary_language: str, experience_level: str, tool_context: ToolContext
) -> dict[str, Any]:
    """Saves the developer's profile into session state for later personalization."""
    tool_context.state["dev_name"] = name
    tool_context.state["dev_language"] = primary_language
    tool_context.state["dev_level"] = experience_level
    return {
        "status": "ok",
        "stored": {
            "dev_name": name,
            "dev_language": primary_language,
            "dev_level": experience_level,
        },
    }


def _agent(model: ScriptedModel) -> LlmAgent:
    return LlmAgent(
        name="skills_inject_state_agent",
        model=model,
        description="An agent that personalizes a code-review skill using session state.",
        instruction=(
            "You help developers review their code.\n"
            "- When a user introduces themselves, call `remember_developer_profile` to save who "
            "they are.\n"
            "- When a user asks for a code review, load the `code-review-skill` and follow its "
            "(personalized) instructions exactly."
        ),
        tools=[remember_developer_profile, SkillToolset([load_skill_from_dir(SKILL_DIR)])],
    )


LOAD_SKILL_TURNS: list[dict[str, Any]] = [
    {
        "when": "(?i)review",
        "function_calls": [{"name": "load_skill", "args": {"skill_name": "code-review-skill"}}],
    },
    {"text": "Here is your review."},
]


async def _ask(runner: Runner, session_id: str, text: str) -> list[Event]:
    return [
        e async for e in runner.run_async(user_id="dev", session_id=session_id, new_message=text)
    ]


def _load_skill_response(events: list[Event]) -> dict[str, Any]:
    [response] = [
        p.function_response.response
        for e in events
        if e.content is not None
        for p in e.content.parts
        if p.function_response is not None and p.function_response.name == "load_skill"
    ]
    return response


def test_shipped_skill_matches_the_seed() -> None:
    skill = load_skill_from_dir(SKILL_DIR)

    assert skill.frontmatter.model_dump(exclude_none=True) == {
        "name": "code-review-skill",
        "description": "Reviews code with feedback tailored to the developer's profile in "
        "session state.",
        "metadata": {"adk_inject_state": True},
    }
    for placeholder in ("{dev_name?}", "{dev_language?}", "{dev_level?}"):
        assert placeholder in skill.instructions


async def test_profile_from_turn_one_personalises_the_skill_in_turn_two() -> None:
    model = ScriptedModel(
        turns=[
            {
                "when": "(?i)I'm Alex",
                "function_calls": [
                    {
                        "name": "remember_developer_profile",
                        "args": {
                            "name": "Alex",
                            "primary_language": "Python",
                            "experience_level": "senior",
                        },
                    }
                ],
            },
            {"text": "Nice to meet you, Alex."},
            *LOAD_SKILL_TURNS,
        ]
    )
    runner = Runner(app_name="skills_inject_state", agent=_agent(model))
    session = await runner.session_service.create_session(
        app_name="skills_inject_state", user_id="dev"
    )

    await _ask(runner, session.id, INTRO)
    response = _load_skill_response(await _ask(runner, session.id, REVIEW))

    instructions = response["instructions"]
    assert "- Name: Alex\n- Primary language: Python\n- Experience level: senior" in instructions
    assert "{dev_" not in instructions
    stored = await runner.session_service.get_session(
        app_name="skills_inject_state", user_id="dev", session_id=session.id
    )
    assert stored is not None
    assert stored.state["_adk_activated_skill_skills_inject_state_agent"] == ["code-review-skill"]
    # The model saw the skill listed (name and description only) before loading it.
    first_request = model.requests[0]
    assert "<name>\ncode-review-skill\n</name>" in first_request.system_instruction
    assert "You are reviewing code" not in first_request.system_instruction


async def test_empty_profile_renders_the_optional_placeholders_empty() -> None:
    runner = Runner(
        app_name="skills_inject_state", agent=_agent(ScriptedModel(turns=LOAD_SKILL_TURNS))
    )
    session = await runner.session_service.create_session(
        app_name="skills_inject_state", user_id="dev"
    )

    response = _load_skill_response(await _ask(runner, session.id, REVIEW))

    assert "- Name: \n- Primary language: \n- Experience level: \n" in response["instructions"]

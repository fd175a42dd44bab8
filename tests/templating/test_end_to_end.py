"""Templating as the model sees it: rendered instructions in real requests (ScriptedModel)."""

from __future__ import annotations

from typing import Any

from yadk import LlmAgent, Runner
from yadk.agents import ReadonlyContext
from yadk.artifacts import InMemoryArtifactService
from yadk.models import LlmRequest, ScriptedModel
from yadk.templating import inject_session_state
from yadk.tools import ToolContext
from yadk.types import Part

IDENTITY = 'You are an agent. Your internal name is "support".'


async def run(
    agent: LlmAgent,
    *messages: str,
    state: dict[str, Any] | None = None,
    artifacts: dict[str, str] | None = None,
) -> list[Any]:
    runner = Runner(app_name="app", agent=agent, artifact_service=InMemoryArtifactService())
    session = await runner.session_service.create_session(app_name="app", user_id="u", state=state)
    for name, text in (artifacts or {}).items():
        await runner.artifact_service.save_artifact(  # type: ignore[union-attr]
            app_name="app",
            user_id="u",
            session_id=session.id,
            filename=name,
            artifact=Part(text=text),
        )
    events: list[Any] = []
    for message in messages:
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            events.append(event)
    return events


def text_model(*texts: str) -> ScriptedModel:
    return ScriptedModel(turns=[{"text": t} for t in texts])


async def test_model_receives_the_rendered_instruction() -> None:
    model = text_model("ok")
    agent = LlmAgent(
        name="support",
        model=model,
        instruction=(
            "The customer is {customer_name} ({user:locale}) on plan {plan_tier?}. "
            'Theme {app:theme}. Reply as JSON like {"ok": true}.'
        ),
    )
    await run(
        agent,
        "hi",
        state={"customer_name": "Ada", "user:locale": "en-GB", "app:theme": "dark"},
    )
    assert model.requests[0].system_instruction == (
        "The customer is Ada (en-GB) on plan . Theme dark. "
        'Reply as JSON like {"ok": true}.\n\n' + IDENTITY
    )


def set_plan(plan: str, tool_context: ToolContext) -> dict[str, str]:
    """Records the customer's plan.

    Args:
      plan: the plan name
    """
    tool_context.state["plan_tier"] = plan
    return {"status": "ok"}


async def test_instruction_is_rendered_again_on_every_model_call() -> None:
    model = ScriptedModel(
        turns=[
            {"function_calls": [{"name": "set_plan", "args": {"plan": "gold"}}]},
            {"text": "done"},
        ]
    )
    agent = LlmAgent(
        name="support", model=model, instruction="Plan: {plan_tier?}.", tools=[set_plan]
    )
    await run(agent, "upgrade me")
    first, second = (r.system_instruction for r in model.requests)
    assert first.startswith("Plan: .\n\n")
    assert second.startswith("Plan: gold.\n\n")


async def test_artifact_placeholder_renders_the_artifact_text() -> None:
    model = text_model("ok")
    agent = LlmAgent(name="support", model=model, instruction="Policy:\n{artifact.policy.md}")
    await run(agent, "hi", artifacts={"policy.md": "Refunds within 30 days."})
    assert model.requests[0].system_instruction.startswith("Policy:\nRefunds within 30 days.\n\n")


def dynamic_block(request: LlmRequest) -> str:
    blocks = [
        part.text
        for content in request.contents
        for part in content.parts
        if part.text and "<<<BEGIN_SYSTEM_INSTRUCTION>>>" in part.text
    ]
    assert len(blocks) == 1
    return blocks[0]


async def test_static_instruction_stays_byte_stable_and_dynamic_one_moves_to_contents() -> None:
    model = text_model("r1", "r2")
    agent = LlmAgent(
        name="support",
        model=model,
        static_instruction="You are support for Acme. Literal braces stay: {customer_name}.",
        instruction="The customer is {customer_name}; turn {turn?}.",
    )
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(
        app_name="app", user_id="u", state={"customer_name": "Ada"}
    )
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="one"):
        pass
    async for _ in runner.run_async(
        user_id="u", session_id=session.id, new_message="two", state_delta={"turn": 2}
    ):
        pass
    first, second = model.requests
    assert first.system_instruction == second.system_instruction
    assert first.system_instruction.startswith(
        "You are support for Acme. Literal braces stay: {customer_name}.\n\n"
    )
    assert "The customer is" not in first.system_instruction
    assert dynamic_block(first).endswith(
        "<<<BEGIN_SYSTEM_INSTRUCTION>>>\nThe customer is Ada; turn .\n<<<END_SYSTEM_INSTRUCTION>>>"
    )
    assert dynamic_block(second).endswith(
        "\nThe customer is Ada; turn 2.\n<<<END_SYSTEM_INSTRUCTION>>>"
    )
    assert dynamic_block(first).startswith("The text between <<<BEGIN_SYSTEM_INSTRUCTION>>>")


async def test_provider_output_is_verbatim_unless_it_injects_itself() -> None:
    def verbatim(ctx: ReadonlyContext) -> str:
        return "Raw {customer_name} stays."

    async def injecting(ctx: ReadonlyContext) -> str:
        base = "You are a support agent."
        if ctx.state.get("escalated"):
            base += " This case has been escalated; be brief and precise."
        return await inject_session_state(
            base + " The customer is {customer_name} on plan {plan_tier?}.", ctx
        )

    state = {"customer_name": "Ada", "escalated": True}
    for provider, expected in [
        (verbatim, "Raw {customer_name} stays."),
        (
            injecting,
            (
                "You are a support agent. This case has been escalated; be brief and precise. "
                "The customer is Ada on plan ."
            ),
        ),
    ]:
        model = text_model("ok")
        await run(LlmAgent(name="support", model=model, instruction=provider), "hi", state=state)
        assert model.requests[0].system_instruction == expected + "\n\n" + IDENTITY


async def test_jinja_through_a_provider() -> None:
    async def provider(ctx: ReadonlyContext) -> str:
        return await inject_session_state(
            "Orders:{% for o in orders %} #{{ o.id }}{% endfor %}"
            "{% if vip is defined and vip %} (VIP){% endif %}",
            ctx,
            use_jinja2=True,
        )

    model = text_model("ok")
    agent = LlmAgent(name="support", model=model, instruction=provider)
    await run(agent, "hi", state={"orders": [{"id": 1}, {"id": 2}], "vip": True})
    assert model.requests[0].system_instruction.startswith("Orders: #1 #2 (VIP)\n\n")


async def test_global_instruction_is_rendered_and_goes_first() -> None:
    model = text_model("ok")
    agent = LlmAgent(
        name="support",
        model=model,
        global_instruction="Company: {app:company}.",
        instruction="Customer: {customer_name}.",
    )
    await run(agent, "hi", state={"app:company": "Acme", "customer_name": "Ada"})
    assert model.requests[0].system_instruction == (
        "Company: Acme.\n\nCustomer: Ada.\n\n" + IDENTITY
    )

"""The seed's session_state_agent walkthrough: cached in context vs persisted, per callback.

Each callback writes its own key, then checks which keys the invocation's session object has
(readable at once) and which the session service has stored (persisted).
"""

from __future__ import annotations

from yadk import LlmAgent, Runner
from yadk.agents import CallbackContext
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService

BA = "before_agent_callback_state_key"
BM = "before_model_callback_state_key"
AM = "after_model_callback_state_key"
AA = "after_agent_callback_state_key"

log: list[str] = []


async def assert_session_values(
    ctx: CallbackContext,
    title: str,
    *,
    keys_in_ctx_session: list[str],
    keys_in_service_session: list[str],
    keys_not_in_service_session: list[str],
) -> None:
    session_in_ctx = ctx._invocation_context.session
    session_in_service = await ctx._invocation_context.session_service.get_session(
        app_name=session_in_ctx.app_name,
        user_id=session_in_ctx.user_id,
        session_id=session_in_ctx.id,
    )
    assert session_in_service is not None
    log.append(f"In {title}")
    for key in keys_in_ctx_session:
        assert key in session_in_ctx.state, (title, key)
    log.append(f"cached in context: {keys_in_ctx_session} pass")
    for key in keys_in_service_session:
        assert key in session_in_service.state, (title, key)
    log.append(f"already persisted: {keys_in_service_session} pass")
    for key in keys_not_in_service_session:
        assert key not in session_in_service.state, (title, key)
    log.append(f"not persisted yet: {keys_not_in_service_session} pass")


async def before_agent_callback(callback_context: CallbackContext) -> None:
    callback_context.state[BA] = "before_agent_callback_state_value"
    await assert_session_values(
        callback_context,
        "before_agent_callback",
        keys_in_ctx_session=[BA],
        keys_in_service_session=[],
        keys_not_in_service_session=[BA],
    )


async def before_model_callback(callback_context: CallbackContext, llm_request: object) -> None:
    callback_context.state[BM] = "before_model_callback_state_value"
    await assert_session_values(
        callback_context,
        "before_model_callback",
        keys_in_ctx_session=[BA, BM],
        keys_in_service_session=[BA],
        keys_not_in_service_session=[BM],
    )


async def after_model_callback(callback_context: CallbackContext, llm_response: object) -> None:
    callback_context.state[AM] = "after_model_callback_state_value"
    await assert_session_values(
        callback_context,
        "after_model_callback",
        keys_in_ctx_session=[BA, BM, AM],
        keys_in_service_session=[BA],
        keys_not_in_service_session=[BM, AM],
    )


async def after_agent_callback(callback_context: CallbackContext) -> None:
    callback_context.state[AA] = "after_agent_callback_state_value"
    await assert_session_values(
        callback_context,
        "after_agent_callback",
        keys_in_ctx_session=[BA, BM, AM, AA],
        keys_in_service_session=[BA, BM, AM],
        keys_not_in_service_session=[AA],
    )


async def test_session_state_agent_walkthrough() -> None:
    log.clear()
    model = ScriptedModel(turns=[{"text": "Hello! How can I help you verify something today?"}])
    root_agent = LlmAgent(
        name="root_agent",
        description="a verification agent.",
        instruction=(
            "Reply to the user. Must always remind user you cannot answer a second query"
            " because your setup."
        ),
        model=model,
        before_agent_callback=before_agent_callback,
        before_model_callback=before_model_callback,
        after_model_callback=after_model_callback,
        after_agent_callback=after_agent_callback,
    )
    service = InMemorySessionService()
    runner = Runner(app_name="app", agent=root_agent, session_service=service)
    # The replay input of the seed: {"state": {}, "queries": ["hello world!"]}
    session = await service.create_session(app_name="app", user_id="user", state={})
    events = [
        e
        async for e in runner.run_async(
            user_id="user", session_id=session.id, new_message="hello world!"
        )
    ]
    assert [e.error_message for e in events if e.error_code] == []
    assert log == [
        "In before_agent_callback",
        f"cached in context: {[BA]} pass",
        "already persisted: [] pass",
        f"not persisted yet: {[BA]} pass",
        "In before_model_callback",
        f"cached in context: {[BA, BM]} pass",
        f"already persisted: {[BA]} pass",
        f"not persisted yet: {[BM]} pass",
        "In after_model_callback",
        f"cached in context: {[BA, BM, AM]} pass",
        f"already persisted: {[BA]} pass",
        f"not persisted yet: {[BM, AM]} pass",
        "In after_agent_callback",
        f"cached in context: {[BA, BM, AM, AA]} pass",
        f"already persisted: {[BA, BM, AM]} pass",
        f"not persisted yet: {[AA]} pass",
    ]
    # Which event carried which delta: before_agent on its own event, before/after_model on the
    # model response, after_agent last.
    authored = [(e.author, sorted(e.actions.state_delta), e.text) for e in events]
    assert authored == [
        ("user", [], "hello world!"),
        ("root_agent", [BA], ""),
        ("root_agent", [AM, BM], "Hello! How can I help you verify something today?"),
        ("root_agent", [AA], ""),
    ]
    stored = await service.get_session(app_name="app", user_id="user", session_id=session.id)
    assert stored is not None
    assert sorted(stored.state) == sorted([BA, BM, AM, AA])

"""yadk.testing: contexts for users' own tests."""

from __future__ import annotations

import pytest

from yadk.errors import TemplateValueError
from yadk.templating import inject_session_state
from yadk.testing import ScriptedModel, readonly_context, tool_context


async def test_readonly_context_renders_state_temp_and_artifacts() -> None:
    ctx = readonly_context(
        {"name": "Ada", "temp:draft": "d1", "user:lang": "fr"},
        artifacts={"notes.md": "hello"},
        agent_name="support",
    )
    rendered = await inject_session_state(
        "{name} {temp:draft} {user:lang} {artifact.notes.md}", ctx
    )
    assert rendered == "Ada d1 fr hello"
    assert ctx.agent_name == "support"
    with pytest.raises(TypeError):
        ctx.state["name"] = "x"  # type: ignore[index]


async def test_without_artifact_service() -> None:
    ctx = readonly_context({}, with_artifact_service=False)
    with pytest.raises(TemplateValueError, match="Artifact service is not initialized."):
        await inject_session_state("{artifact.x}", ctx)


def test_tool_context_records_writes() -> None:
    ctx = tool_context({"a": 1}, user_content="hi", function_call_id="c1")
    ctx.state["b"] = 2
    assert ctx.actions.state_delta == {"b": 2}
    assert ctx.state["a"] == 1
    assert ctx.function_call_id == "c1"
    assert ctx.user_content is not None and ctx.user_content.parts[0].text == "hi"


def test_scripted_model_is_reexported() -> None:
    assert ScriptedModel(turns=[{"text": "x"}]).remaining == 1

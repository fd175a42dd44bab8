"""Jinja2 within bounds: templates read state but never change it, at any depth;
rendering is bounded in time and output size; every failure while rendering is a TemplateError
naming the agent (TEMPLATE_ERROR in a run), never an internal error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest

from yadk import LlmAgent, Runner
from yadk.agents import ReadonlyContext
from yadk.errors import TemplateError
from yadk.models import ScriptedModel
from yadk.sessions import SqliteSessionService
from yadk.templating import _jinja_bounds, clear_template_caches, inject_session_state
from yadk.testing import readonly_context

STATE = {"prefs": {"tone": "formal"}, "items": [1, 2, 3], "tags": ["a"]}


@pytest.fixture(autouse=True)
def _fresh_caches() -> None:
    clear_template_caches()


@pytest.mark.parametrize(
    "template",
    [
        "{{ state['prefs'].update({'tone': 'rude'}) }}",
        "{{ prefs.update({'tone': 'rude'}) }}",
        "{{ state['items'].append(4) }}",
        "{{ items.pop() }}",
        "{{ state['prefs'].pop('tone') }}",
        "{{ state['prefs'].setdefault('x', 1) }}",
        "{% for t in [state['tags']] %}{{ t.clear() }}{% endfor %}",
    ],
)
async def test_state_is_read_only_at_every_depth(template: str) -> None:
    ctx = readonly_context({"prefs": {"tone": "formal"}, "items": [1, 2, 3], "tags": ["a"]})
    with pytest.raises(TemplateError) as caught:
        await inject_session_state(template, ctx, use_jinja2=True)
    assert isinstance(caught.value, jinja2.exceptions.SecurityError)
    assert "in the instruction of agent 'agent'" in caught.value.message
    assert dict(ctx.state) == STATE


async def test_reading_nested_state_still_works() -> None:
    ctx = readonly_context(STATE)
    text = await inject_session_state(
        "{{ state['prefs'].tone }} {{ prefs.get('tone') }} {{ items | sum }}"
        " {% for k, v in prefs.items() %}{{ k }}={{ v }}{% endfor %}"
        " {% for i in items %}{{ loop.index }}/{{ loop.length }}{% endfor %}",
        ctx,
        use_jinja2=True,
    )
    assert text == "formal formal 6 tone=formal 1/32/33/3"


def _provider(template: str) -> Any:
    async def instruction(ctx: ReadonlyContext) -> str:
        return await inject_session_state(template, ctx, use_jinja2=True)

    return instruction


async def test_a_mutating_template_leaves_memory_and_sqlite_in_agreement(tmp_path: Path) -> None:
    service = SqliteSessionService(tmp_path / "s.db")
    agent = LlmAgent(
        name="desk",
        model=ScriptedModel([{"text": "hi"}]),
        instruction=_provider("{{ state['prefs'].update({'tone': 'rude'}) }}"),
    )
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await service.create_session(app_name="app", user_id="u", state=dict(STATE))
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="x")
    ]
    assert events[-1].error_code == "TEMPLATE_ERROR"
    assert "in the instruction of agent 'desk'" in (events[-1].error_message or "")
    stored = await SqliteSessionService(tmp_path / "s.db").get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    assert stored is not None
    assert dict(stored.state) == STATE
    await service.aclose()


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        (
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
            "it took longer than 1 s",
        ),
        ("{{ 'x' * 10**9 }}", "`* 1000000000` would build a value of more than 1,000,000 items"),
        ("{{ 10 ** 100000000 }}", "`10 ** 100000000` would be too large a number"),
        (
            "{% for i in range(2000) %}{{ 'y' * 1000 }}{% endfor %}",
            "its output passed 1,000,000 characters",
        ),
        (
            "{{ 'x' | center(1000000000) }}",
            "the filter `center` was given 1000000000, more than 1,000,000",
        ),
        ("{{ '{:>999999999}'.format('x') }}", "a format width is more than 6 digits"),
        (
            "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
            "{% endfor %}",
            "it built a value of more than 1,000,000 items",
        ),
        (
            "{% macro m() %}{% for i in range(1000) %}{{ 'x' * 900000 }}{% endfor %}{% endmacro %}"
            "{{ m() | length }}",
            "it built more than 16,000,000 characters in all",
        ),
    ],
    ids=[
        "nested loops",
        "string repeat",
        "power",
        "output size",
        "center filter",
        "format width",
        "doubling",
        "macro buffer",
    ],
)
@pytest.mark.parametrize("with_artifacts", [False, True], ids=["sync", "async"])
@pytest.mark.slow
async def test_rendering_is_bounded(template: str, reason: str, with_artifacts: bool) -> None:
    if with_artifacts:  # naming artifact() compiles the template for async rendering
        template += "{% if false %}{{ artifact('a') }}{% endif %}"
    ctx = readonly_context({}, agent_name="planner")
    with pytest.raises(TemplateError) as caught:
        await inject_session_state(template, ctx, use_jinja2=True)
    assert caught.value.message == (
        f"Rendering the Jinja2 instruction of agent 'planner' stopped: {reason}. Instructions"
        " are bounded to 1 s and 1,000,000 characters."
    )


@pytest.mark.parametrize(
    ("template", "detail"),
    [
        ("{% include 'other.txt' %}", "{% include %}, {% import %} and {% extends %} are not"),
        ("{{ 1 / 0 }}", "ZeroDivisionError: division by zero."),
        ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "it recursed too deeply."),
    ],
    ids=["include", "zero division", "recursion"],
)
async def test_other_render_failures_are_template_errors(template: str, detail: str) -> None:
    ctx = readonly_context({}, agent_name="planner")
    with pytest.raises(TemplateError) as caught:
        await inject_session_state(template, ctx, use_jinja2=True)
    assert caught.value.message.startswith(
        "Rendering the Jinja2 instruction of agent 'planner' failed"
    )
    assert detail in caught.value.message


def test_the_bounds_are_documented() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "templating.md").read_text(encoding="utf-8")
    assert f"{_jinja_bounds.MAX_RENDER_SECONDS:g} s" in docs
    assert f"{_jinja_bounds.MAX_OUTPUT_CHARS:,} characters" in docs

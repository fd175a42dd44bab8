"""The Jinja2 engine (``use_jinja2=True``): google-adk 2.13's semantics, compiled once per text.

Sandboxed, ``StrictUndefined`` (even ``{% if missing %}`` raises), autoescape off, state keys as
names plus a read-only ``state`` mapping, and an async ``artifact(name)`` helper.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import TYPE_CHECKING, Any

import jinja2
import jinja2.exceptions
import jinja2.sandbox
import pytest

from yadk.errors import TemplateError, TemplateKeyError, TemplateSyntaxError, TemplateValueError
from yadk.templating import inject_session_state

if TYPE_CHECKING:
    from tests.templating.conftest import MakeContext

STATE: dict[str, Any] = {
    "name": "Ada",
    "items": ["a", "b"],
    "orders": [{"id": 1, "qty": 3}, {"id": 2, "qty": 1}],
    "user:x": "UX",
    "none": None,
    "html": "<b>&</b>",
    "n": 3,
    "state": "shadowed by the state mapping",
}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("Hi {{ name }}", "Hi Ada"),
        ("{% for i in items %}{{ i }},{% endfor %}", "a,b,"),
        ("{% for o in orders %}{{ o.id }}x{{ o.qty }} {% endfor %}", "1x3 2x1 "),
        ("{% for o in orders %}{{ o['qty'] }}{% endfor %}", "31"),
        ("{{ orders[0].items() | list | length }}", "2"),
        ("{% if missing is defined %}x{% endif %}y", "y"),
        ("{{ missing | default('d') }}", "d"),
        ("{{ state['user:x'] }}", "UX"),
        ("{{ state | length }}", "8"),
        ("{{ html }}", "<b>&</b>"),  # autoescape off
        ("{{ none }}", "None"),  # Jinja's own rendering of None, as in google-adk
        ("{{ name | upper }}", "ADA"),
        ("{{ n + 1 }}", "4"),
        ("{name}", "{name}"),  # the default engine's syntax means nothing here
        ("{% set state = 1 %}{{ state }}", "1"),
        ("{{ artifact('notes') }}!", "hello!"),
        ("{% if name %}{{ artifact('notes') | upper }}{% endif %}", "HELLO"),
        ("line\n", "line"),  # Jinja drops one trailing newline, as google-adk's does
    ],
)
async def test_renders_like_google_adk(
    make_context: MakeContext, template: str, expected: str
) -> None:
    ctx = await make_context(STATE, artifacts={"notes": "hello"})
    assert await inject_session_state(template, ctx, use_jinja2=True) == expected


@pytest.mark.parametrize(
    ("template", "adk_message", "line"),
    [
        ("{{ missing }}", "'missing' is undefined", 1),
        ("{% if missing %}x{% endif %}", "'missing' is undefined", 1),
        ("a\nb\n{{ missing.attr }}", "'missing' is undefined", 3),
        ("{{ name.missing }}", "'str object' has no attribute 'missing'", 1),
        ("{{ orders[0].nope }}", "'dict object' has no attribute 'nope'", 1),
        ("{{ state['nope'] }}", "'mappingproxy object' has no attribute 'nope'", 1),
    ],
)
async def test_undefined_names_raise_with_adk_message_line_and_hint(
    make_context: MakeContext, template: str, adk_message: str, line: int
) -> None:
    ctx = await make_context(STATE, agent_name="support")
    with pytest.raises(jinja2.exceptions.UndefinedError) as caught:
        await inject_session_state(template, ctx, use_jinja2=True)
    assert isinstance(caught.value, TemplateError)
    assert str(caught.value) == (
        f"{adk_message} (line {line}) in the instruction of agent 'support'. Every name a "
        "Jinja2 instruction uses must be in session state (undefined names are errors, even in "
        "`{% if %}`): set it before the agent runs, or guard it with "
        "`{% if name is defined %}` or `name | default('')`."
    )


@pytest.mark.parametrize(
    ("template", "message", "line"),
    [
        (
            "{% if %}",
            (
                "Invalid Jinja2 instruction template (line 1: '{% if %}'): "
                "Expected an expression, got 'end of statement block'"
            ),
            1,
        ),
        (
            "line1\n  {{ name }\nline3",
            "Invalid Jinja2 instruction template (line 2: '{{ name }'): unexpected '}'",
            2,
        ),
        (
            "{% for x in items %}",
            (
                "Invalid Jinja2 instruction template (line 1: '{% for x in items %}'): Unexpected "
                "end of template. Jinja was looking for the following tags: 'endfor' or 'else'. The "
                "innermost block that needs to be closed is 'for'."
            ),
            1,
        ),
    ],
)
async def test_syntax_errors_are_yadk_and_jinja_syntax_errors(
    make_context: MakeContext, template: str, message: str, line: int
) -> None:
    ctx = await make_context(STATE)
    with pytest.raises(TemplateSyntaxError) as caught:
        await inject_session_state(template, ctx, use_jinja2=True)
    error = caught.value
    assert isinstance(error, ValueError)
    assert isinstance(error, jinja2.TemplateSyntaxError)
    assert str(error) == message
    assert error.lineno == line


async def test_a_syntax_error_is_not_cached(make_context: MakeContext) -> None:
    ctx = await make_context(STATE)
    for _ in range(2):
        with pytest.raises(TemplateSyntaxError):
            await inject_session_state("{{ name }", ctx, use_jinja2=True)


async def test_sandbox_blocks_unsafe_attributes(make_context: MakeContext) -> None:
    ctx = await make_context(STATE)
    with pytest.raises(
        jinja2.sandbox.SecurityError, match="access to attribute '__class__' of 'str' object"
    ):
        await inject_session_state("{{ ''.__class__.__mro__ }}", ctx, use_jinja2=True)


@pytest.mark.parametrize(
    "template",
    [
        "{{ state.update({'name': 'Eve'}) }}",
        "{% set _ = state.__setitem__('name', 'Eve') %}",
    ],
)
async def test_state_mapping_is_read_only(make_context: MakeContext, template: str) -> None:
    from yadk._contexts import ToolContext

    ctx = await make_context(STATE)
    # A ToolContext's own ``state`` is writable; the template still only gets a read-only view.
    tool_context = ToolContext(ctx.invocation_context)
    with pytest.raises(jinja2.exceptions.UndefinedError, match="mappingproxy object"):
        await inject_session_state(template, tool_context, use_jinja2=True)
    assert tool_context.state["name"] == "Ada"


async def test_missing_artifact_is_a_key_error(make_context: MakeContext) -> None:
    ctx = await make_context(STATE, agent_name="support")
    with pytest.raises(TemplateKeyError) as caught:
        await inject_session_state("{{ artifact('nope') }}", ctx, use_jinja2=True)
    assert caught.value.message == "Artifact 'nope' not found in agent 'support'."


async def test_artifact_without_a_service_is_a_value_error(make_context: MakeContext) -> None:
    ctx = await make_context(STATE, with_artifact_service=False)
    with pytest.raises(TemplateValueError, match="^Artifact service is not initialized.$"):
        await inject_session_state("{{ artifact('notes') }}", ctx, use_jinja2=True)
    assert await inject_session_state("{{ name }}", ctx, use_jinja2=True) == "Ada"


async def test_binary_artifact_renders_as_a_marker(make_context: MakeContext) -> None:
    from yadk.types import Part

    ctx = await make_context(
        artifacts={"logo.png": Part.from_bytes(data=b"x", mime_type="image/png")}
    )
    assert await inject_session_state("{{ artifact('logo.png') }}", ctx, use_jinja2=True) == (
        "[Binary artifact: logo.png, type: image/png, size: 0.0 KB. "
        "Content cannot be displayed inline.]"
    )


async def test_templates_are_compiled_once_per_text(
    make_context: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    from yadk.templating import _jinja

    compiled: list[str] = []
    original = _jinja._compile

    def counting(text: str) -> Any:
        compiled.append(text)
        return original(text)

    monkeypatch.setattr(_jinja._compiled, "_build", counting)
    ctx = await make_context(STATE)
    for name in ("Ada", "Grace", "Ada"):
        ctx.session.state["name"] = name
        assert await inject_session_state("Hi {{ name }}", ctx, use_jinja2=True) == f"Hi {name}"
    await inject_session_state("Bye {{ name }}", ctx, use_jinja2=True)
    assert compiled == ["Hi {{ name }}", "Bye {{ name }}"]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )


@pytest.mark.subprocess
def test_importing_yadk_templating_does_not_import_jinja2() -> None:
    result = run_python(
        """
        import sys
        import yadk.templating
        print("jinja2" in sys.modules)
        """
    )
    assert result.stdout.strip() == "False", result.stderr


@pytest.mark.subprocess
def test_without_jinja2_the_default_engine_works_and_jinja_says_how_to_install() -> None:
    result = run_python(
        """
        import asyncio, sys
        sys.modules["jinja2"] = None  # as if it were not installed
        from yadk._contexts import InvocationContext, ReadonlyContext
        from yadk.sessions import InMemorySessionService
        from yadk.templating import inject_session_state

        class Agent:
            name = "agent"

        async def main():
            service = InMemorySessionService()
            session = await service.create_session(app_name="a", user_id="u", state={"name": "Ada"})
            ctx = ReadonlyContext(InvocationContext(
                invocation_id="e", agent=Agent(), session=session, session_service=service
            ))
            print(await inject_session_state("Hi {name}", ctx))
            try:
                await inject_session_state("Hi {{ name }}", ctx, use_jinja2=True)
            except ImportError as exc:
                print(exc)

        asyncio.run(main())
        """
    )
    assert result.stdout.splitlines() == [
        "Hi Ada",
        (
            "Rendering an instruction with Jinja2 requires the optional jinja2 package. "
            "Install it with: pip install jinja2"
        ),
    ], result.stderr

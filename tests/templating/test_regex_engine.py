"""The default engine, rule by rule. Every expected string was observed from google-adk 2.13.0's
``inject_session_state`` on the same template and state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from yadk.errors import TemplateError, TemplateKeyError, TemplateValueError
from yadk.templating import inject_session_state
from yadk.templating._compiled import compile_template

if TYPE_CHECKING:
    from tests.templating.conftest import MakeContext

STATE: dict[str, Any] = {
    "name": "Ada",
    "x": "X",
    "inner": "I",
    "n": 3,
    "f": 1.5,
    "b": True,
    "none": None,
    "d": {"a": 1},
    "l": [1, "x"],
    "empty": "",
    "braces": "{name}",
    "class": "K",
    "café": "C",
    "a:b": "AB",
    "s p": "SP",
    "app:theme": "dark",
    "user:locale": "fr",
    "temp:draft": "D",
}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        # the three forms
        ("{name}", "Ada"),
        ("Hello {name}.", "Hello Ada."),
        ("{name?}", "Ada"),
        ("[{missing?}]", "[]"),
        ("x{name}y{x}z", "xAdayXz"),
        # inner text is stripped once; "?" must follow the name directly
        ("{ name }", "Ada"),
        ("{\tname}", "Ada"),
        ("{\nname\n}", "Ada"),
        ("{ name? }", "Ada"),
        ("{name ?}", "{name ?}"),
        ("{name??}", "{name??}"),
        ("{?name}", "{?name}"),
        ("{name?x}", "{name?x}"),
        ("{?}", "{?}"),
        # runs of braces belong to the placeholder and are consumed with it
        ("{{name}}", "Ada"),
        ("{name}}", "Ada"),
        ("{{name}", "Ada"),
        ("{{{name}}}", "Ada"),
        ("{x}{{x}}", "XX"),
        # nested braces: only the innermost run is a placeholder
        ("{outer{inner}}", "{outerI"),
        # "$" or "\" before the braces keeps them literal; anything else does not
        ("${name}", "${name}"),
        ("\\{name}", "\\{name}"),
        ("\\\\{name}", "\\\\{name}"),
        ("$ {name}", "$ Ada"),
        ("{x}\\{x}${x}{x}", "X\\{x}${x}X"),
        # values: str() except None
        ("{n}|{f}|{b}|{d}|{l}", "3|1.5|True|{'a': 1}|[1, 'x']"),
        ("[{none}]", "[]"),
        ("[{none?}]", "[]"),
        ("[{empty}]", "[]"),
        # one pass: inserted braces are never scanned again
        ("{braces} {x}", "{name} X"),
        # state names: identifiers (keywords and Unicode included) and three prefixes
        ("{class}", "K"),
        ("{café}", "C"),
        ("{app:theme}", "dark"),
        ("{ app:theme }", "dark"),
        ("{user:locale}", "fr"),
        ("{temp:draft}", "D"),
        ("[{temp:other?}]", "[]"),
        # everything else stays exactly as written, even when state has that key
        ("{}", "{}"),
        ("{ }", "{ }"),
        ('{"role": "user"}', '{"role": "user"}'),
        ("{customer name}", "{customer name}"),
        ("{s p}", "{s p}"),
        ("{a:b}", "{a:b}"),
        ("{a:b:c}", "{a:b:c}"),
        ("{app:x:y}", "{app:x:y}"),
        ("{foo:bar}", "{foo:bar}"),
        ("{USER:x}", "{USER:x}"),
        ("{app:}", "{app:}"),
        ("{app:?}", "{app:?}"),
        ("{user:}", "{user:}"),
        ("{app: theme}", "{app: theme}"),
        ("{temp:1x}", "{temp:1x}"),
        ("{1abc}", "{1abc}"),
        # unbalanced braces
        ("{", "{"),
        ("}", "}"),
        ("{{", "{{"),
        ("}}", "}}"),
        ("{{}}", "{{}}"),
        ("{name", "{name"),
        ("name}", "name}"),
        ("{name}{", "Ada{"),
        ("{name}.", "Ada."),
    ],
)
async def test_renders_like_google_adk(
    make_context: MakeContext, template: str, expected: str
) -> None:
    ctx = await make_context(STATE)
    assert await inject_session_state(template, ctx) == expected


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{missing}", "Context variable not found: `missing` in agent 'support'."),
        ("{ missing }", "Context variable not found: `missing` in agent 'support'."),
        ("{{missing}}", "Context variable not found: `missing` in agent 'support'."),
        ("{temp:draft}", "Context variable not found: `temp:draft` in agent 'support'."),
        ("{app:x}", "Context variable not found: `app:x` in agent 'support'."),
        ("{artifact}", "Context variable not found: `artifact` in agent 'support'."),
        # the first missing placeholder, in template order, is the one reported
        ("{name} {first} {second}", "Context variable not found: `first` in agent 'support'."),
    ],
)
async def test_missing_required_state_is_a_key_error(
    make_context: MakeContext, template: str, message: str
) -> None:
    ctx = await make_context({"name": "Ada"}, agent_name="support")
    with pytest.raises(KeyError) as caught:
        await inject_session_state(template, ctx)
    assert isinstance(caught.value, TemplateKeyError)
    assert isinstance(caught.value, TemplateError)
    assert caught.value.message == message
    assert str(caught.value) == repr(message)  # what KeyError's str() shows, as in google-adk


async def test_template_without_a_brace_is_returned_unscanned(make_context: MakeContext) -> None:
    ctx = await make_context()
    template = "A static instruction} with no opening brace."
    assert await inject_session_state(template, ctx) is template


async def test_template_without_real_placeholders_is_returned_as_is(
    make_context: MakeContext,
) -> None:
    ctx = await make_context()
    template = 'Reply with JSON like {"ok": true} or ${HOME}.'
    assert await inject_session_state(template, ctx) == template
    assert compile_template(template).is_static


async def test_state_is_read_at_render_time(make_context: MakeContext) -> None:
    ctx = await make_context({"n": 1})
    assert await inject_session_state("n={n}", ctx) == "n=1"
    ctx.session.state["n"] = 2
    assert await inject_session_state("n={n}", ctx) == "n=2"


async def test_no_artifact_service_only_matters_for_artifact_placeholders(
    make_context: MakeContext,
) -> None:
    ctx = await make_context({"name": "Ada"}, with_artifact_service=False)
    assert await inject_session_state("{name}", ctx) == "Ada"
    with pytest.raises(TemplateValueError, match="^Artifact service is not initialized.$"):
        await inject_session_state("{name} {artifact.notes.txt?}", ctx)


async def test_errors_follow_template_order_across_state_and_artifacts(
    make_context: MakeContext,
) -> None:
    ctx = await make_context({}, with_artifact_service=False)
    with pytest.raises(KeyError):
        await inject_session_state("{missing} {artifact.a}", ctx)
    with pytest.raises(ValueError, match="Artifact service is not initialized."):
        await inject_session_state("{artifact.a} {missing}", ctx)


async def test_non_str_subclass_values_use_their_str(make_context: MakeContext) -> None:
    class Money:
        def __str__(self) -> str:
            return "12.50 EUR"

    class Loud(str):
        pass

    ctx = await make_context({"price": Money(), "word": Loud("hi")})
    assert await inject_session_state("{price} {word}", ctx) == "12.50 EUR hi"


async def test_readonly_context_subclasses_work(make_context: MakeContext) -> None:
    from yadk._contexts import ToolContext

    ctx = await make_context({"name": "Ada"})
    tool_context = ToolContext(ctx.invocation_context)
    tool_context.state["name"] = "Grace"  # a pending write is visible at once
    assert await inject_session_state("{name}", tool_context) == "Grace"

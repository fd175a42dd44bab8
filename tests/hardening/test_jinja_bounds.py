"""Jinja2 instructions: templates read state but never change it, at any depth; rendering is
bounded in time and output size, inside filters, functions and operators too; every failure while
rendering is a TemplateError naming the agent (TEMPLATE_ERROR in a run), never an internal
error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import jinja2
import pytest

from yadk import LlmAgent, Runner
from yadk.agents import ReadonlyContext
from yadk.errors import TemplateError
from yadk.models import ScriptedModel
from yadk.sessions import SqliteSessionService
from yadk.templating import (
    _jinja_bounds,
    _jinja_calls,
    clear_template_caches,
    inject_session_state,
)
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
            # Time alone: 2**40 calls that build nothing (nested loops over ranges would also
            # count the ranges' items, and on a fast machine hit that bound first).
            "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
            "{{ f(40) }}",
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
    assert caught.value.message == _stopped(reason)


def _stopped(reason: str) -> str:
    return (
        f"Rendering the Jinja2 instruction of agent 'planner' stopped: {reason}. Instructions"
        " are bounded to 1 s and 1,000,000 characters. Make the template build less, or prepare"
        " large text in a tool or callback and read it from state."
    )


# Work done inside one filter, function or method call: each used to run for seconds or
# minutes, or to allocate gigabytes, before any check looked.
INSIDE_CALLS = [
    (
        "{{ ([range(99999)|list]*999999)|map('sum')|sum }}",
        "`* 999999` would build a value of more than 1,000,000 items",
    ),
    (
        "{{ ('a'*3000)|replace('a','b'*999999) }}",
        "the filter `replace` would build more than 1,000,000 characters",
    ),
    (
        "{{ lipsum(1000000) }}",
        "`lipsum(1000000, max=100)` could write 100,000,000 words, more than 100,000",
    ),
    (
        "{{ ('a'*999999)|wordwrap(1) }}",
        "the filter `wordwrap` was given 999,999 characters, more than 100,000",
    ),
    (
        "{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = [ns.l, ns.l] %}"
        "{% endfor %}{{ ns.l }}",
        "it built a value of more than 1,000,000 items",
    ),
    (
        "{{ ('{0:999999}' * 90000).format('x') }}",
        "`format` would build more than 1,000,000 characters",
    ),
    (
        "{{ ('%(a)s' * 90000) % {'a': 'x' * 99999} }}",
        "`%` formatting would build more than 1,000,000 characters",
    ),
    (
        "{{ ('%(a)s' * 90000) | format(a='x' * 99999) }}",
        "the filter `format` would build more than 1,000,000 characters",
    ),
    ("{{ '%9999999s' % 'x' }}", "a format width is more than 6 digits"),
    (
        "{{ range(99999) | join('x' * 999) }}",
        "the filter `join` would build more than 1,000,000 characters",
    ),
    (
        "{{ ('x' * 999).join(['a'] * 99999) }}",
        "`join` would build more than 1,000,000 characters",
    ),
    (
        "{% set x = range(99999) | list %}{{ ([x] * 10) | sum(start=x) | length }}",
        "the filter `sum` would build a value of more than 1,000,000 items",
    ),
    (
        "{{ (range(1000) | list) | tojson(indent=999999) }}",
        "the filter `tojson` would build more than 1,000,000 characters",
    ),
    (
        "{{ ('a\\n' * 50000) | indent(999) }}",
        "the filter `indent` would build more than 1,000,000 characters",
    ),
    (
        "{{ ('\\t' * 99999).expandtabs(999) }}",
        "`expandtabs` would build more than 1,000,000 characters",
    ),
    (
        "{{ ('a' * 99999).translate({97: 'b' * 999}) }}",
        "`translate` would build more than 1,000,000 characters",
    ),
    (
        "{% set n = 2 ** 1499999 %}{{ (n * n * n) | string | length }}",
        "`*` would build a number of more than 3,000,000 bits",
    ),
    (
        "{% for i in range(1000000) %}{% endfor %}",
        "`range` would yield 1,000,000 items, more than 100,000",
    ),
    ("{{ range(10 ** 30) | length }}", "`range` would yield more than 100,000 items"),
]


@pytest.mark.parametrize(("template", "reason"), INSIDE_CALLS)
@pytest.mark.parametrize("with_artifacts", [False, True], ids=["sync", "async"])
async def test_work_inside_calls_is_bounded(
    template: str, reason: str, with_artifacts: bool
) -> None:
    if with_artifacts:
        template += "{% if false %}{{ artifact('a') }}{% endif %}"
    ctx = readonly_context({}, agent_name="planner")
    with pytest.raises(TemplateError) as caught:
        await inject_session_state(template, ctx, use_jinja2=True)
    assert caught.value.message == _stopped(reason)


_RENDER_ONE = """
import asyncio, sys
from yadk.errors import TemplateError
from yadk.templating import inject_session_state
from yadk.testing import readonly_context

async def main():
    try:
        await inject_session_state(sys.argv[1], readonly_context({}, agent_name="planner"),
                                   use_jinja2=True)
    except TemplateError as exc:
        print(exc.message)

asyncio.run(main())
# The peak of this process's own memory map: VmHWM starts afresh at exec, where the wait status's
# ru_maxrss would also count the (large) test process this one was forked from.
with open("/proc/self/status") as status:
    print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
"""


@pytest.mark.subprocess
@pytest.mark.parametrize(("template", "reason"), INSIDE_CALLS[:4])
def test_the_reported_templates_stop_with_modest_memory(template: str, reason: str) -> None:
    # A process of its own, so that its peak resident memory is this render's alone.
    child = subprocess.run(
        [sys.executable, "-c", _RENDER_ONE, template], capture_output=True, text=True
    )
    message, peak_kib = child.stdout.splitlines()
    assert (child.returncode, message) == (0, _stopped(reason))
    assert int(peak_kib) * 1024 < 256 * 1024 * 1024


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{{ 'a-b-c' | replace('-', '+') }} {{ 'a-b'.replace('-', '') }}", "a+b+c ab"),
        ("{{ [1, 2, 3] | join(', ') }} {{ '/'.join(['x', 'y']) }}", "1, 2, 3 x/y"),
        ("{{ ([1] * 1000000) | length }}", "1000000"),
        ("{{ [[1], [2, 3]] | sum(start=[]) }}", "[1, 2, 3]"),
        ("{{ '%s=%d' % ('n', 3) }} {{ '%(a)s' | format(a=1) }}", "n=3 1"),
        ("{{ 'call 0123456789 {}'.format('now') }}", "call 0123456789 now"),
        ("{{ 'one two three' | wordwrap(5) }}", "one\ntwo\nthree"),
        ("{{ 'a\\nb' | indent(2, first=true) }}", "  a\n  b"),
        ("{% for k, v in {'a': 1}.items() %}{{ k }}{{ v }}{% endfor %}{{ (1, 2) }}", "a1(1, 2)"),
        ("{{ lipsum(2, html=false, min=3, max=4) | wordcount }}", "6"),
        ("{{ [1, 2, 3] | map('string') | select('ne', '2') | join }}", "13"),
        ("{{ 2 ** 10 * 3 }}", "3072"),
        (
            "{{ range(2, 100000, 33333) | list }} {{ range(100000) | length }}",
            "[2, 33335, 66668] 100000",
        ),
    ],
)
async def test_bounded_calls_render_as_jinja_does(template: str, expected: str) -> None:
    ctx = readonly_context({}, agent_name="planner")
    assert await inject_session_state(template, ctx, use_jinja2=True) == expected
    plain = jinja2.Environment(autoescape=False)
    if "lipsum" not in template:
        assert plain.from_string(template).render() == expected


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


@pytest.mark.parametrize("with_artifacts", [False, True], ids=["sync", "async"])
async def test_sum_with_a_list_start_leaves_that_list_alone(with_artifacts: bool) -> None:
    template = "{{ [[1], [2]] | sum(start=items) }} {{ [[3]] | sum(none, items) }} {{ items }}"
    if with_artifacts:
        template += "{% if false %}{{ artifact('a') }}{% endif %}"
    ctx = readonly_context({"items": [0]}, agent_name="planner")
    text = await inject_session_state(template, ctx, use_jinja2=True)
    assert text == "[0, 1, 2] [0, 3] [0]"
    assert dict(ctx.state) == {"items": [0]}


def test_the_bounds_are_documented() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "templating.md").read_text(encoding="utf-8")
    assert f"{_jinja_bounds.MAX_RENDER_SECONDS:g} s" in docs
    assert f"{_jinja_bounds.MAX_OUTPUT_CHARS:,} characters" in docs
    assert f"{_jinja_calls.MAX_WRAP_CHARS:,} characters" in docs
    assert f"`range`\n    has at most {_jinja_calls.MAX_RANGE_ITEMS:,} items" in docs
    assert f"{_jinja_calls.MAX_LIPSUM_WORDS:,} words" in docs

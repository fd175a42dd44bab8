"""Compiled templates: parsed once per text, cached in a bounded cache, rendered by slots."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import yadk.templating
from yadk.templating import clear_template_caches
from yadk.templating._cache import TextCache
from yadk.templating._compiled import CompiledTemplate, compile_template

if TYPE_CHECKING:
    from tests.templating.conftest import MakeContext


def test_same_text_compiles_once() -> None:
    first = compile_template("Hi {name}")
    assert compile_template("Hi {name}") is first
    assert compile_template("Bye {name}") is not first


def test_clearing_the_caches_forgets_compiled_templates() -> None:
    first = compile_template("Hi {name}")
    clear_template_caches()
    assert compile_template("Hi {name}") is not first


def test_cache_is_bounded_and_drops_the_oldest_entry() -> None:
    built: list[str] = []

    def build(text: str) -> str:
        built.append(text)
        return text.upper()

    cache = TextCache(build, maxsize=2)
    assert [cache.get(t) for t in ("a", "b", "a", "c")] == ["A", "B", "A", "C"]
    assert len(cache) == 2
    cache.get("b")  # still cached
    cache.get("a")  # dropped when "c" arrived: built again
    assert built == ["a", "b", "c", "a"]


def test_failed_compilation_is_not_cached() -> None:
    calls = 0

    def build(text: str) -> str:
        nonlocal calls
        calls += 1
        raise ValueError(text)

    cache = TextCache(build)
    for _ in range(2):
        with pytest.raises(ValueError):
            cache.get("bad")
    assert calls == 2


@pytest.mark.parametrize(
    ("template", "is_static", "needs_artifacts"),
    [
        ("plain text", True, False),
        ('JSON {"a": 1} and ${x} and {customer name}', True, False),
        ("{name}", False, False),
        ("{name} {artifact.notes?}", False, True),
    ],
)
def test_template_kinds(template: str, is_static: bool, needs_artifacts: bool) -> None:
    compiled = compile_template(template)
    assert (compiled.is_static, compiled.needs_artifacts) == (is_static, needs_artifacts)


@pytest.mark.parametrize(
    "name",
    [
        "x",
        "user:locale",
        "a" * 300,
        "ünïcødé",
        "class",
    ],
)
async def test_any_valid_name_renders(make_context: MakeContext, name: str) -> None:
    # The fast path generates code from names; every valid name must survive that unchanged.
    ctx = await make_context({name: f"<{name}>"})
    template = f"[{{{name}}}|{{{name}?}}]"
    assert await CompiledTemplate(template).render(ctx) == f"[<{name}>|<{name}>]"


async def test_many_placeholders(make_context: MakeContext) -> None:
    state = {f"k{i}": i for i in range(500)}
    ctx = await make_context(state)
    template = " ".join(f"{{k{i}}}" for i in range(500)) + " {missing?}."
    expected = " ".join(str(i) for i in range(500)) + " ."
    assert await yadk.templating.inject_session_state(template, ctx) == expected


async def test_literal_text_that_looks_like_python_is_kept_verbatim(
    make_context: MakeContext,
) -> None:
    # Literal text never becomes code, whatever it contains.
    literal = "'''\"\"\" \\n {0} f'{\"x\"}' \\\\ '); import os; ('"
    ctx = await make_context({"v": "V"})
    rendered = await yadk.templating.inject_session_state(literal + "{v}" + literal, ctx)
    assert rendered == literal + "V" + literal

"""The bounds of one Jinja2 render: time, output size, and the size of every value it builds.

A template is untrusted input. The render's ``Budget`` (held in a context variable while a
render runs) stops it after ``MAX_RENDER_SECONDS`` and once it has built more than
``MAX_BUILT_CHARS`` characters in all; no single value may exceed ``MAX_OUTPUT_CHARS``, and
neither may the output. The checks sit where a template can do unbounded work:

* every ``{% for %}`` loop (``bound_tree`` wraps its iterable in ``bounded_iter``), which looks
  at the clock as it starts and, past ``CLOCK_EVERY`` items, as it goes;
* ``*``, ``**`` and ``+`` (``BoundedOperators.call_binop``) and ``~`` (wrapped by
  ``bound_tree``), checked before or right after they build a value;
* method calls and filters (``'x'|center(10**9)``, ``'{:>999999999}'.format(x)``): an integer
  argument or a format width beyond ``MAX_OUTPUT_CHARS`` is refused before the call;
* the output, checked every ``CHUNKS_PER_CHECK`` chunks as it is joined.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import itertools
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final

import jinja2.nodes

__all__ = [
    "ITER_NAME",
    "SIZED_NAME",
    "BoundedOperators",
    "Budget",
    "RenderLimit",
    "bound_filters",
    "bound_tree",
    "bounded_iter",
    "budget",
    "joined",
    "sized",
]

MAX_RENDER_SECONDS: float = 1.0
MAX_OUTPUT_CHARS: int = 1_000_000
MAX_BUILT_CHARS: int = 16_000_000
# How many loop iterations may pass between two looks at the clock, and how many output chunks
# (each at most MAX_OUTPUT_CHARS) between two checks of the output's size.
CLOCK_EVERY: Final = 1024
CHUNKS_PER_CHECK: Final = 256
ITER_NAME: Final = "__yadk_bounded_iter"
SIZED_NAME: Final = "__yadk_sized"
_SEQUENCES: Final = (str, bytes, list, tuple)
_WIDE_FORMAT: Final = re.compile(r"\d{7,}")


class RenderLimit(Exception):
    """A render went past one of its bounds; becomes a TemplateError naming the agent."""


class Budget:
    """The deadline and the characters built so far of the render running in this context."""

    def __init__(self) -> None:
        self.deadline = time.monotonic() + MAX_RENDER_SECONDS
        self.built = 0

    def check(self) -> None:
        if time.monotonic() > self.deadline:
            raise RenderLimit(f"it took longer than {MAX_RENDER_SECONDS:g} s")

    def account(self, size: int) -> None:
        if size > MAX_OUTPUT_CHARS:
            raise RenderLimit(f"it built a value of more than {MAX_OUTPUT_CHARS:,} items")
        self.built += size
        if self.built > MAX_BUILT_CHARS:
            raise RenderLimit(f"it built more than {MAX_BUILT_CHARS:,} characters in all")
        self.check()


budget: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "yadk_jinja_budget", default=None
)


def sized(value: Any) -> Any:
    """``value``, accounted against the render's budget if it is a string or sequence."""
    current = budget.get()
    if current is not None and isinstance(value, _SEQUENCES):
        current.account(len(value))
    return value


def bounded_iter(iterable: Iterable[Any]) -> Iterable[Any]:
    """What every ``{% for %}`` loop iterates: the loop's items, checking the render's deadline
    as the loop starts and, for a loop longer than ``CLOCK_EVERY``, every that many items.
    Short loops (the common case) are iterated as they are, so the check costs one call."""
    current = budget.get()
    if current is None:
        return iterable
    current.check()
    try:
        if len(iterable) <= CLOCK_EVERY:  # type: ignore[arg-type]
            return iterable
    except TypeError:
        pass  # a generator, or anything else without a length
    return _clocked(iterable, current)


def _clocked(iterable: Iterable[Any], current: Budget) -> Iterator[Any]:
    for count, item in enumerate(iterable, start=1):
        if not count % CLOCK_EVERY:
            current.check()
        yield item


def bound_tree(tree: jinja2.nodes.Template) -> jinja2.nodes.Template:
    """``tree`` with every loop's iterable wrapped in ``bounded_iter`` and every ``~``
    concatenation in ``sized``."""
    for loop in tree.find_all(jinja2.nodes.For):
        loop.iter = _call(ITER_NAME, loop.iter, loop.lineno)
    for parent in list(tree.find_all(jinja2.nodes.Node)):
        for field, value in parent.iter_fields():
            if isinstance(value, jinja2.nodes.Concat):
                setattr(parent, field, _call(SIZED_NAME, value, value.lineno))
            elif isinstance(value, list):
                value[:] = [
                    _call(SIZED_NAME, item, item.lineno)
                    if isinstance(item, jinja2.nodes.Concat)
                    else item
                    for item in value
                ]
    return tree


def _call(name: str, argument: jinja2.nodes.Node, lineno: int) -> jinja2.nodes.Call:
    call = jinja2.nodes.Call(jinja2.nodes.Name(name, "load"), [argument], [], None, None)
    call.set_lineno(lineno)
    return call


def joined(chunks: Iterable[str]) -> str:
    """The rendered text, checked against ``MAX_OUTPUT_CHARS`` every ``CHUNKS_PER_CHECK``
    chunks: slicing and summing in C keeps the check off the per-chunk path."""
    iterator = iter(chunks)
    parts: list[str] = []
    size = 0
    while block := list(itertools.islice(iterator, CHUNKS_PER_CHECK)):
        size += sum(map(len, block))
        if size > MAX_OUTPUT_CHARS:
            raise RenderLimit(f"its output passed {MAX_OUTPUT_CHARS:,} characters")
        parts += block
    return "".join(parts)


def _check_arguments(args: Iterable[Any], what: str) -> None:
    for value in args:
        if isinstance(value, int) and not isinstance(value, bool) and value > MAX_OUTPUT_CHARS:
            raise RenderLimit(f"{what} was given {value}, more than {MAX_OUTPUT_CHARS:,}")


def bound_filters(filters: dict[str, Callable[..., Any]]) -> None:
    """Wrap every filter so that large integer arguments are refused and results accounted."""
    for name, function in list(filters.items()):
        filters[name] = _bounded_filter(name, function)


def _bounded_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)  # keeps Jinja's pass_context/pass_environment markers
    def bounded(*args: Any, **kwargs: Any) -> Any:
        _check_arguments([*args[1:], *kwargs.values()], f"the filter `{name}`")
        result = function(*args, **kwargs)
        if inspect.isawaitable(result):
            return _sized_later(result)
        return sized(result)

    return bounded


async def _sized_later(result: Any) -> Any:
    return sized(await result)


class BoundedOperators:
    """Sandbox hooks (mixed into the environment) that bound what operators and calls build."""

    intercepted_binops = frozenset({"*", "**", "+"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for sequence, times in ((left, right), (right, left)):
                if (
                    isinstance(sequence, _SEQUENCES)
                    and isinstance(times, int)
                    and len(sequence) * times > MAX_OUTPUT_CHARS
                ):
                    raise RenderLimit(
                        f"`* {times}` would build a value of more than {MAX_OUTPUT_CHARS:,} items"
                    )
        elif (
            operator == "**"
            and isinstance(left, int)
            and isinstance(right, int)
            and abs(left) > 1
            and right * left.bit_length() > 64 * MAX_OUTPUT_CHARS
        ):
            raise RenderLimit(f"`{left} ** {right}` would be too large a number")
        return sized(super().call_binop(context, operator, left, right))  # type: ignore[misc]

    def call(self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if __obj is bounded_iter or __obj is sized:  # our own hooks: no sandbox round trip
            return __obj(*args)
        # The sandbox hands out str.format wrapped; the wrapper keeps the method as __wrapped__.
        owner = getattr(getattr(__obj, "__wrapped__", __obj), "__self__", None)
        if isinstance(owner, str):
            _check_arguments([*args, *kwargs.values()], f"`{getattr(__obj, '__name__', '')}`")
            if getattr(__obj, "__name__", "") in ("format", "format_map"):
                if _WIDE_FORMAT.search(owner):
                    raise RenderLimit("a format width is more than 6 digits")
        result = super().call(__context, __obj, *args, **kwargs)  # type: ignore[misc]
        return sized(result)

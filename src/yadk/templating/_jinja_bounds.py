"""The bounds of one Jinja2 render: time, output size, and the size of every value it builds.

A template is untrusted input. The render's ``Budget`` (held in a context variable while a
render runs) stops it after ``MAX_RENDER_SECONDS`` and once it has built more than
``MAX_BUILT_CHARS`` characters in all; no single value may weigh more than ``MAX_OUTPUT_CHARS``,
and the output may not be longer. A value's weight (``weigh``) counts the characters of its
strings and the items of its lists, tuples, sets and dicts *at every depth*, so a list holding
the same big list a million times weighs what printing it would cost, not one million.

The checks sit wherever a template can do unbounded work:

* every ``{% for %}`` loop (``bound_tree`` wraps its iterable in ``bounded_iter``), which looks
  at the clock as it starts and, past ``CLOCK_EVERY`` items, as it goes;
* ``*``, ``**``, ``+`` and ``%`` (``BoundedOperators.call_binop``), ``~`` and list, tuple and
  dict literals (wrapped by ``bound_tree``): checked before they build a value whose size can be
  predicted (``'x' * n``, ``[big] * n``, ``a ** b``, ``fmt % args``), and weighed right after;
* every filter, global function and method call (``BoundedOperators.call``, ``bound_filters``):
  the clock is checked before the call, an integer argument beyond ``MAX_OUTPUT_CHARS`` is
  refused, the calls whose result can dwarf their inputs (``replace``, ``join``, ``format``,
  ``wordwrap``, ``indent``, ``expandtabs``, ``translate``, ``lipsum``, ``sum`` of lists) are
  estimated first (``_jinja_guards``), the result is weighed, and a lazy result (``map``,
  ``select``, ``batch``...) checks the clock and accounts its items as they are pulled;
* the output, checked every ``CHUNKS_PER_CHECK`` chunks as it is joined.
"""

from __future__ import annotations

import contextvars
import inspect
import itertools
import time
from collections.abc import (
    AsyncIterator,
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    ValuesView,
)
from types import MappingProxyType
from typing import Any, Final

import jinja2.nodes

__all__ = [
    "ITER_NAME",
    "SIZED_NAME",
    "Budget",
    "RenderLimit",
    "bound_tree",
    "bounded_iter",
    "budget",
    "check_arguments",
    "joined",
    "lazily_accounted",
    "settled",
    "sized",
    "weigh",
]

MAX_RENDER_SECONDS: float = 1.0
MAX_OUTPUT_CHARS: int = 1_000_000
MAX_BUILT_CHARS: int = 16_000_000
# An integer of this many bits has about MAX_OUTPUT_CHARS digits.
MAX_INT_BITS: Final = 3 * MAX_OUTPUT_CHARS
# How many loop iterations may pass between two looks at the clock, how many items a lazy filter
# result may yield between two, and how many output chunks (each at most MAX_OUTPUT_CHARS)
# between two checks of the output's size.
CLOCK_EVERY: Final = 1024
LAZY_CLOCK_EVERY: Final = 64
CHUNKS_PER_CHECK: Final = 256
# Values at least this heavy keep their weight for the rest of the render (by identity: the
# immutable sandbox cannot change a list or dict), so weighing a value that holds them is cheap.
_REMEMBER_FROM: Final = 1024
ITER_NAME: Final = "__yadk_bounded_iter"
SIZED_NAME: Final = "__yadk_sized"
FIX: Final = (
    "Make the template build less, or prepare large text in a tool or callback and read it"
    " from state"
)
_TEXT: Final = (str, bytes)
_CONTAINERS: Final = (
    list,
    tuple,
    set,
    frozenset,
    dict,
    range,
    MappingProxyType,
    KeysView,
    ValuesView,
    ItemsView,
)
_MAPPINGS: Final = (dict, MappingProxyType)


class RenderLimit(Exception):
    """A render went past one of its bounds; becomes a TemplateError naming the agent."""


class Budget:
    """The deadline, the characters built so far and the remembered weights of one render."""

    __slots__ = ("built", "deadline", "weights")

    def __init__(self) -> None:
        self.deadline = time.monotonic() + MAX_RENDER_SECONDS
        self.built = 0
        self.weights: dict[int, tuple[Any, int]] = {}

    def check(self) -> None:
        if time.monotonic() > self.deadline:
            raise RenderLimit(f"it took longer than {MAX_RENDER_SECONDS:g} s")

    def add(self, size: int) -> None:
        """Count a value of weight ``size`` as built."""
        if size > MAX_OUTPUT_CHARS:
            raise RenderLimit(f"it built a value of more than {MAX_OUTPUT_CHARS:,} items")
        self.built += size
        if self.built > MAX_BUILT_CHARS:
            raise RenderLimit(f"it built more than {MAX_BUILT_CHARS:,} characters in all")

    def account(self, size: int) -> None:
        """``add``, then look at the clock."""
        self.add(size)
        self.check()


budget: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "yadk_jinja_budget", default=None
)


def weigh(value: Any, current: Budget | None = None, *, cap: int = MAX_OUTPUT_CHARS) -> int:
    """The weight of ``value``: characters of text, digits of a big integer, and for a
    container the weight (at least one) of every item, at every depth, an inner container
    counting one more. Weighing stops once the weight passes ``cap`` (the result is then
    ``cap + 1``), so it costs at most ``cap`` steps whatever the value shares."""
    kind = type(value)
    if kind is str or kind is bytes or isinstance(value, _TEXT):
        return len(value)
    if kind is int:
        bits: int = value.bit_length()
        return 1 if bits < 64 else bits // 3
    if not isinstance(value, _CONTAINERS):
        return 1
    if kind is range:
        return len(value)
    memo = current.weights if current is not None else {}
    known = memo.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    total = 0
    stack: list[Iterator[Any]] = [_items(value)]
    while stack:
        for item in stack[-1]:
            kind = type(item)
            if kind is int or kind is float or kind is bool or item is None:
                total += 1
            elif kind is str:
                total += max(1, len(item))
            else:
                remembered = memo.get(id(item))
                if remembered is not None and remembered[0] is item:
                    total += 1 + remembered[1]
                elif isinstance(item, _CONTAINERS) and kind is not range:
                    total += 1
                    stack.append(_items(item))
                    break  # weigh the inner container, then come back to this one
                else:
                    total += max(1, weigh(item))
            if total > cap:
                return cap + 1
        else:
            stack.pop()
        if total > cap:
            return cap + 1
    if total >= _REMEMBER_FROM:
        memo[id(value)] = (value, total)
    return max(total, 1)


def _items(value: Any) -> Iterator[Any]:
    if isinstance(value, _MAPPINGS):
        return itertools.chain.from_iterable(value.items())
    if isinstance(value, ItemsView):
        return itertools.chain.from_iterable(value)
    return iter(value)


def sized(value: Any) -> Any:
    """``value``, weighed and accounted against the render's budget if it is text or a
    container."""
    current = budget.get()
    if current is not None and isinstance(value, (*_TEXT, *_CONTAINERS)):
        current.account(weigh(value, current))
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


def lazily_accounted(items: Iterator[Any], current: Budget) -> Iterator[Any]:
    """A lazy filter result (``map``, ``select``, ``batch``...) that checks the clock every
    ``LAZY_CLOCK_EVERY`` items and accounts each item as it is pulled, so a chain of them fed
    to one C-level consumer (``sum``, ``join``, ``list``) still stops on time."""
    for count, item in enumerate(items, start=1):
        if not count % LAZY_CLOCK_EVERY:
            current.check()
        current.account(weigh(item, current))
        yield item


async def _lazily_accounted_async(items: AsyncIterator[Any], current: Budget) -> AsyncIterator[Any]:
    count = 0
    async for item in items:
        count += 1
        if not count % LAZY_CLOCK_EVERY:
            current.check()
        current.account(weigh(item, current))
        yield item


def bound_tree(tree: jinja2.nodes.Template) -> jinja2.nodes.Template:
    """``tree`` with every loop's iterable wrapped in ``bounded_iter``, and every ``~``
    concatenation and list, tuple or dict literal in ``sized``."""
    for loop in tree.find_all(jinja2.nodes.For):
        loop.iter = _call(ITER_NAME, loop.iter, loop.lineno)
    built = (jinja2.nodes.Concat, jinja2.nodes.List, jinja2.nodes.Dict)
    for parent in list(tree.find_all(jinja2.nodes.Node)):
        for field, value in parent.iter_fields():
            if _builds(value, built):
                setattr(parent, field, _call(SIZED_NAME, value, value.lineno))
            elif isinstance(value, list):
                value[:] = [
                    _call(SIZED_NAME, item, item.lineno) if _builds(item, built) else item
                    for item in value
                ]
    return tree


def _builds(node: Any, built: tuple[type[jinja2.nodes.Node], ...]) -> bool:
    # A tuple in a "store" context is an unpacking target ({% for k, v in ... %}), not a value.
    if isinstance(node, jinja2.nodes.Tuple):
        return node.ctx == "load"
    return isinstance(node, built)


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


def check_arguments(args: Iterable[Any], what: str) -> None:
    """Refuse an integer argument above ``MAX_OUTPUT_CHARS`` (a width, a count, a size)."""
    for value in args:
        if isinstance(value, int) and not isinstance(value, bool) and value > MAX_OUTPUT_CHARS:
            raise RenderLimit(f"{what} was given {value}, more than {MAX_OUTPUT_CHARS:,}")


def settled(result: Any, current: Budget) -> Any:
    """A call's result, weighed; an iterator or awaitable is accounted as it yields."""
    if result.__class__ is str:
        current.add(len(result))
        return result
    if isinstance(result, (*_TEXT, *_CONTAINERS)):
        current.account(weigh(result, current))
        return result
    if inspect.isawaitable(result):
        return _settled_later(result, current)
    if inspect.isasyncgen(result):
        return _lazily_accounted_async(result, current)
    if isinstance(result, Iterator):
        return lazily_accounted(result, current)
    return result


async def _settled_later(result: Any, current: Budget) -> Any:
    return settled(await result, current)

"""What filters, functions, methods and operators may build in a Jinja2 instruction.

Most calls build a value no bigger than their inputs, and weighing the result afterwards
(``_jinja_bounds.settled``) bounds them. The ones here can build far more than they are given,
or take far longer than their output suggests, so each is estimated *before* it runs and refused
(``RenderLimit``) when the estimate passes ``MAX_OUTPUT_CHARS``:

* ``'x' * n``, ``[big] * n`` (the weight of the sequence times ``n``), ``a * b`` and ``a ** b``
  on integers (their size in bits);
* formatting: ``fmt % args``, ``fmt | format(...)``, ``fmt.format(...)``/``format_map``: the
  format's own length plus, per replacement field, its widest width and the heaviest argument
  (one field can print the same big argument many times);
* ``replace`` (filter and method): each replaced occurrence grows the text;
* ``join`` (filter and method): the separator once per item, plus the items;
* ``indent``, ``wordwrap``: text added per line (``wordwrap`` also refuses more than
  ``MAX_WRAP_CHARS`` characters: Python's wrapping slows down sharply on long words);
  ``expandtabs``, ``translate``, ``tojson(indent=...)``;
* ``lipsum``: at most ``MAX_LIPSUM_WORDS`` words; ``range``: at most ``MAX_RANGE_ITEMS`` items;
* ``sum`` with a list or text ``start`` (it concatenates, each step copying what came before):
  the items are fed one at a time, with the clock checked and the running size accounted.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Final

import jinja2
import jinja2.nodes
import jinja2.runtime
from jinja2.utils import generate_lorem_ipsum

from yadk.templating._jinja_bounds import (
    MAX_INT_BITS,
    MAX_OUTPUT_CHARS,
    Budget,
    RenderLimit,
    bounded_iter,
    budget,
    check_arguments,
    settled,
    sized,
    weigh,
)

__all__ = [
    "MAX_LIPSUM_WORDS",
    "MAX_RANGE_ITEMS",
    "MAX_WRAP_CHARS",
    "BoundedOperators",
    "bound_filters",
    "bounded_lipsum",
    "bounded_range",
]

MAX_WRAP_CHARS: Final = 100_000
MAX_LIPSUM_WORDS: Final = 100_000
# The sandbox's own bound on ``range`` (jinja2.sandbox.MAX_RANGE), with yadk's message.
MAX_RANGE_ITEMS: Final = 100_000
_SEQUENCES: Final = (str, bytes, list, tuple)
_FORMATTER: Final = string.Formatter()
_NUMBER: Final = re.compile(r"\d+")
_PERCENT_FIELD: Final = re.compile(
    r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[a-zA-Z%]"
)
_MAX_WIDTH_DIGITS: Final = len(str(MAX_OUTPUT_CHARS)) - 1
# What Jinja passes before a filter's value when the filter asks for it.
_CONTEXT_ARGUMENTS: Final = (jinja2.runtime.Context, jinja2.nodes.EvalContext, jinja2.Environment)

# A guard sees a filter's value, its other positional and its keyword arguments (a fresh dict it
# may change) before the call, and returns the value and positional arguments to call it with
# (a generator may be replaced by the list it yields).
Guarded = tuple[Any, tuple[Any, ...]]
Guard = Callable[[Any, tuple[Any, ...], dict[str, Any], Budget], Guarded]


def _refuse_over(estimate: int, what: str) -> None:
    if estimate > MAX_OUTPUT_CHARS:
        raise RenderLimit(f"{what} would build more than {MAX_OUTPUT_CHARS:,} characters")


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], index: int, name: str) -> Any:
    if len(args) > index:
        return args[index]
    return kwargs.get(name)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


# -- operators -------------------------------------------------------------------------------


def check_binop(operator: str, left: Any, right: Any, current: Budget) -> None:
    """Refuse ``*``, ``**`` and ``%`` whose result can be predicted to be too large."""
    if operator == "*":
        _check_repeat(left, right, current)
    elif operator == "**":
        if (
            _is_int(left)
            and _is_int(right)
            and abs(left) > 1
            and right * left.bit_length() > MAX_INT_BITS
        ):
            raise RenderLimit(f"`{_number(left)} ** {_number(right)}` would be too large a number")
    elif operator == "%" and isinstance(left, str):
        _check_percent_format(left, right, current, "`%` formatting")


def _check_repeat(left: Any, right: Any, current: Budget) -> None:
    if _is_int(left) and _is_int(right):
        if left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise RenderLimit(f"`*` would build a number of more than {MAX_INT_BITS:,} bits")
        return
    for sequence, times in ((left, right), (right, left)):
        if isinstance(sequence, _SEQUENCES) and _is_int(times) and times > 1:
            if len(sequence) * times > MAX_OUTPUT_CHARS or (
                not isinstance(sequence, (str, bytes))
                and weigh(sequence, current) * times > MAX_OUTPUT_CHARS
            ):
                raise RenderLimit(
                    f"`* {times}` would build a value of more than {MAX_OUTPUT_CHARS:,} items"
                )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: int) -> str:
    return str(value) if value.bit_length() < 64 else f"a {value.bit_length():,}-bit number"


# -- formatting ------------------------------------------------------------------------------


def _check_width(digits: str) -> int:
    if len(digits) > _MAX_WIDTH_DIGITS:
        raise RenderLimit(f"a format width is more than {_MAX_WIDTH_DIGITS} digits")
    return int(digits)


def _heaviest(values: Iterable[Any], current: Budget) -> tuple[int, int]:
    """(the heaviest value's weight, the largest integer usable as a width) of ``values``."""
    heaviest = widest = 0
    for value in values:
        heaviest = max(heaviest, weigh(value, current))
        if _is_int(value) and 0 < value <= MAX_OUTPUT_CHARS:
            widest = max(widest, value)
    return heaviest, widest


def _check_percent_format(fmt: str, values: Any, current: Budget, what: str) -> None:
    fields = 0
    widest = 0
    for match in _PERCENT_FIELD.finditer(fmt):
        fields += 1
        for digits in match.groups():
            if digits and digits != "*":
                widest = max(widest, _check_width(digits))
    if not fields:
        return
    if isinstance(values, Mapping):
        arguments: Iterable[Any] = values.values()
    elif isinstance(values, tuple):
        arguments = values
    else:
        arguments = (values,)
    heaviest, widest_argument = _heaviest(arguments, current)
    _refuse_over(len(fmt) + fields * (max(widest, widest_argument) + heaviest), what)


def _check_brace_format(fmt: str, values: Iterable[Any], current: Budget, what: str) -> None:
    fields = 0
    widest = 0
    try:
        parsed = list(_FORMATTER.parse(fmt))
    except ValueError:
        return  # the call itself reports the malformed format
    for _literal, name, spec, _conversion in parsed:
        if name is None:
            continue
        fields += 1 + (spec or "").count("{")
        for digits in _NUMBER.findall(spec or ""):
            widest = max(widest, _check_width(digits))
    if not fields:
        return
    heaviest, widest_argument = _heaviest(values, current)
    _refuse_over(len(fmt) + fields * (max(widest, widest_argument) + heaviest), what)


# -- methods and global functions ------------------------------------------------------------


def check_call(
    function: Any, args: tuple[Any, ...], kwargs: dict[str, Any], current: Budget
) -> tuple[Any, ...]:
    """Check a call a template makes before it runs; the arguments to call it with."""
    # The sandbox hands out str.format wrapped; the wrapper keeps the method as __wrapped__.
    method = getattr(function, "__wrapped__", function)
    owner = getattr(method, "__self__", None)
    if not isinstance(owner, str):
        return args
    name = getattr(method, "__name__", "")
    what = f"`{name}`"
    check_arguments([*args, *kwargs.values()], what)
    if name == "format":
        _check_brace_format(owner, [*args, *kwargs.values()], current, what)
    elif name == "format_map" and args and isinstance(args[0], Mapping):
        _check_brace_format(owner, args[0].values(), current, what)
    elif name == "replace" and len(args) >= 2:
        _check_replace(owner, args[0], args[1], _argument(args, kwargs, 2, "count"), what)
    elif name == "join" and args:
        items = _materialised(args[0])
        _check_join(owner, items, current, what)
        return (items, *args[1:])
    elif name == "expandtabs":
        size = _argument(args, kwargs, 0, "tabsize")
        tab = size if _is_int(size) else 8
        _refuse_over(len(owner) + owner.count("\t") * max(tab, 0), what)
    elif name == "translate" and args and isinstance(args[0], Mapping):
        longest = max((weigh(value, current) for value in args[0].values()), default=1)
        _refuse_over(len(owner) * max(longest, 1), what)
    return args


def _check_replace(text: str, old: Any, new: Any, count: Any, what: str) -> None:
    old, new = _text(old), _text(new)
    grows = len(new) - len(old)
    if grows <= 0:
        return
    times = len(text) + 1 if not old else text.count(old)
    if _is_int(count) and count >= 0:
        times = min(times, count)
    _refuse_over(len(text) + times * grows, what)


def _materialised(items: Any) -> Any:
    # A lazy filter result is pulled (clocked and accounted) so its length is known; a string
    # or sized container is estimated as it is.
    if isinstance(items, (str, list, tuple, dict, set, frozenset, range)):
        return items
    return list(items)


def _check_join(separator: str, items: Any, current: Budget, what: str) -> None:
    count = len(items)
    body = count if isinstance(items, str) else weigh(items, current)
    _refuse_over(body + len(separator) * max(count - 1, 0), what)


def bounded_range(*args: int) -> range:
    """The sandbox's ``range``, refused past ``MAX_RANGE_ITEMS`` items with the render's own
    message."""
    numbers = range(*args)
    try:
        count = len(numbers)
    except OverflowError:  # more items than a machine word counts
        raise RenderLimit(f"`range` would yield more than {MAX_RANGE_ITEMS:,} items") from None
    if count > MAX_RANGE_ITEMS:
        raise RenderLimit(f"`range` would yield {count:,} items, more than {MAX_RANGE_ITEMS:,}")
    return numbers


def bounded_lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:
    """Jinja's ``lipsum``, refused past ``MAX_LIPSUM_WORDS`` words."""
    if _is_int(n) and _is_int(max) and n * max > MAX_LIPSUM_WORDS:
        raise RenderLimit(
            f"`lipsum({n}, max={max})` could write {n * max:,} words, more than"
            f" {MAX_LIPSUM_WORDS:,}"
        )
    return generate_lorem_ipsum(n=n, html=html, min=min, max=max)


# -- filters ---------------------------------------------------------------------------------


def _guard_replace(
    value: Any, args: tuple[Any, ...], kwargs: dict[str, Any], _b: Budget
) -> Guarded:
    old, new = _argument(args, kwargs, 0, "old"), _argument(args, kwargs, 1, "new")
    if old is not None and new is not None:
        count = _argument(args, kwargs, 2, "count")
        _check_replace(_text(value), old, new, count, "the filter `replace`")
    return value, args


def _guard_join(value: Any, args: tuple[Any, ...], kwargs: dict[str, Any], b: Budget) -> Guarded:
    items = _materialised(value)
    separator = _argument(args, kwargs, 0, "d")
    _check_join(_text("" if separator is None else separator), items, b, "the filter `join`")
    return items, args


def _guard_format(value: Any, args: tuple[Any, ...], kwargs: dict[str, Any], b: Budget) -> Guarded:
    _check_percent_format(_text(value), kwargs or args, b, "the filter `format`")
    return value, args


def _guard_indent(value: Any, args: tuple[Any, ...], kwargs: dict[str, Any], _b: Budget) -> Guarded:
    width = _argument(args, kwargs, 0, "width")
    per_line = len(width) if isinstance(width, str) else width if _is_int(width) else 4
    text = _text(value)
    _refuse_over(len(text) + (text.count("\n") + 1) * per_line, "the filter `indent`")
    return value, args


def _guard_wordwrap(
    value: Any, args: tuple[Any, ...], kwargs: dict[str, Any], _b: Budget
) -> Guarded:
    text = _text(value)
    if len(text) > MAX_WRAP_CHARS:
        raise RenderLimit(
            f"the filter `wordwrap` was given {len(text):,} characters, more than"
            f" {MAX_WRAP_CHARS:,}"
        )
    width = _argument(args, kwargs, 0, "width")
    wrapstring = _argument(args, kwargs, 2, "wrapstring")
    lines = len(text) // (width if _is_int(width) and width > 0 else 1) + text.count("\n") + 1
    added = len(_text(wrapstring)) if wrapstring is not None else 1
    _refuse_over(len(text) + lines * added, "the filter `wordwrap`")
    return value, args


def _guard_tojson(value: Any, args: tuple[Any, ...], kwargs: dict[str, Any], b: Budget) -> Guarded:
    indent = _argument(args, kwargs, 0, "indent")
    per_item = len(indent) if isinstance(indent, str) else indent if _is_int(indent) else 0
    _refuse_over(weigh(value, b) * (1 + max(per_item, 0)), "the filter `tojson`")
    return value, args


def _guard_sum(value: Any, args: tuple[Any, ...], kwargs: dict[str, Any], b: Budget) -> Guarded:
    start = _argument(args, kwargs, 1, "start")
    if start is None or isinstance(start, (int, float)):
        return value, args
    if isinstance(start, list):
        # Jinja's async ``sum`` adds with ``+=``, which would extend the template's own list
        # (and every value sharing it) in place: it gets a copy.
        if len(args) > 1:
            args = (args[0], list(start), *args[2:])
        else:
            kwargs["start"] = list(start)
    return _one_at_a_time(value, weigh(start, b), b), args


def _one_at_a_time(items: Iterable[Any], size: int, current: Budget) -> Iterator[Any]:
    """Items fed to a concatenating ``sum``: each step copies the total so far, so the clock is
    checked at every item and the total's size is known before it is built."""
    for item in items:
        current.check()
        size += weigh(item, current)
        if size > MAX_OUTPUT_CHARS:
            raise RenderLimit(
                f"the filter `sum` would build a value of more than {MAX_OUTPUT_CHARS:,} items"
            )
        yield item


FILTER_GUARDS: Final[dict[str, Guard]] = {
    "format": _guard_format,
    "indent": _guard_indent,
    "join": _guard_join,
    "replace": _guard_replace,
    "sum": _guard_sum,
    "tojson": _guard_tojson,
    "wordwrap": _guard_wordwrap,
}


def bound_filters(filters: dict[str, Callable[..., Any]]) -> None:
    """Wrap every filter: the clock is checked, large integer arguments refused, the filters of
    ``FILTER_GUARDS`` estimated first, results weighed and lazy results accounted as they are
    pulled."""
    for name, function in list(filters.items()):
        filters[name] = _bounded_filter(name, function, FILTER_GUARDS.get(name))


def _bounded_filter(name: str, function: Callable[..., Any], guard: Guard | None) -> Any:
    what = f"the filter `{name}`"

    @functools.wraps(function)  # keeps Jinja's pass_context/pass_environment markers
    def bounded(*args: Any, **kwargs: Any) -> Any:
        # Without a render's budget, Jinja is folding a constant expression while compiling:
        # the same bounds apply then (a refusal only leaves the expression to the render).
        current = budget.get() or Budget()
        current.check()
        # Jinja passes at most one context, environment or eval context before the value.
        lead = 1 if args and isinstance(args[0], _CONTEXT_ARGUMENTS) else 0
        if kwargs or len(args) > lead + 1:
            check_arguments([*args[lead + 1 :], *kwargs.values()], what)
        if guard is not None and lead < len(args):
            value, rest = guard(args[lead], args[lead + 1 :], kwargs, current)
            args = (*args[:lead], value, *rest)
        return settled(function(*args, **kwargs), current)

    return bounded


class BoundedOperators:
    """Sandbox hooks (mixed into the environment) that bound what operators and calls build."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        current = budget.get()
        if current is not None:
            check_binop(operator, left, right, current)
        return sized(super().call_binop(context, operator, left, right))  # type: ignore[misc]

    def call(self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if __obj is bounded_iter or __obj is sized:  # our own hooks: no sandbox round trip
            return __obj(*args)
        current = budget.get()
        if current is None:
            return super().call(__context, __obj, *args, **kwargs)  # type: ignore[misc]
        current.check()
        args = check_call(__obj, args, kwargs, current)
        result = super().call(__context, __obj, *args, **kwargs)  # type: ignore[misc]
        return settled(result, current)

"""Readers for app.yaml's settings that are pydantic models of yadk.apps
(``events_compaction_config``, ``context_cache_config``, ``resumability_config``, ``budget``):
unknown keys with a did-you-mean, then the model's own checks, each located at the deepest key
the problem names.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yadk.config._context import FileScope
from yadk.config._refs import LoaderBase
from yadk.config._yaml import KeyPath

__all__ = ["AppKey", "budget_prices", "settings_reader", "summarizer_name"]

AppKey = Callable[[LoaderBase, FileScope, KeyPath, Any], Any]
Adjust = Callable[[LoaderBase, FileScope, KeyPath, dict[str, Any]], "dict[str, Any] | None"]


def settings_reader(model: str, adjust: Adjust | None = None) -> AppKey:
    """A reader for one of the App's pydantic settings (``model`` names it in yadk.apps);
    ``adjust`` checks or rewrites the mapping first (``None``: it reported a problem)."""

    def read(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> Any:
        from pydantic import ValidationError

        import yadk.apps

        cls = getattr(yadk.apps, model)
        if value is None:
            return None
        if not reader.expect(scope, at, value, dict, f"a mapping of {model} fields"):
            return None
        before = reader.errors
        reader.unknown_keys(scope, at, value, tuple(cls.model_fields), f"`{at[-1]}`")
        if reader.errors != before:
            return None
        data: dict[str, Any] | None = dict(value)
        if adjust is not None and data is not None:
            data = adjust(reader, scope, at, data)
        if data is None:
            return None
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            for problem in exc.errors():
                loc = [p for p in problem["loc"] if isinstance(p, (str, int))]
                where = (*at, *_present(value, loc))
                named = at[-1] if len(where) <= len(at) + 1 else ".".join(map(str, where))
                message = str(problem["msg"]).removeprefix("Value error, ")
                reader.error(scope, where, "invalid-value", f"`{named}`: {message}")
            return None

    return read


def _present(value: Any, loc: list[str | int]) -> list[str | int]:
    """The longest start of ``loc`` that exists in ``value``: a missing field or a rule over
    several fields is shown at the mapping that holds them."""
    found: list[str | int] = []
    for key in loc:
        if not isinstance(value, dict) or key not in value:
            break
        found.append(key)
        value = value[key]
    return found


def summarizer_name(
    reader: LoaderBase, scope: FileScope, at: KeyPath, data: dict[str, Any]
) -> dict[str, Any] | None:
    """``summarizer: <model name>`` (a yadk spelling): that model summarises."""
    value = data.get("summarizer")
    if value is None:
        return data
    if not reader.expect(
        scope,
        (*at, "summarizer"),
        value,
        str,
        "a model name",
        "e.g. `summarizer: gemini-2.5-flash`; a summariser object is set in Python.",
    ):
        return None
    if reader.import_code:
        from yadk.apps import LlmEventSummarizer

        data["summarizer"] = LlmEventSummarizer(value)
    return data


_PRICE_KEYS = ("input_per_million", "output_per_million")


def budget_prices(
    reader: LoaderBase, scope: FileScope, at: KeyPath, data: dict[str, Any]
) -> dict[str, Any] | None:
    """``prices:`` is a mapping of model name to ``{input_per_million, output_per_million}``
    (a misspelt key gets a did-you-mean); ``max_cost`` needs at least one price, or no call
    could be counted."""
    before = reader.errors
    prices = data.get("prices")
    if prices is not None and reader.expect(
        scope,
        (*at, "prices"),
        prices,
        dict,
        "a mapping of model name to its price",
        "e.g. `prices: {gemini-2.5-flash: {input_per_million: 0.3, output_per_million: 2.5}}`;"
        " `'*'` prices every model not named.",
    ):
        for model, price in prices.items():
            where = (*at, "prices", model)
            if reader.expect(
                scope,
                where,
                price,
                dict,
                "a price: `{input_per_million: ..., output_per_million: ...}`",
            ):
                reader.unknown_keys(scope, where, price, _PRICE_KEYS, f"the price of `{model}`")
    if data.get("max_cost") is not None and not prices:
        reader.error(
            scope,
            (*at, "max_cost"),
            "missing-prices",
            "`budget.max_cost` is set but `budget.prices` names no model, so no call's cost"
            " could be counted.",
            "Add `prices:` with each model's price per million input and output tokens, e.g."
            " `prices: {'*': {input_per_million: 1.0, output_per_million: 4.0}}`.",
        )
    return data if reader.errors == before else None

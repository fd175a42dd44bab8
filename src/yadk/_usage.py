"""Token usage and budgets: what a model call cost, and the limits an invocation stops at.

Usage comes from the backend's ``usage_metadata`` (google-genai's names, which every backend
maps to); a backend that reports none is estimated (about four characters a token) and the
record says ``estimated``. While a budget applies, each model event carries its usage and the
running totals in ``custom_metadata["yadk_usage"]``, so the session holds them and a later
invocation (or another process) reads the session total from the last record instead of
summing the whole history.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import weakref
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from yadk.events import Event
    from yadk.models import LlmRequest, LlmResponse

__all__ = [
    "USAGE_KEY",
    "Budget",
    "BudgetTracker",
    "CallUsage",
    "InvocationUsage",
    "ModelPrice",
    "SessionUsage",
    "call_usage",
    "reported_usage",
    "session_usage",
    "usage_lines",
]

USAGE_KEY = "yadk_usage"
_CHARS_PER_TOKEN = 4


class ModelPrice(BaseModel):
    """What one model costs, in your currency, per million input and output tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_million: float = Field(ge=0)
    output_per_million: float = Field(ge=0)


class Budget(BaseModel):
    """Hard limits on what an invocation and a session may spend (a yadk addition).

    Before each model call the invocation's and the session's usage so far are compared with
    the limits; once one is reached the invocation ends with one ``BUDGET_EXCEEDED`` error event
    and the call is never sent. ``max_cost`` needs a price for each model called (``prices``,
    keyed by model name; ``"*"`` prices any other model).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_tokens_per_invocation: int | None = Field(default=None, gt=0)
    max_tokens_per_session: int | None = Field(default=None, gt=0)
    max_cost: float | None = Field(default=None, gt=0)
    prices: dict[str, ModelPrice] = Field(default_factory=dict)

    def price_of(self, model: str) -> ModelPrice | None:
        return self.prices.get(model) or self.prices.get("*")


@dataclasses.dataclass
class BudgetTracker:
    """What one invocation has spent, and what its session had spent before it."""

    budget: Budget
    session_tokens: int
    session_cost: float
    tokens: int = 0
    cost: float = 0.0


@dataclasses.dataclass(frozen=True)
class CallUsage:
    """The tokens one model call used; ``estimated`` when the backend reported none."""

    input_tokens: int
    output_tokens: int
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def cost(self, price: ModelPrice | None) -> float | None:
        if price is None:
            return None
        return (
            self.input_tokens * price.input_per_million
            + self.output_tokens * price.output_per_million
        ) / 1_000_000


def call_usage(request: LlmRequest, response: LlmResponse) -> CallUsage:
    """The usage the backend reported for ``response``, or an estimate from the text sent and
    received when it reported none."""
    reported = reported_usage(response.usage_metadata)
    if reported is not None:
        return reported
    sent = len(request.system_instruction) + sum(_chars(c) for c in request.contents)
    sent += sum(len(json.dumps(d.to_dict())) for d in request.function_declarations)
    received = _chars(response.content) if response.content is not None else 0
    return CallUsage(_tokens(sent), _tokens(received), estimated=True)


def reported_usage(usage_metadata: Mapping[str, Any] | None) -> CallUsage | None:
    """The tokens in a backend's ``usage_metadata`` (google-genai's names), if it holds any."""
    if not usage_metadata:
        return None
    prompt = _int(usage_metadata.get("prompt_token_count"))
    output = _int(usage_metadata.get("candidates_token_count"))
    thoughts = _int(usage_metadata.get("thoughts_token_count"))
    total = _int(usage_metadata.get("total_token_count"))
    if prompt is None and output is None and total is None:
        return None
    input_tokens = prompt or 0
    output_tokens = (output or 0) + (thoughts or 0)
    if total is not None and total > input_tokens + output_tokens:
        output_tokens = total - input_tokens
    return CallUsage(input_tokens, output_tokens)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and value >= 0 else None


def _tokens(chars: int) -> int:
    return -(-chars // _CHARS_PER_TOKEN)


# Sizes of the contents already measured: a request carries the same history objects turn
# after turn (stored events do not change), so estimating costs what is new. Keyed by id,
# checked by a weak reference. A callback that edits a content in place may leave its estimate
# stale; an estimate is a rough figure either way (about four characters a token).
_SIZES: dict[int, tuple[weakref.ref[Any], int]] = {}


def _chars(content: Any) -> int:
    key = id(content)
    known = _SIZES.get(key)
    if known is not None and known[0]() is content:
        return known[1]
    size = _measure(content)
    try:
        ref = weakref.ref(content, functools.partial(_forget, key))
    except TypeError:  # not weak-referenceable: measured each time
        return size
    _SIZES[key] = (ref, size)
    return size


def _forget(key: int, dead: weakref.ref[Any]) -> None:
    known = _SIZES.get(key)
    if known is not None and known[0] is dead:
        del _SIZES[key]


def _measure(content: Any) -> int:
    total = 0
    for part in getattr(content, "parts", None) or []:
        if part.text:
            total += len(part.text)
        if part.function_call is not None:
            total += len(part.function_call.name) + len(json.dumps(part.function_call.args))
        if part.function_response is not None:
            total += len(part.function_response.name)
            total += len(json.dumps(part.function_response.response, default=str))
    return total


@dataclasses.dataclass
class InvocationUsage:
    """One invocation's model calls and tokens; ``cost`` is ``None`` when no call was priced."""

    invocation_id: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def add(self, usage: CallUsage, cost: float | None) -> None:
        self.calls += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.estimated = self.estimated or usage.estimated
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost


@dataclasses.dataclass
class SessionUsage:
    """A session's usage, invocation by invocation (oldest first), and its totals."""

    invocations: list[InvocationUsage]

    @property
    def total_tokens(self) -> int:
        return sum(i.total_tokens for i in self.invocations)

    @property
    def input_tokens(self) -> int:
        return sum(i.input_tokens for i in self.invocations)

    @property
    def output_tokens(self) -> int:
        return sum(i.output_tokens for i in self.invocations)

    @property
    def cost(self) -> float | None:
        costs = [i.cost for i in self.invocations if i.cost is not None]
        return sum(costs) if costs else None

    @property
    def estimated(self) -> bool:
        return any(i.estimated for i in self.invocations)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total_tokens": self.total_tokens,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost": self.cost,
            "estimated": self.estimated,
            "invocations": [
                {
                    "invocation_id": i.invocation_id,
                    "calls": i.calls,
                    "input_tokens": i.input_tokens,
                    "output_tokens": i.output_tokens,
                    "total_tokens": i.total_tokens,
                    "cost": i.cost,
                    "estimated": i.estimated,
                }
                for i in self.invocations
            ],
        }

    def describe(self) -> list[str]:
        """The usage as lines of text, for ``/usage`` and ``yadk sessions show``."""
        lines = [
            f"session: {_summary(self.total_tokens, self.input_tokens, self.output_tokens)}"
            f"{_cost_text(self.cost)}{' (estimated in part)' if self.estimated else ''}"
        ]
        for number, inv in enumerate(self.invocations, 1):
            note = " (estimated)" if inv.estimated else ""
            calls = "call" if inv.calls == 1 else "calls"
            lines.append(
                f"  #{number} {inv.invocation_id}: {inv.calls} model {calls},"
                f" {_summary(inv.total_tokens, inv.input_tokens, inv.output_tokens)}"
                f"{_cost_text(inv.cost)}{note}"
            )
        return lines


def _summary(total: int, input_tokens: int, output_tokens: int) -> str:
    return f"{total:,} tokens ({input_tokens:,} in, {output_tokens:,} out)"


def _cost_text(cost: float | None) -> str:
    return "" if cost is None else f", cost {cost:.6f}".rstrip("0").rstrip(".")


def session_usage(events: Iterable[Event]) -> SessionUsage:
    """Usage per invocation from a session's events: each model event's ``yadk_usage`` record
    where a budget wrote one, else the usage its backend reported. Without a budget, a call
    whose backend reported no usage is not counted (a budget estimates and records it)."""
    by_id: dict[str, InvocationUsage] = {}
    for event in events:
        if event.author == "user" or event.partial:
            continue
        record = (event.custom_metadata or {}).get(USAGE_KEY)
        if isinstance(record, Mapping):
            usage = CallUsage(
                int(record.get("input_tokens", 0)),
                int(record.get("output_tokens", 0)),
                bool(record.get("estimated", False)),
            )
            cost = record.get("cost")
            inv = by_id.setdefault(event.invocation_id, InvocationUsage(event.invocation_id))
            inv.add(usage, float(cost) if isinstance(cost, int | float) else None)
        else:
            reported = reported_usage(event.usage_metadata)
            if reported is not None:
                inv = by_id.setdefault(event.invocation_id, InvocationUsage(event.invocation_id))
                inv.add(reported, None)
    return SessionUsage(list(by_id.values()))


def usage_lines(usage: SessionUsage) -> list[str]:
    """What ``/usage``, ``yadk sessions show`` and the web UI's Usage tab say: the session's
    usage, or why there is none."""
    if not usage.invocations:
        return [
            "no token usage in this session yet (none reported by the model backends; with a"
            " budget set, unreported usage is estimated)"
        ]
    return usage.describe()

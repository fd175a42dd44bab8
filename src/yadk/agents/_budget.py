"""Token budgets in the call loop: checked before each model call, charged after it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from yadk._usage import USAGE_KEY, Budget, BudgetTracker, call_usage, reported_usage
from yadk.errors import BudgetExceededError

if TYPE_CHECKING:
    from yadk._contexts import InvocationContext
    from yadk.events import Event
    from yadk.models import LlmRequest, LlmResponse

__all__ = ["active_budget", "charge_budget", "check_budget", "record_usage"]


def active_budget(ctx: InvocationContext) -> BudgetTracker | None:
    """The invocation's budget (``RunConfig.budget``, else the app's), with the session's
    earlier usage read once per invocation."""
    counter = ctx.counter
    if counter.budget_checked:
        return counter.budget
    counter.budget_checked = True
    budget = ctx.run_config.budget
    if budget is None and ctx.app is not None:
        budget = getattr(ctx.app, "budget", None)
    if budget is None:
        return None
    counter.budget = _tracker(budget, ctx.session.events, ctx.invocation_id)
    return counter.budget


def _tracker(budget: Budget, events: list[Event], invocation_id: str) -> BudgetTracker:
    """The session's tokens and cost so far: the running totals of the last usage record, plus
    what backends reported on later events that carry no record (a turn run without a budget).
    Reads back only as far as the last record. A resumed invocation goes on from its own."""
    tokens, cost = 0, 0.0
    for event in reversed(events):
        record = (event.custom_metadata or {}).get(USAGE_KEY)
        if isinstance(record, Mapping):
            tokens += int(record.get("session_tokens", 0))
            cost += float(record.get("session_cost", 0.0))
            if event.invocation_id != invocation_id:
                break
            spent = int(record.get("invocation_tokens", 0))
            spent_cost = float(record.get("invocation_cost", 0.0))
            return BudgetTracker(budget, tokens - spent, cost - spent_cost, spent, spent_cost)
        reported = reported_usage(event.usage_metadata)
        if reported is not None:
            tokens += reported.total_tokens
    return BudgetTracker(budget, tokens, cost)


def check_budget(tracker: BudgetTracker, ctx: InvocationContext, model: str) -> None:
    """Raise ``BudgetExceededError`` if a limit is reached, before the call to ``model``."""
    budget = tracker.budget
    where = f"agent {ctx.agent.name!r} was about to call model {model!r}"
    if budget.max_tokens_per_invocation is not None:
        if tracker.tokens >= budget.max_tokens_per_invocation:
            raise BudgetExceededError(
                f"Token budget reached: this invocation used {tracker.tokens:,} tokens, its limit"
                f" is {budget.max_tokens_per_invocation:,} (Budget.max_tokens_per_invocation);"
                f" it ended before the next model call ({where}). Raise the limit if the task"
                " needs more, or look for a tool the model keeps calling."
            )
    session_tokens = tracker.session_tokens + tracker.tokens
    if budget.max_tokens_per_session is not None:
        if session_tokens >= budget.max_tokens_per_session:
            raise BudgetExceededError(
                f"Token budget reached: this session used {session_tokens:,} tokens, its limit"
                f" is {budget.max_tokens_per_session:,} (Budget.max_tokens_per_session); the"
                f" invocation ended before the next model call ({where}). Start a new session"
                " or raise the limit."
            )
    if budget.max_cost is not None:
        if budget.price_of(model) is None:
            known = ", ".join(sorted(budget.prices)) or "none"
            raise BudgetExceededError(
                f"Budget.max_cost is set but Budget.prices has no price for model {model!r}"
                f" (priced: {known}), so the cost of the call cannot be counted; {where}. Add"
                f" prices={{{model!r}: ModelPrice(input_per_million=...,"
                " output_per_million=...)}, or a '*' price for every other model."
            )
        session_cost = tracker.session_cost + tracker.cost
        if session_cost >= budget.max_cost:
            raise BudgetExceededError(
                f"Cost budget reached: this session cost {session_cost:.6g}, its limit is"
                f" {budget.max_cost:g} (Budget.max_cost); the invocation ended before the next"
                f" model call ({where}). Start a new session or raise the limit."
            )


def charge_budget(
    tracker: BudgetTracker,
    request: LlmRequest,
    response: LlmResponse,
    model: str,
) -> dict[str, object]:
    """Add the call's usage to the totals; the record for the model's event."""
    usage = call_usage(request, response)
    cost = usage.cost(tracker.budget.price_of(model))
    tracker.tokens += usage.total_tokens
    tracker.cost += cost or 0.0
    record = {
        "model": model,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "estimated": usage.estimated,
        "cost": cost,
        "invocation_tokens": tracker.tokens,
        "invocation_cost": tracker.cost,
        "session_tokens": tracker.session_tokens + tracker.tokens,
        "session_cost": tracker.session_cost + tracker.cost,
    }
    return record


def record_usage(event: Event, record: dict[str, object] | None) -> None:
    """Keep a call's usage record on its event (in ``custom_metadata``), hence on the session."""
    if record is not None:
        event.custom_metadata = {**(event.custom_metadata or {}), USAGE_KEY: record}

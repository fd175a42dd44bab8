"""Callbacks of the support desk demo: open a ticket per conversation, keep card numbers out of
the model's context, and keep an audit trail of refunds."""

from __future__ import annotations

import re
from typing import Any

from yadk.agents import CallbackContext, ToolContext
from yadk.models import LlmRequest, LlmResponse
from yadk.tools import BaseTool
from yadk.types import Content, ModelContent, Part

# 13 to 19 digits, optionally grouped by spaces or dashes: the shape of a payment card number.
_CARD_NUMBER = re.compile(r"\b\d(?:[ -]?\d){12,18}\b")

CARD_WARNING = (
    "For your security, please don't share card numbers in this chat; I've kept it out of our"
    " records. I can find your order by its id instead, such as A-1001."
)


def open_ticket(callback_context: CallbackContext) -> None:
    """Before each turn: make sure the ticket exists and the customer has a name to be greeted by."""
    state = callback_context.state
    if state.get("ticket_status") is None:
        state["ticket_status"] = "open"
    if state.get("customer_name") is None:
        state["customer_name"] = (
            state.get("user:name") or "a customer whose name you do not know yet"
        )


def _redacted(content: Content) -> Content:
    parts = [
        Part(text=_CARD_NUMBER.sub("[card number removed]", p.text)) if p.text else p
        for p in content.parts
    ]
    return Content(role=content.role, parts=parts)


def block_card_numbers(
    callback_context: CallbackContext, llm_request: LlmRequest
) -> LlmResponse | None:
    """Keep card numbers away from the model provider: remove them from the history every
    request carries, and answer for the model when the customer's new message holds one."""
    # New Content objects: the ones in the request are the session's own events.
    llm_request.contents = [
        _redacted(c) if any(p.text and _CARD_NUMBER.search(p.text) for p in c.parts) else c
        for c in llm_request.contents
    ]
    message = callback_context.user_content
    text = " ".join(p.text for p in message.parts if p.text) if message else ""
    if not _CARD_NUMBER.search(text):
        return None
    callback_context.state["card_number_blocked"] = True
    return LlmResponse(content=ModelContent(CARD_WARNING))


def audit_refund(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, tool_response: Any
) -> None:
    """After a refund attempt: append it to the ticket's audit log (the response is unchanged)."""
    if tool.name != "issue_refund":
        return
    entry = {
        "order_id": args.get("order_id"),
        "outcome": "error" if "error" in tool_response else "refunded",
    }
    tool_context.state["audit_log"] = [*tool_context.state.get("audit_log", []), entry]

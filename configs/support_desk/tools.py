"""Tools of the support desk demo: order lookup and refunds over a small in-module order book.

Each tool records what it did in session state, so later turns (and the instructions, through
``{last_order_id?}``) know which order the conversation is about.
"""

from __future__ import annotations

from typing import Any

from yadk.tools import ToolContext

ORDERS: dict[str, dict[str, Any]] = {
    "A-1001": {
        "item": "Trail running shoes",
        "status": "in transit",
        "carrier": "DHL",
        "expected_delivery": "2026-05-14",
        "total_eur": 89.90,
    },
    "A-1002": {
        "item": "Rain jacket",
        "status": "delivered",
        "delivered_on": "2026-05-02",
        "total_eur": 129.00,
    },
    "A-1003": {"item": "Water bottle", "status": "processing", "total_eur": 14.50},
}

REFUNDABLE = {"in transit", "delivered"}


def _normalise(order_id: str) -> str:
    return order_id.strip().upper()


def lookup_order(order_id: str, tool_context: ToolContext) -> dict[str, Any]:
    """Look up an order by its id (such as A-1001): the item, its status, delivery and total."""
    key = _normalise(order_id)
    order = ORDERS.get(key)
    if order is None:
        return {"error": f"There is no order {order_id!r}. Order ids look like A-1001."}
    tool_context.state["last_order_id"] = key
    return {"order_id": key, **order}


def issue_refund(order_id: str, reason: str, tool_context: ToolContext) -> dict[str, Any]:
    """Refund an order in full. Only orders in transit or delivered can be refunded, once each.

    Args:
        order_id: The order to refund, such as A-1001.
        reason: Why the customer wants the refund, in a few words.
    """
    key = _normalise(order_id)
    order = ORDERS.get(key)
    if order is None:
        return {"error": f"There is no order {order_id!r}. Order ids look like A-1001."}
    refunded = list(tool_context.state.get("refunded_orders", []))
    if key in refunded:
        return {"error": f"Order {key} has already been refunded."}
    if order["status"] not in REFUNDABLE:
        return {"error": f"Order {key} is {order['status']}; cancel it instead of refunding."}
    refund = {"refund_id": f"R-{key}", "order_id": key, "amount_eur": order["total_eur"]}
    tool_context.state["refunded_orders"] = [*refunded, key]
    tool_context.state["last_order_id"] = key
    tool_context.state["last_refund"] = {**refund, "reason": reason}
    return {"status": "refunded", **refund, "arrives_in": "3-5 business days"}

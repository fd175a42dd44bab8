"""The payments agent's tool: a transfer runs only once the caller confirms it."""

from yadk.tools import FunctionTool


def transfer_money(amount: int, to: str) -> dict[str, object]:
    """Transfer money to someone."""
    return {"status": "sent", "amount": amount, "to": to}


transfer = FunctionTool(transfer_money, require_confirmation=True)

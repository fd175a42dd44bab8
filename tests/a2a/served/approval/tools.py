"""The long-running tool of the approval agent."""


def ask_for_approval(purpose: str, amount: float) -> None:
    """Ask a manager to approve a reimbursement; the answer comes later, from the manager."""
    return None

"""The reimbursement tools of google-adk's human-in-the-loop sample, reduced to one."""


def ask_for_approval(purpose: str, amount: float) -> dict:
    """Ask for approval for the reimbursement."""
    return {"status": "pending", "approver": "Sean Zhou", "purpose": purpose, "amount": amount}

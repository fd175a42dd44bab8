"""The errors a route raises for the client: status, ``{"detail": ...}`` and optional extras."""

from __future__ import annotations

from typing import Any

__all__ = ["Problem", "problem_body"]


class Problem(Exception):
    """Answer the request with ``status`` and ``{"detail": detail, **extra}``."""

    def __init__(self, status: int, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.extra = extra


def problem_body(problem: Problem) -> dict[str, Any]:
    return {"detail": problem.detail, **problem.extra}

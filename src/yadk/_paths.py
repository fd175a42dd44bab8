"""Paths as yadk shows them to a user: relative to the working directory when inside it, so a
message names ``agents/root_agent.yaml``, not the whole absolute path."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["display_path"]


def display_path(path: str | os.PathLike[str]) -> str:
    """``path`` relative to the working directory when inside it, else as given."""
    text = os.fspath(path)
    try:
        relative = Path(text).relative_to(Path.cwd())
    except ValueError:
        return text
    return str(relative) or text

"""Where eval files are: the names yadk eval and yadk validate look for under a folder.

Kept free of the engine and pydantic, so ``yadk validate`` of a folder without eval files stays
as fast as before.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CONFIG_FILE_NAME", "EVAL_FILE_SUFFIXES", "find_eval_files"]

CONFIG_FILE_NAME = "test_config.json"
EVAL_FILE_SUFFIXES = (".evalset.json", ".test.json")
_SKIPPED_FOLDERS = {"node_modules", "__pycache__", "venv"}


def find_eval_files(folder: Path) -> list[Path]:
    """``*.evalset.json`` and ``*.test.json`` files under ``folder``, sorted, skipping hidden
    and virtual-environment folders."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith((".", "_")) and d not in _SKIPPED_FOLDERS
        )
        found.extend(Path(root) / f for f in sorted(files) if f.endswith(EVAL_FILE_SUFFIXES))
    return found

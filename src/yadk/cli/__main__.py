"""``python -m yadk.cli``: the same as the ``yadk`` console script."""

from __future__ import annotations

from yadk.cli import run

if __name__ == "__main__":
    run()

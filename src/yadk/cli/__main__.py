"""``python -m yadk.cli``: the same as the ``yadk`` console script."""

from __future__ import annotations

import sys

from yadk.cli import main

if __name__ == "__main__":
    sys.exit(main())

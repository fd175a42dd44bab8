"""``yadk.__version__``: the installed distribution's version (read on first use)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]


def _version() -> str:
    try:
        return version("yadk")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


__version__ = _version()

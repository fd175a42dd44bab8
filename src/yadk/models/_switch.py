"""The global switch that forbids real (network) model calls, e.g. for a test suite.

``yadk.models.ALLOW_MODEL_REQUESTS`` starts from the environment variable
``YADK_ALLOW_MODEL_REQUESTS`` (``0``, ``false``, ``no`` or ``off`` disable) and may be assigned at
any time; backends read the package attribute on every call, so the assignment takes effect at
once. ``ScriptedModel`` and other offline models ignore it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from yadk.errors import ModelError

__all__ = [
    "allowed_by_environment",
    "check_allow_model_requests",
    "override_allow_model_requests",
]

ENV_VAR = "YADK_ALLOW_MODEL_REQUESTS"
_FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def allowed_by_environment() -> bool:
    """The switch's initial value: on unless ``YADK_ALLOW_MODEL_REQUESTS`` says otherwise."""
    return os.environ.get(ENV_VAR, "1").strip().lower() not in _FALSE_WORDS


def _package() -> Any:
    # The attribute lives on the package so ``yadk.models.ALLOW_MODEL_REQUESTS = False`` works.
    return sys.modules["yadk.models"]


def check_allow_model_requests(description: str) -> None:
    """Raise ``ModelError`` if real model requests are disabled; ``description`` names the call."""
    if getattr(_package(), "ALLOW_MODEL_REQUESTS", True):
        return
    raise ModelError(
        f"Real model requests are disabled, so {description} was not sent"
        " (yadk.models.ALLOW_MODEL_REQUESTS is False; YADK_ALLOW_MODEL_REQUESTS=0 sets that)."
        " Use a ScriptedModel in tests, or allow requests with"
        " `with yadk.models.override_allow_model_requests(True): ...`."
    )


@contextmanager
def override_allow_model_requests(allow: bool) -> Iterator[None]:
    """Set ``yadk.models.ALLOW_MODEL_REQUESTS`` to ``allow`` inside the block, then restore it."""
    package = _package()
    previous = getattr(package, "ALLOW_MODEL_REQUESTS", True)
    package.ALLOW_MODEL_REQUESTS = allow
    try:
        yield
    finally:
        package.ALLOW_MODEL_REQUESTS = previous

"""Pausing Python's cycle collector while a batch of long-lived, acyclic objects is made.

Making tens of thousands of objects at once (a command's imports, the events of a long session)
sets off collection after collection, each walking older objects too; none of the new objects is
in a cycle, so those walks find nothing. Paused, the collector looks at the batch once, after.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the block, unless the program (or an enclosing block) already
    turned it off: then it is left as it is."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()

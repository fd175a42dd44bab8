"""Log output of ``yadk serve``: one line per record, plain text or JSON (``--log-format``)."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, TextIO

__all__ = ["JsonFormatter", "configure_logging"]


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", ...fields}``: the record's ``fields`` extra
    (access and invocation records carry them) are merged in as top-level keys."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            data.update(fields)
        return json.dumps(data, ensure_ascii=False, default=str)


def configure_logging(fmt: str = "plain", *, stream: TextIO | None = None) -> logging.Handler:
    """Send yadk's server logs (access, invocations, reloads) to ``stream`` (stderr)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in ("yadk.serve", "yadk.runner"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(logging.INFO)
        logger.propagate = False
    return handler

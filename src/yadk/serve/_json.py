"""JSON responses written once, compactly (no response-model round trip per request)."""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import Response

__all__ = ["dumps", "json_response"]


def dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def json_response(data: Any, status: int = 200) -> Response:
    return Response(dumps(data).encode(), status_code=status, media_type="application/json")

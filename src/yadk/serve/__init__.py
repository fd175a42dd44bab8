"""yadk agents over HTTP: google-adk's api_server protocol (sessions, artifacts, ``/run``,
``/run_sse``), served by ``yadk serve`` or any ASGI server through ``create_app``."""

from __future__ import annotations

from yadk.serve._app import create_app
from yadk.serve._limits import Limits

__all__ = ["Limits", "create_app"]

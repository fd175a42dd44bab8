"""yadk agents over HTTP: google-adk's api_server protocol (sessions, artifacts, ``/run``,
``/run_sse``), served by ``yadk serve`` or any ASGI server through ``create_app``."""

from __future__ import annotations

from yadk.serve._app import create_app

__all__ = ["create_app"]

"""yadk agents over HTTP: google-adk's api_server protocol (sessions, artifacts, ``/run``,
``/run_sse``), served by ``yadk serve`` or any ASGI server through ``create_app``; and the A2A
agent card an agent publishes (``build_agent_card``, ``yadk card``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade

if TYPE_CHECKING:
    from yadk.serve._app import create_app
    from yadk.serve._card import build_agent_card
    from yadk.serve._limits import Limits
    from yadk.serve._options import ServeOptions

__all__ = ["Limits", "ServeOptions", "build_agent_card", "create_app"]

# Loaded on first use: `yadk card` builds a card without the web framework behind the server.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "Limits": "yadk.serve._limits",
        "ServeOptions": "yadk.serve._options",
        "build_agent_card": "yadk.serve._card",
        "create_app": "yadk.serve._app",
    },
)

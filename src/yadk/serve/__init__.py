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

# For yadk's own packages; not part of the public contract (``__all__``). Loaded on first
# use (table below), as the names above are.
if TYPE_CHECKING:
    from yadk.serve._card import CARD_FILE as CARD_FILE
    from yadk.serve._card import CardFileError as CardFileError
    from yadk.serve._card import read_card_file as read_card_file
    from yadk.serve._card import served_card as served_card
    from yadk.serve._devtraces import start_web_tracing as start_web_tracing
    from yadk.serve._hosts import allowed_hosts as allowed_hosts
    from yadk.serve._hosts import with_port as with_port
    from yadk.serve._logs import configure_logging as configure_logging
    from yadk.serve._webapp import create_web_app as create_web_app

# Loaded on first use: `yadk card` builds a card without the web framework behind the server.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "Limits": "yadk.serve._limits",
        "ServeOptions": "yadk.serve._options",
        "build_agent_card": "yadk.serve._card",
        "create_app": "yadk.serve._app",
        # for yadk's own packages; not part of the public contract
        "CARD_FILE": "yadk.serve._card",
        "CardFileError": "yadk.serve._card",
        "read_card_file": "yadk.serve._card",
        "served_card": "yadk.serve._card",
        "start_web_tracing": "yadk.serve._devtraces",
        "allowed_hosts": "yadk.serve._hosts",
        "with_port": "yadk.serve._hosts",
        "configure_logging": "yadk.serve._logs",
        "create_web_app": "yadk.serve._webapp",
    },
)

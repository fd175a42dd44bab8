"""The Agent2Agent (A2A) protocol: calling remote A2A agents (``RemoteA2aAgent``), and yadk's
parts in both protocol versions' shapes (the server in ``yadk.serve`` and the remote-agent
client share one conversion). Names load on first use (PEP 562): the HTTP client is imported
only when a remote agent is built."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade
from yadk.errors import A2AClientError, AgentCardResolutionError

if TYPE_CHECKING:
    from yadk.a2a._card import AGENT_CARD_WELL_KNOWN_PATH
    from yadk.a2a._remote_agent import RemoteA2aAgent

__all__ = [  # noqa: RUF022
    "A2AClientError",
    "AGENT_CARD_WELL_KNOWN_PATH",
    "AgentCardResolutionError",
    "RemoteA2aAgent",
]

# For yadk's own packages; not part of the public contract (``__all__``). Loaded on first
# use (table below), as the names above are.
if TYPE_CHECKING:
    from yadk.a2a._card import card_url as card_url
    from yadk.a2a._card import is_loopback as is_loopback
    from yadk.a2a._card import read_card as read_card
    from yadk.a2a._client import fetch_card_blocking as fetch_card_blocking
    from yadk.a2a._parts import DATA_END as DATA_END
    from yadk.a2a._parts import DATA_MIME_TYPE as DATA_MIME_TYPE
    from yadk.a2a._parts import DATA_START as DATA_START
    from yadk.a2a._parts import PartError as PartError
    from yadk.a2a._parts import Protocol as Protocol
    from yadk.a2a._parts import parts_from_a2a as parts_from_a2a
    from yadk.a2a._parts import parts_to_a2a as parts_to_a2a

__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "AGENT_CARD_WELL_KNOWN_PATH": "yadk.a2a._card",
        "RemoteA2aAgent": "yadk.a2a._remote_agent",
        # for yadk's own packages; not part of the public contract
        "card_url": "yadk.a2a._card",
        "is_loopback": "yadk.a2a._card",
        "read_card": "yadk.a2a._card",
        "fetch_card_blocking": "yadk.a2a._client",
        "DATA_END": "yadk.a2a._parts",
        "DATA_MIME_TYPE": "yadk.a2a._parts",
        "DATA_START": "yadk.a2a._parts",
        "PartError": "yadk.a2a._parts",
        "Protocol": "yadk.a2a._parts",
        "parts_from_a2a": "yadk.a2a._parts",
        "parts_to_a2a": "yadk.a2a._parts",
    },
)

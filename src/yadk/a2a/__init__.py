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

__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "AGENT_CARD_WELL_KNOWN_PATH": "yadk.a2a._card",
        "RemoteA2aAgent": "yadk.a2a._remote_agent",
    },
)

"""The card a served app publishes: its ``agent.json`` when the app folder has one (as google-adk's
server does), else the card built from the agent, pointing at ``/a2a/{app}`` on this server in
both protocol versions."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Final

from fastapi import Request

from yadk.serve._card import build_agent_card
from yadk.serve._problems import Problem
from yadk.serve._served import Served

__all__ = ["CARD_FILE", "MAX_CARD_FILE", "app_card", "served_card"]

CARD_FILE: Final = "agent.json"
MAX_CARD_FILE: Final = 1 << 20


def endpoint(request: Request, app: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/a2a/{app}"


def served_card(agent: Any, url: str, *, version: str) -> dict[str, Any]:
    """The built card of an agent served at ``url``: the 0.3 fields (``url``,
    ``preferredTransport``, ``protocolVersion``) for 0.3 clients and ``supportedInterfaces`` for
    1.0 clients, both naming the one JSON-RPC endpoint."""
    card = build_agent_card(agent, rpc_url=url, version=version)
    card["capabilities"] = {
        "streaming": True,
        "pushNotifications": False,
        "extendedAgentCard": False,
    }
    card["supportedInterfaces"] = [
        {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
    ]
    return card


async def app_card(served: Served, app: str, request: Request, *, version: str) -> dict[str, Any]:
    found = served.app(app)
    file = found.folder / CARD_FILE
    if await asyncio.to_thread(file.is_file):
        return await asyncio.to_thread(_read_card_file, file)
    runner = served.runner(app)
    return served_card(runner.agent, endpoint(request, app), version=version)


def _read_card_file(file: Path) -> dict[str, Any]:
    with file.open("rb") as handle:
        data = handle.read(MAX_CARD_FILE + 1)
    if len(data) > MAX_CARD_FILE:
        raise Problem(
            500, f"{file}: the agent card is larger than {MAX_CARD_FILE >> 20} MiB; shorten it."
        )
    try:
        card = json.loads(data)
    except ValueError as exc:
        raise Problem(
            500,
            f"{file}:{getattr(exc, 'lineno', 1)}:{getattr(exc, 'colno', 1)}: the agent card is"
            f" not valid JSON ({getattr(exc, 'msg', exc)}); fix the file or remove it to publish"
            " the card built from the agent.",
        ) from None
    if not isinstance(card, dict):
        raise Problem(500, f"{file}:1:1: the agent card must be a JSON object")
    return card

"""The card a served app publishes: its ``agent.json`` when the app folder has one (as google-adk's
server does), else the card built from the agent, pointing at ``/a2a/{app}`` on this server in
both protocol versions."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import Request

from yadk.serve._card import CARD_FILE, CARD_VERSION, CardFileError, read_card_file, served_card
from yadk.serve._problems import Problem
from yadk.serve._served import Served

__all__ = ["app_card", "endpoint"]


def endpoint(request: Request, app: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/a2a/{app}"


async def app_card(served: Served, app: str, request: Request) -> dict[str, Any]:
    found = served.app(app)
    file = found.folder / CARD_FILE
    if await asyncio.to_thread(file.is_file):
        try:
            return await asyncio.to_thread(read_card_file, file)
        except CardFileError as exc:
            raise Problem(500, str(exc)) from None
    runner = served.runner(app)
    return served_card(runner.agent, endpoint(request, app), version=CARD_VERSION)

"""``yadk card``: the A2A agent card of an agent, with skill examples from its example lists."""

from __future__ import annotations

import argparse
import json

from yadk.cli._common import EXIT_OK, agent_path, load_agent

__all__ = ["execute"]


def execute(args: argparse.Namespace) -> int:
    from yadk.serve import build_agent_card

    agent = load_agent(agent_path(args.agent))
    card = build_agent_card(agent, rpc_url=args.url, version=args.card_version)
    print(json.dumps(card, indent=2, ensure_ascii=False))
    return EXIT_OK

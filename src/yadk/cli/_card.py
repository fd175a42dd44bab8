"""``yadk card``: the A2A agent card of an agent as ``yadk serve`` publishes it (its folder's
``agent.json`` when there is one), with skill examples from its example lists."""

from __future__ import annotations

import argparse
import json

from yadk.cli._common import EXIT_OK, CommandError, agent_path, load_agent
from yadk.serve import CARD_FILE, CardFileError, read_card_file, served_card

__all__ = ["execute"]


def execute(args: argparse.Namespace) -> int:
    path = agent_path(args.agent)
    folder = path if path.is_dir() else path.parent
    agent = load_agent(path)
    if path.is_dir() and (path / CARD_FILE).is_file():  # what `yadk serve` publishes too
        try:
            card = read_card_file(path / CARD_FILE)
        except CardFileError as exc:
            raise CommandError(str(exc)) from None
    else:
        url = args.url or f"http://127.0.0.1:8000/a2a/{folder.name}"
        card = served_card(agent, url, version=args.card_version)
    print(json.dumps(card, indent=2, ensure_ascii=False))
    return EXIT_OK

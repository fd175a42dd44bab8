"""``yadk schema``: the JSON Schema of the YAML dialect, for editors."""

from __future__ import annotations

import argparse
import json

from yadk.cli._common import EXIT_OK

__all__ = ["execute"]


def execute(args: argparse.Namespace) -> int:
    from yadk.config import agent_config_json_schema

    print(json.dumps(agent_config_json_schema(), indent=2, ensure_ascii=False))
    return EXIT_OK

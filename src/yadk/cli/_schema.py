"""``yadk schema``: the JSON Schema of the YAML dialect (``--app``: of app.yaml), for editors.

Each schema's module is imported only for the schema asked for.
"""

from __future__ import annotations

import argparse
import json

from yadk.cli._common import EXIT_OK
from yadk.config import agent_config_json_schema

__all__ = ["execute"]


def execute(args: argparse.Namespace) -> int:
    if args.app:
        from yadk.config import app_config_json_schema

        schema = app_config_json_schema()
    else:
        schema = agent_config_json_schema()
    print(json.dumps(schema, indent=2, ensure_ascii=False))
    return EXIT_OK

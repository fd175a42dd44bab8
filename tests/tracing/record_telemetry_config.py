"""Records how google-adk 2.13's ``TelemetryConfig`` resolves, for every pairing of a set of
environments and a set of per-request fields, and which arguments it refuses.

Run with google-adk's own interpreter (never a yadk dependency):

    /opt/adkvenv/bin/python tests/tracing/record_telemetry_config.py

Writes ``recorded/telemetry_config.json``: ``resolved`` (environment, fields -> every public
decision), ``construction_time`` (the environment changed after construction) and ``refused``
(arguments -> the pydantic error's type and location, or the normalised value when accepted).
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from google.adk.telemetry import ContentCapturingMode, TelemetryConfig

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent.parent))

from tests.tracing.telemetry_grid import (  # noqa: E402
    ARGUMENTS,
    ENVIRONMENTS,
    FIELDS,
    VARIABLES,
    decisions,
)

logging.disable(logging.WARNING)


def _config(fields: dict[str, Any]) -> TelemetryConfig:
    fields = dict(fields)
    if isinstance(fields.get("capture_message_content"), str):
        fields["capture_message_content"] = ContentCapturingMode(fields["capture_message_content"])
    return TelemetryConfig(**fields)


def _with_env(env: dict[str, str]) -> None:
    for name in VARIABLES:
        os.environ.pop(name, None)
    os.environ.update(env)


def main() -> None:
    resolved = []
    for env in ENVIRONMENTS:
        for fields in FIELDS:
            _with_env(env)
            resolved.append({"env": env, "fields": fields, "decisions": decisions(_config(fields))})
    _with_env({"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY"})
    config = TelemetryConfig()
    _with_env({"ADK_TELEMETRY_IGNORE_RUN_CONFIG": "1"})
    late = decisions(config)
    refused = []
    for arguments in ARGUMENTS:
        _with_env({})
        try:
            made = TelemetryConfig(**arguments)
        except Exception as exc:
            errors = [
                {"type": e["type"], "loc": list(e["loc"])}
                for e in exc.errors()  # type: ignore[attr-defined]
            ]
            refused.append({"arguments": arguments, "error": type(exc).__name__, "errors": errors})
        else:
            features = made.experimental_features_opt_in
            refused.append(
                {
                    "arguments": arguments,
                    "error": None,
                    "features": sorted(features) if features is not None else None,
                }
            )
    _with_env({})
    out = HERE / "recorded" / "telemetry_config.json"
    data = {"resolved": resolved, "construction_time": late, "refused": refused}
    out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    print(out, len(resolved), "pairings")


if __name__ == "__main__":
    main()

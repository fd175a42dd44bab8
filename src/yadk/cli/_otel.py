"""``--otel`` (and ``OTEL_EXPORTER_OTLP_ENDPOINT``): OTLP/HTTP export of the command's spans.

Checked without importing OpenTelemetry, so a command without it never loads it."""

from __future__ import annotations

import argparse
import os

from yadk.cli._common import EXIT_FAILURE, CommandError
from yadk.errors import TracingSetupError

__all__ = ["otel_wanted", "start_otel"]

_ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def otel_wanted(flag: bool) -> bool:
    """Whether to export: ``--otel`` or an OTLP endpoint in the environment, unless
    ``YADK_TRACING=0``."""
    if os.environ.get("YADK_TRACING", "").strip().lower() in ("0", "false", "off", "no"):
        return False
    return flag or any(os.environ.get(name) for name in _ENDPOINT_VARS)


def start_otel(args: argparse.Namespace | bool) -> None:
    """Set up OTLP/HTTP export when the command asks for it (call after ``.env`` files are
    read, so an endpoint they set counts)."""
    flag = args if isinstance(args, bool) else bool(getattr(args, "otel", False))
    if not otel_wanted(flag):
        return
    from yadk.telemetry import configure_otlp

    try:
        configured = configure_otlp()
    except TracingSetupError as exc:
        raise CommandError(exc.message, exit_code=EXIT_FAILURE) from None
    if not configured:
        raise CommandError(
            "--otel: the application set a tracer provider that is not OpenTelemetry's SDK,"
            " so yadk cannot add an exporter to it; configure export on that provider",
            exit_code=EXIT_FAILURE,
        )

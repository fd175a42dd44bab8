"""``yadk db upgrade``: apply the session database's schema migrations."""

from __future__ import annotations

import argparse

from yadk._secrets import mask_url
from yadk.cli._common import EXIT_OK, CommandError
from yadk.errors import YadkError
from yadk.sessions import upgrade_schema

__all__ = ["execute"]


def execute(args: argparse.Namespace) -> int:
    try:
        before, after = upgrade_schema(args.db)
    except YadkError as exc:
        raise CommandError(f"--db {args.db}: {exc.message}") from None
    shown = mask_url(args.db)  # a PostgreSQL URL may carry a password
    if before == after:
        print(f"{shown}: schema version {after}, already current")
    else:
        print(f"{shown}: schema version {before} -> {after}")
    return EXIT_OK

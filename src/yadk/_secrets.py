"""Secrets kept out of what yadk prints: the one masking helper every message that may hold a URL
goes through (CLI errors and notes, config diagnostics, store descriptions).

A URL's password (``postgresql://user:PASS@host/db``), the values of query parameters whose
names look secret (``?api_key=...``, ``token``, ``sig``, ...) or whose values do (``sk-...``, long
random-looking strings), and the value of any environment variable whose name looks secret
(``OPENAI_API_KEY``) wherever it appears, become ``***``; everything else is kept, so the message
still says which server it is about.
"""

from __future__ import annotations

import os
import re
from typing import Final

__all__ = ["MASK", "mask_secrets", "mask_url"]

MASK: Final = "***"

_URL: Final = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{1,31}://[^\s'\"<>`]+")
_USERINFO: Final = re.compile(r"^(?P<scheme>[^:/]+://)(?P<user>[^:@/?#]*):(?P<password>[^@/?#]*)@")
_SECRET_NAME: Final = re.compile(
    r"(?i)(key|token|secret|passw|pwd|auth|sig|credential|session|cookie|bearer|private)"
)
_SECRET_VALUE: Final = re.compile(
    r"^(?:sk-|sk_|pk_|rk_|ghp_|gho_|github_pat_|xox[abpr]-|AIza|ya29\.|eyJ)"
    r"|^(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9_\-.~+/=%]{20,}$"
)
_TRAILING: Final = ".,;:!?)]}"
# Words of an environment variable's name (split at `_`) that make its value a secret.
_SECRET_WORDS: Final = frozenset(
    {"KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "CREDENTIAL", "CREDENTIALS"}
)
_QUERY_PAIR: Final = re.compile(r"(?P<sep>[?&;])(?P<name>[^=&;#]+)=(?P<value>[^&;#]*)")


def mask_url(url: str) -> str:
    """``url`` with its password and secret-looking query values replaced by ``***``."""
    masked = _USERINFO.sub(
        lambda m: (
            f"{m.group('scheme')}{m.group('user')}:{MASK}@" if m.group("password") else m.group()
        ),
        url,
        count=1,
    )

    def query(match: re.Match[str]) -> str:
        name, value = match.group("name"), match.group("value")
        if not value or not (_SECRET_NAME.search(name) or _SECRET_VALUE.search(value)):
            return match.group()
        return f"{match.group('sep')}{name}={MASK}"

    head, mark, rest = masked.partition("?")
    if not mark:
        return masked
    return head + _QUERY_PAIR.sub(query, "?" + rest)


def mask_secrets(text: str) -> str:
    """``text`` with every URL in it masked (``mask_url``), and the values of the environment's
    secret-looking variables replaced wherever they appear."""
    for value in _secret_values():
        if value in text:
            text = text.replace(value, MASK)
    if "://" not in text:
        return text

    def url(match: re.Match[str]) -> str:
        found = match.group()
        core = found.rstrip(_TRAILING)
        return mask_url(core) + found[len(core) :]

    return _URL.sub(url, text)


def _secret_values() -> list[str]:
    """Values of environment variables named like secrets (API keys, tokens, passwords), longest
    first; short values and paths are skipped, as masking them would hide ordinary text."""
    found = {
        value
        for name, value in os.environ.items()
        if len(value) >= 8
        and not value.startswith(("/", "~", "."))
        and _SECRET_WORDS.intersection(name.upper().split("_"))
    }
    return sorted(found, key=len, reverse=True)

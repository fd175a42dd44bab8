"""Instruction templates: ``{var}``, ``{var?}``, ``{artifact.name}`` and the Jinja2 engine.

(First version: regex engine only; the templating issue completes this package.)
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from yadk.errors import TemplateKeyError, TemplateValueError

if TYPE_CHECKING:
    from yadk._contexts import ReadonlyContext

__all__ = ["InstructionProvider", "inject_session_state"]

InstructionProvider = Callable[["ReadonlyContext"], "str | Awaitable[str]"]

_PLACEHOLDER = re.compile(r"(?<![\$\{\\])\{+[^{}]*\}+")
_PREFIXES = ("app:", "user:", "temp:")


def _is_state_name(name: str) -> bool:
    prefix, sep, rest = name.partition(":")
    if not sep:
        return name.isidentifier()
    return prefix + ":" in _PREFIXES and rest.isidentifier()


async def inject_session_state(
    template: str, readonly_context: ReadonlyContext, use_jinja2: bool = False
) -> str:
    """Render ``template`` with the session state (and artifacts) of ``readonly_context``."""
    if "{" not in template:
        return template
    ic = readonly_context._invocation_context
    state = ic.session.state
    out: list[str] = []
    last = 0
    for match in _PLACEHOLDER.finditer(template):
        out.append(template[last : match.start()])
        last = match.end()
        raw = match.group()
        name = raw.lstrip("{").rstrip("}").strip()
        optional = name.endswith("?")
        if optional:
            name = name[:-1]
        if name.startswith("artifact."):
            filename = name[len("artifact.") :]
            if ic.artifact_service is None:
                raise TemplateValueError("Artifact service is not initialized.")
            part = await ic.artifact_service.load_artifact(
                app_name=ic.app_name, user_id=ic.user_id, session_id=ic.session.id,
                filename=filename,
            )
            if part is None:
                if optional:
                    out.append("")
                    continue
                raise TemplateKeyError(
                    f"Artifact '{filename}' not found in agent '{ic.agent.name}'."
                )
            out.append(part.text if part.text is not None else str(part))
        elif not _is_state_name(name):
            out.append(raw)
        elif name in state:
            value = state[name]
            out.append("" if value is None else str(value))
        elif optional:
            out.append("")
        else:
            raise TemplateKeyError(
                f"Context variable not found: `{name}` in agent '{ic.agent.name}'."
            )
    out.append(template[last:])
    return "".join(out)

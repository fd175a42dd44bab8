"""The scripted model file format (``model: scripted:turns.yaml``, ``ScriptedModel``), as rules.

``yadk validate`` (which must not import the engine's models) and ``ScriptedModel`` (from a file
or from Python dicts) both check a script with ``check_script`` / ``check_turn``, so the same
mistake gives the same message wherever it is found; the caller adds where it is (a file's line
and column, or a turn's number). Only ``parts:`` needs the content model (google-genai part
shapes), imported when a script has parts.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Final

__all__ = ["CALL_KEYS", "FORMAT_HINT", "TURN_KEYS", "ScriptProblem", "check_script", "check_turn"]

TURN_KEYS: Final = ("text", "function_calls", "parts", "when", "agent", "delay", "repeat")
CALL_KEYS: Final = ("name", "args")
FORMAT_HINT: Final = "See the scripted model format in docs/models.md."

KeyPath = tuple[Any, ...]


@dataclasses.dataclass(frozen=True)
class ScriptProblem:
    """A broken rule at ``at`` (a path of keys and list indexes from the top of the script)."""

    at: KeyPath
    rule: str
    message: str
    hint: str = FORMAT_HINT
    at_key: bool = False


def check_script(data: Any) -> list[ScriptProblem]:
    """Every problem of a whole script (the data of a scripted model file)."""
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        return [
            ScriptProblem(
                (),
                "scripted-invalid",
                "A scripted model file must be a mapping with a `turns:` list.",
                "For example `turns: [{text: Hello}]`. " + FORMAT_HINT,
            )
        ]
    problems = [
        _unknown((key,), key, ("turns",), "a scripted model file") for key in data if key != "turns"
    ]
    for index, turn in enumerate(data["turns"]):
        problems.extend(check_turn(turn, ("turns", index)))
    return problems


def check_turn(turn: Any, at: KeyPath = ()) -> list[ScriptProblem]:
    """Every problem of one turn at ``at``."""
    if not isinstance(turn, dict):
        return [
            ScriptProblem(
                at, "scripted-invalid", "A turn must be a mapping such as `{text: Hello}`."
            )
        ]
    problems: list[ScriptProblem] = []
    for key, value in turn.items():
        where = (*at, key)
        if key not in TURN_KEYS:
            problems.append(_unknown(where, key, TURN_KEYS, "a scripted turn"))
        elif key in ("text", "when", "agent"):
            if value is not None and not isinstance(value, str):
                problems.append(ScriptProblem(where, "wrong-type", f"`{key}` must be a string."))
            elif key == "when" and value is not None:
                problems.extend(_pattern(where, value))
        elif key == "repeat" and not isinstance(value, bool):
            problems.append(ScriptProblem(where, "wrong-type", "`repeat` must be true or false."))
        elif key == "delay" and (isinstance(value, bool) or not isinstance(value, int | float)):
            problems.append(
                ScriptProblem(where, "wrong-type", "`delay` must be a number of seconds.")
            )
        elif key == "function_calls":
            problems.extend(_calls(where, value))
        elif key == "parts":
            problems.extend(_parts(where, value))
    return problems


def _unknown(at: KeyPath, key: Any, known: tuple[str, ...], where: str) -> ScriptProblem:
    import difflib  # only a mistake needs a suggestion

    close = difflib.get_close_matches(str(key), list(known), n=1, cutoff=0.6)
    hint = f"Did you mean `{close[0]}`?" if close else f"Known keys: {', '.join(known)}."
    return ScriptProblem(at, "unknown-key", f"Unknown key `{key}` in {where}.", hint, at_key=True)


def _pattern(at: KeyPath, value: str) -> list[ScriptProblem]:
    try:
        re.compile(value)
    except re.error as exc:
        return [
            ScriptProblem(
                at, "scripted-invalid", f"`when` is not a valid regular expression: {exc}."
            )
        ]
    return []


def _calls(at: KeyPath, value: Any) -> list[ScriptProblem]:
    if not isinstance(value, list):
        return [
            ScriptProblem(at, "wrong-type", "`function_calls` must be a list of `{name, args}`.")
        ]
    problems: list[ScriptProblem] = []
    for index, call in enumerate(value):
        where = (*at, index)
        if not isinstance(call, dict):
            problems.append(
                ScriptProblem(
                    where, "wrong-type", "A function call must be a mapping `{name, args}`."
                )
            )
            continue
        for key in call:
            if key not in CALL_KEYS:
                problems.append(_unknown((*where, key), key, CALL_KEYS, "a scripted function call"))
        if not isinstance(call.get("name"), str):
            problems.append(
                ScriptProblem(where, "missing-field", "A function call needs a `name` (a string).")
            )
        args = call.get("args")
        if "args" in call and not (
            isinstance(args, dict) and all(isinstance(k, str) for k in args)
        ):
            problems.append(
                ScriptProblem(
                    (*where, "args"), "wrong-type", "`args` must be a mapping with string keys."
                )
            )
    return problems


def _parts(at: KeyPath, value: Any) -> list[ScriptProblem]:
    """``parts:`` as google-genai part mappings (e.g. ``executable_code``)."""
    if not isinstance(value, list):
        return [
            ScriptProblem(at, "wrong-type", "`parts` must be a list of parts such as `{text: Hi}`.")
        ]
    from pydantic import ValidationError  # the content model: only for a script with parts

    from yadk.types import Part

    problems: list[ScriptProblem] = []
    for index, part in enumerate(value):
        if isinstance(part, Part):
            continue
        try:
            Part.model_validate(part)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "the part"
            problems.append(
                ScriptProblem(
                    (*at, index),
                    "scripted-invalid",
                    f"Not a part: {where}: {first['msg']}.",
                    "A part is google-genai's shape, e.g. `{text: Hi}` or"
                    " `{executable_code: {code: print(1), language: PYTHON}}`.",
                )
            )
    return problems

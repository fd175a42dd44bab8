"""ScriptedModel: a real, offline model that plays a script of turns.

Each call takes the first unused turn whose ``when`` regex (if any) matches the latest user text
and whose ``agent`` (if any) names the calling agent; a turn with ``repeat: true`` is never used
up. A turn may answer with text, function calls,
or both, or with ``parts`` as written (google-genai part shapes, e.g. ``executable_code``), which
come after them. Every request is recorded in ``requests``; running out of turns raises ``ModelError``.
Asked to stream, it yields the text in word-aligned partial chunks before the whole turn.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from yadk import _yaml as bounded
from yadk._files import FileProblem, read_text
from yadk._script_format import ScriptProblem, check_script, check_turn
from yadk.errors import ModelError
from yadk.models._base import BaseLlm, LlmRequest, LlmResponse
from yadk.types import Content, FunctionCall, Part

__all__ = ["ScriptedModel", "ScriptedTurn"]


class _Call(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ScriptedTurn(BaseModel):
    """One scripted answer."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    function_calls: list[_Call] = Field(default_factory=list)
    parts: list[Part] = Field(default_factory=list)
    when: str | None = None
    agent: str | None = None
    delay: float = 0.0
    # A turn that answers every time it matches and is never used up (a catch-all at the end).
    repeat: bool = False

    @field_validator("when")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"'when' is not a valid regular expression: {exc}") from exc
        return value

    def matches(self, user_text: str, agent_name: str) -> bool:
        if self.agent is not None and self.agent != agent_name:
            return False
        return self.when is None or re.search(self.when, user_text) is not None

    def to_content(self) -> Content:
        parts: list[Part] = []
        if self.text is not None:
            parts.append(Part(text=self.text))
        parts.extend(
            Part(function_call=FunctionCall(name=c.name, args=dict(c.args)))
            for c in self.function_calls
        )
        parts.extend(p.model_copy(deep=True) for p in self.parts)
        return Content(role="model", parts=parts)


def latest_user_text(request: LlmRequest) -> str:
    """The text of the latest user message (tool results and instruction blocks skipped)."""
    for content in reversed(request.contents):
        if content.role != "user":
            continue
        texts = [p.text for p in content.parts if p.text is not None]
        if texts and not texts[0].startswith(_NOT_USER_SPEECH):
            return " ".join(texts)
    return ""


# User-role contents the framework writes, never the user's own words: the dynamic-instruction
# block, and another agent's turn relayed as context.
_NOT_USER_SPEECH = (
    "The text between <<<BEGIN_SYSTEM_INSTRUCTION>>>",
    "For context: below is a transcript of what another agent did",
)


class ScriptedModel(BaseLlm):
    """An offline model for demos and tests; see the module docstring for the rules."""

    provider_name = "yadk.scripted"

    def __init__(
        self, turns: list[dict[str, Any] | ScriptedTurn] | None = None, *, name: str = "scripted"
    ) -> None:
        self.turns = []
        problems: list[str] = []
        for index, turn in enumerate(turns or []):
            if not isinstance(turn, ScriptedTurn):
                found = check_turn(turn)
                if found:
                    problems.extend(f"turn {index + 1}: {_described(p)}" for p in found)
                    continue
            try:
                self.turns.append(ScriptedTurn.model_validate(turn))
            except ValidationError as exc:  # pragma: no cover - the rules above come first
                problems.append(f"turn {index + 1}: {_brief(exc)}")
        if problems:
            raise ModelError("Invalid scripted model turns: " + "; ".join(problems))
        self.model = name
        self.requests: list[LlmRequest] = []
        self._used = [False] * len(self.turns)
        self._first_unused = 0  # every turn before it is used: a take scans from here
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, name: str | None = None) -> ScriptedModel:
        """Load a script: a YAML (or JSON) mapping with a ``turns:`` list.

        ``name`` is the model name requests report (default ``scripted:<path>``).
        """
        file = Path(path)
        try:
            root = bounded.compose(read_text(file, kind="scripted"))
            data = None if root is None else bounded.build(root)
        except FileProblem as exc:
            if exc.rule == "file-not-found":
                raise ModelError(
                    f"Cannot read scripted model file {file}: No such file or directory"
                ) from None
            raise ModelError(exc.message) from None
        except bounded.YamlProblem as exc:
            raise ModelError(
                f"{file}:{exc.line}:{exc.column}: scripted model file is not valid YAML:"
                f" {exc.detail}"
            ) from None
        problems = check_script(data)
        if problems:
            located = []
            for problem in problems:
                line, column = (
                    (1, 1) if root is None else bounded.locate(root, problem.at, key=problem.at_key)
                )
                located.append(f"{file}:{line}:{column}: {_described(problem)}")
            raise ModelError("\n".join(located))
        assert isinstance(data, dict)  # check_script says so
        return cls(data["turns"], name=name or f"scripted:{file}")

    @property
    def remaining(self) -> int:
        return self._used.count(False)

    def reset(self) -> None:
        self._used = [False] * len(self.turns)
        self._first_unused = 0
        self.requests.clear()

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        self.requests.append(llm_request)
        user_text = latest_user_text(llm_request)
        turn = self._take(user_text, llm_request.agent_name)
        if turn.delay:
            await asyncio.sleep(turn.delay)
        if stream and turn.text:
            # Stream the text in a few word-aligned chunks, then the whole turn, as streaming
            # backends do.
            for piece in _chunks(turn.text):
                yield LlmResponse(
                    content=Content(role="model", parts=[Part(text=piece)]), partial=True
                )
        yield LlmResponse(content=turn.to_content())

    def _take(self, user_text: str, agent_name: str) -> ScriptedTurn:
        with self._lock:
            taken = self._used
            for index in range(self._first_unused, len(self.turns)):
                turn = self.turns[index]
                if not taken[index] and turn.matches(user_text, agent_name):
                    if turn.repeat:
                        return turn
                    taken[index] = True
                    while self._first_unused < len(taken) and taken[self._first_unused]:
                        self._first_unused += 1
                    return turn
        used = len(self.turns) - self.remaining
        raise ModelError(
            f"{self.model}: script exhausted: {used} of {len(self.turns)} turns used and none of"
            f" the rest matches agent {agent_name!r} and the user message {user_text[:80]!r}."
            " Add a turn to the script (or check its 'when:'/'agent:' filters)."
        )


def _chunks(text: str, size: int = 24) -> list[str]:
    """``text`` cut after spaces into pieces of about ``size`` characters."""
    pieces: list[str] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        space = text.rfind(" ", start, end + 1) if end < len(text) else -1
        if space > start:
            end = space + 1
        pieces.append(text[start:end])
        start = end
    return pieces


def _described(problem: ScriptProblem) -> str:
    return f"{problem.message} {problem.hint}"


def _brief(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'turn'}: "
        f"{err['msg'].removeprefix('Value error, ')}"
        for err in exc.errors()
    )

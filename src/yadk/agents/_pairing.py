"""Function calls and their responses, kept together as providers require, and yadk's own call
ids removed before contents reach a model.

The rules (google-adk 2.13's): a response with no earlier matching call is dropped; a tool result
posted back after other turns is moved next to its call (the turns in between are dropped,
but for their answers to other calls of that turn, merged before it); a
call with an id that was never answered (a cancelled branch, an interrupted turn) is dropped.

``Pairing`` applies them as contents are added, so a model call pays for what is new, not for the
history: responses are checked against the calls seen so far as they arrive, each content is
stripped of yadk's ids once, and the contents still holding unanswered calls are remembered by
position. Building a request then copies the list and trims those few contents; only a result
posted back far from its call (which drops the turns in between, and with them their responses)
pairs the whole history again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from yadk.types import Content, FunctionResponse, Part

__all__ = ["CLIENT_CALL_ID_PREFIX", "Pairing"]

# Function-call ids yadk generates; they are removed before contents reach a model.
CLIENT_CALL_ID_PREFIX = "adk-"


class Pairing:
    """The paired contents of a history that only grows: ``add`` new contents in order;
    ``contents()`` returns what the model receives (a new list each time)."""

    def __init__(self) -> None:
        self.count = 0  # contents added
        # The contents without the responses nobody asked for, and the same stripped of
        # yadk's call ids (what is sent).
        self.asked: list[Content] = []
        self.sent: list[Content] = []
        self._call_ids: set[str] = set()
        self._idless_call_names: set[str] = set()
        self._response_ids: set[str] = set()
        # Position in ``asked`` -> ids of its calls not answered yet; id -> those positions.
        self._unanswered: dict[int, set[str]] = {}
        self._waiting: dict[str, list[int]] = {}

    def add(self, contents: Iterable[Content]) -> None:
        for content in contents:
            self.count += 1
            self._add(content)

    def _add(self, content: Content) -> None:
        kept = [
            p
            for p in content.parts
            if p.function_response is None
            or (
                p.function_response.id in self._call_ids
                if p.function_response.id
                else p.function_response.name in self._idless_call_names
            )
        ]
        for part in content.parts:
            if part.function_call is not None:
                if part.function_call.id:
                    self._call_ids.add(part.function_call.id)
                else:
                    self._idless_call_names.add(part.function_call.name)
        if not kept:
            return
        if len(kept) != len(content.parts):
            content = _with_parts(content, kept)
        index = len(self.asked)
        self.asked.append(content)
        self.sent.append(strip_client_ids(content))
        for part in kept:
            response = part.function_response
            if response is not None and response.id and response.id not in self._response_ids:
                self._response_ids.add(response.id)
                for waiting in self._waiting.pop(response.id, ()):
                    ids = self._unanswered[waiting]
                    ids.discard(response.id)
                    if not ids:
                        del self._unanswered[waiting]
        for part in kept:
            call = part.function_call
            if call is not None and call.id and call.id not in self._response_ids:
                self._unanswered.setdefault(index, set()).add(call.id)
                positions = self._waiting.setdefault(call.id, [])
                if not positions or positions[-1] != index:
                    positions.append(index)

    def contents(self) -> list[Content]:
        """The contents to send: every call next to its response, yadk's ids removed."""
        cut = _late_result_call(self.asked)
        if cut is not None:  # the turns between a late result and its call are dropped
            joined = [*self.asked[: cut + 1], _merged_responses(self.asked, cut)]
            return [strip_client_ids(c) for c in _drop_unanswered_calls(joined)]
        result = list(self.sent)
        for index in sorted(self._unanswered, reverse=True):
            ids = self._unanswered[index]
            content = self.asked[index]
            kept = [
                p for p in content.parts if p.function_call is None or p.function_call.id not in ids
            ]
            if kept:
                result[index] = strip_client_ids(_with_parts(content, kept))
            else:
                del result[index]
        return result


def _late_result_call(contents: list[Content]) -> int | None:
    """Where the call answered by the last content is, when that is not the content just before
    it (the turns in between are then dropped, as google-adk does); None otherwise."""
    if len(contents) < 3:
        return None
    answered = [p.function_response for p in contents[-1].parts if p.function_response]
    if not answered:
        return None
    for index in range(len(contents) - 2, -1, -1):
        if _answers(contents[index], answered):
            return None if index == len(contents) - 2 else index
    return None


def _merged_responses(contents: list[Content], cut: int) -> Content:
    """The last content, after the responses in between that answer the calls at ``cut`` (an
    earlier answer to another call of that turn is kept, merged in, as google-adk merges it)."""
    last = contents[-1]
    answered = {p.function_response.id for p in last.parts if p.function_response is not None}
    earlier = [
        p
        for c in contents[cut + 1 : -1]
        for p in c.parts
        if p.function_response is not None
        and p.function_response.id not in answered  # an interim answer the last replaces
        and _answers(contents[cut], [p.function_response])
    ]
    return _with_parts(last, [*earlier, *last.parts]) if earlier else last


def _answers(content: Content, answered: list[FunctionResponse]) -> bool:
    calls = [p.function_call for p in content.parts if p.function_call]
    return any(
        (r.id and c.id == r.id) or (not r.id and not c.id and c.name == r.name)
        for c in calls
        for r in answered
    )


def _drop_unanswered_calls(contents: list[Content]) -> list[Content]:
    response_ids = {
        p.function_response.id
        for c in contents
        for p in c.parts
        if p.function_response is not None and p.function_response.id
    }
    result: list[Content] = []
    for content in contents:
        kept = [
            p
            for p in content.parts
            if p.function_call is None
            or not p.function_call.id
            or p.function_call.id in response_ids
        ]
        if kept:
            result.append(
                content if len(kept) == len(content.parts) else _with_parts(content, kept)
            )
    return result


def _with_parts(content: Content, parts: Iterable[Part]) -> Content:
    return Content(role=content.role, parts=list(parts))


def strip_client_ids(content: Content) -> Content:
    """``content`` without yadk's own call ids (the same object when it has none)."""
    if not any(_client_id(p) for p in content.parts):
        return content
    parts = []
    for part in content.parts:
        if part.function_call and _is_client_id(part.function_call.id):
            part = part.model_copy(
                update={"function_call": part.function_call.model_copy(update={"id": None})}
            )
        elif part.function_response and _is_client_id(part.function_response.id):
            part = part.model_copy(
                update={"function_response": part.function_response.model_copy(update={"id": None})}
            )
        parts.append(part)
    return Content(role=content.role, parts=parts)


def _client_id(part: Part) -> bool:
    return bool(
        (part.function_call is not None and _is_client_id(part.function_call.id))
        or (part.function_response is not None and _is_client_id(part.function_response.id))
    )


def _is_client_id(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(CLIENT_CALL_ID_PREFIX)

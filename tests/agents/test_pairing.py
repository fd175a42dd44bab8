"""Incremental call/response pairing gives, after every added content, exactly what the batch
rules give for the whole history (written out below as the specification)."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from yadk.agents._pairing import Pairing, strip_client_ids
from yadk.types import Content, FunctionCall, FunctionResponse, Part


def _with_parts(content: Content, parts: Iterable[Part]) -> Content:
    return Content(role=content.role, parts=list(parts))


def spec_pair_calls(contents: list[Content]) -> list[Content]:
    """google-adk's rules over the whole history: drop responses nobody asked for, move a late
    result next to its call (with the answers in between to that turn's other calls merged
    before it), drop calls never answered, remove yadk's ids."""
    asked: list[Content] = []
    ids: set[str] = set()
    names: set[str] = set()
    for content in contents:
        kept = [
            p
            for p in content.parts
            if p.function_response is None
            or (
                p.function_response.id in ids
                if p.function_response.id
                else p.function_response.name in names
            )
        ]
        if kept:
            asked.append(content if len(kept) == len(content.parts) else _with_parts(content, kept))
        for p in content.parts:
            if p.function_call is not None:
                if p.function_call.id:
                    ids.add(p.function_call.id)
                else:
                    names.add(p.function_call.name)
    if len(asked) >= 3:
        answered = [p.function_response for p in asked[-1].parts if p.function_response]
        for index in range(len(asked) - 2, -1, -1) if answered else ():
            calls = [p.function_call for p in asked[index].parts if p.function_call]
            if any(
                (r.id and c.id == r.id) or (not r.id and not c.id and c.name == r.name)
                for c in calls
                for r in answered
            ):
                if index != len(asked) - 2:
                    # answers in between to the turn's other calls are merged before it
                    last_ids = {r.id for r in answered}
                    earlier = [
                        p
                        for c in asked[index + 1 : -1]
                        for p in c.parts
                        if p.function_response is not None
                        and p.function_response.id not in last_ids
                        and any(
                            (p.function_response.id and c2.id == p.function_response.id)
                            or (
                                not p.function_response.id
                                and not c2.id
                                and c2.name == p.function_response.name
                            )
                            for c2 in calls
                        )
                    ]
                    last = asked[-1]
                    if earlier:
                        last = _with_parts(last, [*earlier, *last.parts])
                    asked = [*asked[: index + 1], last]
                break
    responses = {
        p.function_response.id
        for c in asked
        for p in c.parts
        if p.function_response is not None and p.function_response.id
    }
    paired = []
    for content in asked:
        kept = [
            p
            for p in content.parts
            if p.function_call is None or not p.function_call.id or p.function_call.id in responses
        ]
        if kept:
            paired.append(
                content if len(kept) == len(content.parts) else _with_parts(content, kept)
            )
    return [strip_client_ids(c) for c in paired]


def _random_history(rng: random.Random, length: int) -> list[Content]:
    ids = ["adk-1", "adk-2", "c3", "c4", None]
    names = ["lookup", "search"]
    history = []
    for _ in range(length):
        parts = []
        for _ in range(rng.randint(1, 3)):
            kind = rng.random()
            if kind < 0.3:
                parts.append(Part(text=rng.choice(["hi", "ok", "done"])))
            elif kind < 0.65:
                parts.append(
                    Part(function_call=FunctionCall(id=rng.choice(ids), name=rng.choice(names)))
                )
            else:
                parts.append(
                    Part(
                        function_response=FunctionResponse(
                            id=rng.choice(ids), name=rng.choice(names), response={"r": 1}
                        )
                    )
                )
        history.append(Content(role=rng.choice(["user", "model"]), parts=parts))
    return history


def _dump(contents: list[Content]) -> list[dict[str, object]]:
    return [c.model_dump(mode="json", exclude_none=True) for c in contents]


@pytest.mark.parametrize("seed", range(200))
def test_incremental_pairing_matches_the_rules_after_every_content(seed: int) -> None:
    rng = random.Random(seed)
    history = _random_history(rng, rng.randint(1, 14))
    pairing = Pairing()
    for count in range(1, len(history) + 1):
        pairing.add(history[pairing.count : count])
        assert _dump(pairing.contents()) == _dump(spec_pair_calls(history[:count]))


def test_the_contents_are_a_new_list_and_shared_contents_are_not_rebuilt() -> None:
    call = Content(role="model", parts=[Part(function_call=FunctionCall(id="c1", name="f"))])
    answer = Content(
        role="user", parts=[Part(function_response=FunctionResponse(id="c1", name="f"))]
    )
    pairing = Pairing()
    pairing.add([Content(role="user", parts=[Part(text="hi")]), call])
    assert len(pairing.contents()) == 1  # the call is unanswered so far
    pairing.add([answer])
    first, second = pairing.contents(), pairing.contents()
    assert first == second and first is not second
    assert first[1] is call and first[2] is answer  # nothing to strip: sent as they are

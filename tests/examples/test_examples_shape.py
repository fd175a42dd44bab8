"""plainly_valid / check_examples: yadk validate's pydantic-free check of example data.

``plainly_valid`` may say "not sure" (``False``) about valid data, never "valid" about data the
``Example`` model rejects; ``check_examples`` raises exactly what ``coerce_examples`` raises.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yadk.examples._example import ExampleValidationError, coerce_examples
from yadk.examples._shape import check_examples, plainly_valid

USER = {"role": "user", "parts": [{"text": "Hi, I'm Sam."}]}
CALL = {"role": "model", "parts": [{"function_call": {"name": "remember", "args": {"n": "Sam"}}}]}
REPLY = {"role": "model", "parts": ["Nice to meet you", {"text": "Sam", "thought": False}]}
ANSWER = {"function_response": {"id": None, "name": "remember", "response": {"ok": True}}}

PLAIN: list[tuple[str, Any]] = [
    ("the scaffold's examples", [{"input": USER, "output": [CALL, REPLY]}]),
    ("no examples", []),
    ("None values are dropped", [{"input": {"role": None, "parts": None}, "output": []}]),
    ("a function response", [{"input": USER, "output": [{"parts": [ANSWER]}]}]),
    ("an empty part", [{"input": {"parts": [{}]}, "output": []}]),
]

NOT_SURE: list[tuple[str, Any]] = [
    ("camelCase keys", [{"input": {"parts": [{"functionCall": {"name": "f"}}]}, "output": []}]),
    ("a tuple", ({"input": USER, "output": []},)),
    ("a missing output", [{"input": USER}]),
    ("an unknown key", [{"input": USER, "outputs": []}]),
    ("a call without a name", [{"input": {"parts": [{"function_call": {}}]}, "output": []}]),
    ("a number as text", [{"input": {"parts": [{"text": 3}]}, "output": []}]),
    (
        "a non-string args key",
        [
            {
                "input": USER,
                "output": [{"parts": [{"function_call": {"name": "f", "args": {1: "x"}}}]}],
            }
        ],
    ),
    ("inline data", [{"input": {"parts": [{"inline_data": {"data": "aGk="}}]}, "output": []}]),
    ("a string thought", [{"input": {"parts": [{"text": "x", "thought": "yes"}]}, "output": []}]),
]


@pytest.mark.parametrize(("data"), [d for _, d in PLAIN], ids=[i for i, _ in PLAIN])
def test_plain_data_is_recognised_and_valid(data: Any) -> None:
    assert plainly_valid(data)
    assert len(coerce_examples(data)) == len(data)


@pytest.mark.parametrize(("data"), [d for _, d in NOT_SURE], ids=[i for i, _ in NOT_SURE])
def test_other_shapes_go_through_the_model(data: Any) -> None:
    assert not plainly_valid(data)


def test_check_examples_raises_the_models_message() -> None:
    data = [{"input": USER, "outputs": []}]
    with pytest.raises(ExampleValidationError) as expected:
        coerce_examples(data)
    with pytest.raises(ExampleValidationError) as got:
        check_examples(data)
    assert str(got.value) == str(expected.value)
    assert (got.value.index, got.value.loc) == (0, ("outputs",))


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1, 1),
    st.lists(st.sampled_from(["", "a"]), max_size=2),
    st.dictionaries(st.sampled_from(["a", 1]), st.none(), max_size=2),
)
TEXT = st.sampled_from(["", "hi"])


def _either(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right shape, one time in eight anything (None is dropped by the model)."""
    return st.integers(0, 7).flatmap(lambda roll: JUNK if roll == 0 else good)


def _call(payload: str) -> st.SearchStrategy[Any]:
    fields = {"name": _either(TEXT), "id": _either(TEXT), payload: _either(st.just({"k": 1}))}
    return st.fixed_dictionaries({}, optional=fields)


PART = st.one_of(
    TEXT,
    st.fixed_dictionaries(
        {},
        optional={
            "text": _either(TEXT),
            "thought": _either(st.booleans()),
            "function_call": _either(_call("args")),
            "function_response": _either(_call("response")),
            "functionCall": _call("args"),
        },
    ),
)
CONTENT = st.fixed_dictionaries(
    {}, optional={"role": _either(TEXT), "parts": _either(st.lists(PART, max_size=3))}
)
EXAMPLE = st.one_of(
    st.fixed_dictionaries(
        {"input": _either(CONTENT), "output": _either(st.lists(CONTENT, max_size=3))}
    ),
    st.fixed_dictionaries(
        {}, optional={"input": CONTENT, "output": st.lists(CONTENT), "outputs": JUNK}
    ),
)


@settings(
    max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(data=st.lists(EXAMPLE, max_size=2))
@pytest.mark.slow
def test_check_examples_agrees_with_the_model(data: list[Any]) -> None:
    try:
        coerce_examples(data)
        expected = None
    except ExampleValidationError as exc:
        expected = str(exc)
    if plainly_valid(data):
        assert expected is None
    try:
        check_examples(data)
        got = None
    except ExampleValidationError as exc:
        got = str(exc)
    assert got == expected

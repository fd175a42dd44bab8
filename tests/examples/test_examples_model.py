"""Example, BaseExampleProvider and validation of example data."""

from __future__ import annotations

from typing import Any

import pytest

import yadk.examples
from yadk.errors import ExampleError
from yadk.examples import BaseExampleProvider, Example
from yadk.examples._example import ExampleValidationError, coerce_examples, example_input_text
from yadk.types import FunctionCall, ModelContent, Part, UserContent

GOOD = {
    "input": {"role": "user", "parts": [{"text": "Is 7 a prime number?"}]},
    "output": [{"role": "model", "parts": [{"text": "Yes, 7 is a prime number."}]}],
}


def test_public_api_is_sorted_and_complete() -> None:
    assert yadk.examples.__all__ == sorted(yadk.examples.__all__)
    for name in (
        "Example",
        "BaseExampleProvider",
        "convert_examples_to_text",
        "LexicalExampleStore",
    ):
        assert name in yadk.examples.__all__


def test_dict_shorthand_converts_to_examples() -> None:
    [example] = coerce_examples([GOOD])
    assert example == Example(
        input=UserContent("Is 7 a prime number?"),
        output=[ModelContent("Yes, 7 is a prime number.")],
    )


def test_camel_case_and_objects_are_accepted() -> None:
    data = {
        "input": UserContent("Where is 4417?"),
        "output": [
            {"role": "model", "parts": [{"functionCall": {"name": "check", "args": {"id": 1}}}]}
        ],
    }
    [example] = coerce_examples([data])
    assert example.output[0].parts[0] == Part(
        function_call=FunctionCall(name="check", args={"id": 1})
    )


def test_examples_pass_through_unchanged() -> None:
    example = Example(input=UserContent("a"), output=[])
    assert coerce_examples([example])[0] is example


@pytest.mark.parametrize(
    ("items", "message", "index", "loc"),
    [
        (
            "not a list",
            (
                "examples must be a list of examples, got the string 'not a list'. Each example is a "
                "mapping with 'input' (a Content) and 'output' (a list of Content)."
            ),
            None,
            (),
        ),
        (
            [GOOD, 3],
            "example 1: expected a mapping with 'input' and 'output', got int.",
            1,
            (),
        ),
        (
            [{"input": GOOD["input"]}],
            "example 0: output: field required",
            0,
            ("output",),
        ),
        (
            [{**GOOD, "outputs": []}],
            (
                "example 0: outputs: unknown field 'outputs' (an example has only 'input' and "
                "'output'; did you mean 'output'?)"
            ),
            0,
            ("outputs",),
        ),
        (
            [GOOD, {"input": {"role": "user", "parts": [{"txt": "hi"}]}, "output": []}],
            "example 1: input.parts[0].txt: unknown field 'txt'",
            1,
            ("input", "parts", 0, "txt"),
        ),
        (
            [{"input": 3, "output": []}],
            "example 0: input: expected a Content mapping such as {role: user, parts: [{text: ...}]}",
            0,
            ("input",),
        ),
        (
            [{"input": GOOD["input"], "output": {"role": "model"}}],
            (
                "example 0: output: expected a list of Content mappings such as "
                "[{role: user, parts: [{text: ...}]}]"
            ),
            0,
            ("output",),
        ),
        (
            [
                {
                    "input": GOOD["input"],
                    "output": [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}],
                }
            ],
            "example 0: output[0].parts[0].function_call.name: field required",
            0,
            ("output", 0, "parts", 0, "function_call", "name"),
        ),
        (
            [{"input": {"role": "user", "parts": [{"text": 5}]}, "output": []}],
            "example 0: input.parts[0].text: Input should be a valid string",
            0,
            ("input", "parts", 0, "text"),
        ),
        (
            [{}],
            "example 0: input: field required (and 1 more problem)",
            0,
            ("input",),
        ),
    ],
)
def test_validation_errors_name_example_and_field(
    items: Any, message: str, index: int | None, loc: tuple[Any, ...]
) -> None:
    with pytest.raises(ExampleValidationError) as info:
        coerce_examples(items)
    assert info.value.message == message
    assert (info.value.index, info.value.loc) == (index, loc)
    assert isinstance(info.value, ExampleError) and isinstance(info.value, ValueError)


def test_source_prefixes_the_message() -> None:
    with pytest.raises(ExampleValidationError, match=r"^agent\.yaml: example 0: output: field"):
        coerce_examples([{"input": GOOD["input"]}], source="agent.yaml")


def test_example_input_text() -> None:
    example = Example(
        input=UserContent(
            [
                Part(text="a"),
                Part(text=""),
                Part.from_bytes(data=b"x", mime_type="image/png"),
                Part(text="b"),
            ]
        ),
        output=[],
    )
    assert example_input_text(example) == "a b"
    assert example_input_text(example, sep="\n") == "a\nb"


def test_provider_is_abstract() -> None:
    with pytest.raises(TypeError):
        BaseExampleProvider()  # type: ignore[abstract]

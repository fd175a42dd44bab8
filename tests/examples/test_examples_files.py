"""load_examples_file: YAML, JSON and JSONL files, with errors naming file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from yadk.examples import Example
from yadk.examples._example import ExampleValidationError
from yadk.examples._files import load_examples_file, yaml_node_line
from yadk.types import FunctionCall, ModelContent, Part, UserContent

YAML_EXAMPLES = """\
# few-shot examples for the support agent
- input: {role: user, parts: [{text: 'Where is order 4417?'}]}
  output:
    - role: model
      parts:
        - function_call: {name: check_order_status, args: {order_id: "4417"}}
    - role: model
      parts: [{text: Order 4417 shipped on Tuesday.}]
- input: {role: user, parts: [{text: I want a refund.}]}
  output: [{role: model, parts: [{text: 'Which order is that for?'}]}]
"""

EXPECTED = [
    Example(
        input=UserContent("Where is order 4417?"),
        output=[
            ModelContent(
                Part(
                    function_call=FunctionCall(name="check_order_status", args={"order_id": "4417"})
                )
            ),
            ModelContent("Order 4417 shipped on Tuesday."),
        ],
    ),
    Example(
        input=UserContent("I want a refund."),
        output=[ModelContent("Which order is that for?")],
    ),
]


def _jsonl(examples: list[Example]) -> str:
    return "\n".join(json.dumps(e.model_dump(mode="json", exclude_none=True)) for e in examples)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("examples.yaml", YAML_EXAMPLES),
        (
            "examples.yml",
            "examples:\n" + "".join("  " + line + "\n" for line in YAML_EXAMPLES.splitlines()),
        ),
        ("examples.jsonl", _jsonl(EXPECTED) + "\n\n"),
        ("examples.json", json.dumps([e.model_dump(mode="json") for e in EXPECTED], indent=2)),
    ],
)
def test_loads_every_format(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert load_examples_file(path) == EXPECTED


def test_empty_yaml_file_has_no_examples(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text("# nothing yet\n", encoding="utf-8")
    assert load_examples_file(path) == []


BAD_YAML_FIELD = """\
- input: {role: user, parts: [{text: hi}]}
  output: [{role: model, parts: [{text: hello}]}]
- input: {role: user, parts: [{text: bye}]}
  output:
    - role: model
      parts:
        - function_call: {args: {x: 1}}
"""

BAD_YAML_UNKNOWN_KEY = """\
- input: {role: user, parts: [{text: hi}]}
  outputs: []
"""


@pytest.mark.parametrize(
    ("name", "text", "message", "line"),
    [
        (
            "e.yaml",
            BAD_YAML_FIELD,
            "{path}:7: example 1: output[0].parts[0].function_call.name: field required",
            7,
        ),
        (
            "e.yaml",
            BAD_YAML_UNKNOWN_KEY,
            (
                "{path}:2: example 0: outputs: unknown field 'outputs' (an example has only 'input' "
                "and 'output'; did you mean 'output'?) (and 1 more problem)"
            ),
            2,
        ),
        (
            "e.yaml",
            "- input: {role: user, parts: [{text: hi}]\n  output: []\n",
            "{path}:2:3: invalid YAML: expected ',' or '}', but got '<scalar>'",
            2,
        ),
        (
            "e.yaml",
            "input: {role: user}\n",
            (
                "{path}:1: expected a list of examples (or a mapping with an 'examples:' list), "
                "got dict."
            ),
            1,
        ),
        (
            "e.yaml",
            "examples:\n  - input: {role: user, parts: [{text: hi}]}\n",
            "{path}:2: example 0: output: field required",
            2,
        ),
        (
            "e.jsonl",
            '{"input": {"role": "user", "parts": [{"text": "a"}]}, "output": []}\n\n{"input": 1,',
            "{path}:3:13: invalid JSON: Expecting property name enclosed in double quotes",
            3,
        ),
        (
            "e.jsonl",
            (
                '{"input": {"role": "user", "parts": [{"text": "a"}]}, "output": []}\n\n'
                '{"input": {"role": "user", "parts": [{"text": "b"}]}}\n'
            ),
            "{path}:3: example 1: output: field required",
            3,
        ),
        (
            "e.json",
            '[\n  {"input": {"role": "user", "parts": [{"text": "a"}]},\n   "output": "x"}\n]\n',
            (
                "{path}:3: example 0: output: expected a list of Content mappings such as "
                "[{role: user, parts: [{text: ...}]}]"
            ),
            3,
        ),
        (
            "e.json",
            '[\n  {"input": 1\n',
            "{path}:3:1: invalid JSON: Expecting ',' delimiter",
            3,
        ),
    ],
)
def test_errors_name_file_and_line(
    tmp_path: Path, name: str, text: str, message: str, line: int
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ExampleValidationError) as info:
        load_examples_file(path)
    assert info.value.message == message.replace("{path}", str(path))
    assert (info.value.path, info.value.line) == (str(path), line)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("missing.yaml", "{path}: examples file not found."),
        (
            "examples.txt",
            "{path}: cannot load examples from a .txt file; use .yaml, .yml, .json or .jsonl.",
        ),
    ],
)
def test_missing_or_unsupported_file(tmp_path: Path, name: str, message: str) -> None:
    path = tmp_path / name
    if name.endswith(".txt"):
        path.write_text("hi", encoding="utf-8")
    with pytest.raises(ExampleValidationError) as info:
        load_examples_file(path)
    assert info.value.message == message.replace("{path}", str(path))


def test_yaml_node_line_points_into_an_inline_list() -> None:
    config = yaml.compose(
        "name: a\nexamples:\n  - input: {role: user, parts: [{text: hi}]}\n"
        "    output:\n      - role: model\n        parts: [{txt: x}]\n",
        Loader=yaml.SafeLoader,
    )
    examples_node = next(v for k, v in config.value if k.value == "examples")
    assert yaml_node_line(examples_node, (0, "output", 0, "parts", 0, "txt")) == (6, 23)
    assert yaml_node_line(examples_node, (0, "output", 0, "missing")) == (5, 9)
    assert yaml_node_line(None, (0,)) == (None, None)

"""convert_examples_to_text: byte-for-byte google-adk 2.13 output (observed with probes), except
that function responses render without empty fields."""

from __future__ import annotations

from typing import Any

import pytest

from yadk.examples import Example, convert_examples_to_text
from yadk.examples._example import coerce_examples
from yadk.examples._render import is_gemini_model
from yadk.types import Content, FunctionResponse, Part

HEAD = (
    "<EXAMPLES>\nBegin few-shot\nThe following are examples of user queries and model responses"
    " using the available tools.\n\n"
)
TAIL = "End few-shot\n<EXAMPLES>"


def U(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts)}


def M(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


def T(text: str) -> dict[str, Any]:
    return {"text": text}


def FC(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"function_call": {"name": name, "args": args}}


def FR(name: str, response: dict[str, Any]) -> dict[str, Any]:
    return {"function_response": {"name": name, "response": response}}


def test_seed_block_exactly() -> None:
    examples = coerce_examples(
        [
            {
                "input": U(T("Where is order 4417?")),
                "output": [
                    M(FC("check_order_status", {"order_id": "4417"})),
                    M(T("Order 4417 shipped on Tuesday and arrives Friday.")),
                ],
            }
        ]
    )
    assert convert_examples_to_text(examples, "gemini-2.5-flash") == (
        "<EXAMPLES>\n"
        "Begin few-shot\n"
        "The following are examples of user queries and model responses using the available"
        " tools.\n"
        "\n"
        "EXAMPLE 1:\n"
        "Begin example\n"
        "[user]\n"
        "Where is order 4417?\n"
        "[model]\n"
        "```\n"
        "check_order_status(order_id='4417')\n"
        "```\n"
        "Order 4417 shipped on Tuesday and arrives Friday.\n"
        "End example\n"
        "\n"
        "End few-shot\n"
        "<EXAMPLES>"
    )


CASES: list[tuple[str, list[dict[str, Any]], str]] = [
    (
        "text",
        [{"input": U(T("Is 7 a prime number?")), "output": [M(T("Yes, 7 is a prime number."))]}],
        (
            "EXAMPLE 1:\nBegin example\n[user]\nIs 7 a prime number?\n[model]\n"
            "Yes, 7 is a prime number.\nEnd example\n\n"
        ),
    ),
    (
        "multi_part",
        [{"input": U(T("first"), T("second")), "output": [M(T("one"), T("two"))]}],
        "EXAMPLE 1:\nBegin example\n[user]\nfirst\nsecond\n[model]\none\ntwo\nEnd example\n\n",
    ),
    (
        "empty_text_parts_skipped",
        [{"input": U(T(""), T("q"), T("")), "output": [M(T(""), T("a"))]}],
        "EXAMPLE 1:\nBegin example\n[user]\nq\n[model]\na\nEnd example\n\n",
    ),
    (
        "role_changes",
        [{"input": U(T("q")), "output": [M(T("m1")), U(T("u1")), M(T("m2"))]}],
        (
            "EXAMPLE 1:\nBegin example\n[user]\nq\n[model]\nm1\n[user]\nu1\n[model]\nm2\n"
            "End example\n\n"
        ),
    ),
    (
        "clumping_same_role",
        [
            {
                "input": U(T("q")),
                "output": [M(T("m1")), M(T("m2")), U(T("u1")), U(T("u2")), M(T("m3"))],
            }
        ],
        (
            "EXAMPLE 1:\nBegin example\n[user]\nq\n[model]\nm1\nm2\n[user]\nu1\nu2\n[model]\nm3\n"
            "End example\n\n"
        ),
    ),
    (
        "missing_role_renders_as_user",
        [{"input": {"parts": [T("q")]}, "output": [{"parts": [T("no role")]}, M(T("m"))]}],
        "EXAMPLE 1:\nBegin example\n[user]\nq\n[user]\nno role\n[model]\nm\nEnd example\n\n",
    ),
    (
        "call_args_of_every_type",
        [
            {
                "input": U(T("Where is order 4417?")),
                "output": [
                    M(
                        FC(
                            "lookup",
                            {
                                "s": "v",
                                "i": 2,
                                "f": 1.5,
                                "t": True,
                                "n": None,
                                "l": [1, "a"],
                                "d": {"k": "v", "x": 1},
                                "q": "it's",
                            },
                        )
                    )
                ],
            }
        ],
        (
            "EXAMPLE 1:\nBegin example\n[user]\nWhere is order 4417?\n[model]\n```\n"
            "lookup(s='v', i=2, f=1.5, t=True, n=None, l=[1, 'a'], d={'k': 'v', 'x': 1}, q='it's')\n"
            "```\nEnd example\n\n"
        ),
    ),
    (
        "call_without_args",
        [{"input": U(T("roll")), "output": [M(FC("roll_die", {}))]}],
        "EXAMPLE 1:\nBegin example\n[user]\nroll\n[model]\n```\nroll_die()\n```\nEnd example\n\n",
    ),
    (
        "text_call_text_in_one_content",
        [
            {
                "input": U(T("q")),
                "output": [M(T("Let me check."), FC("check", {"id": "1"}), T("Done."))],
            }
        ],
        (
            "EXAMPLE 1:\nBegin example\n[user]\nq\n[model]\nLet me check.\n```\ncheck(id='1')\n```\n"
            "Done.\nEnd example\n\n"
        ),
    ),
    (
        "call_wins_over_text_in_one_part",
        [
            {
                "input": U(T("q")),
                "output": [
                    M({"text": "ignored", "function_call": {"name": "f", "args": {"a": 1}}})
                ],
            }
        ],
        "EXAMPLE 1:\nBegin example\n[user]\nq\n[model]\n```\nf(a=1)\n```\nEnd example\n\n",
    ),
    (
        "thought_text_is_rendered",
        [{"input": U(T("q")), "output": [M({"text": "thinking", "thought": True}, T("answer"))]}],
        "EXAMPLE 1:\nBegin example\n[user]\nq\n[model]\nthinking\nanswer\nEnd example\n\n",
    ),
    ("empty_list", [], ""),
    (
        "empty_contents",
        [{"input": {"role": "user", "parts": []}, "output": []}],
        "EXAMPLE 1:\nBegin example\n[user]\nEnd example\n\n",
    ),
    (
        "output_content_without_parts",
        [{"input": U(T("q")), "output": [{"role": "model", "parts": []}]}],
        "EXAMPLE 1:\nBegin example\n[user]\nq\n[model]\nEnd example\n\n",
    ),
    (
        "non_text_input_leaves_blank_line",
        [
            {
                "input": U({"inline_data": {"mime_type": "image/png", "data": "aGk="}}),
                "output": [M(T("a picture"))],
            }
        ],
        "EXAMPLE 1:\nBegin example\n[user]\n\n[model]\na picture\nEnd example\n\n",
    ),
    (
        "numbering",
        [
            {"input": U(T("1")), "output": [M(T("a"))]},
            {"input": U(T("2")), "output": [M(T("b"))]},
        ],
        (
            "EXAMPLE 1:\nBegin example\n[user]\n1\n[model]\na\nEnd example\n\n"
            "EXAMPLE 2:\nBegin example\n[user]\n2\n[model]\nb\nEnd example\n\n"
        ),
    ),
]


@pytest.mark.parametrize(("data", "body"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rendering_matches_adk(data: list[dict[str, Any]], body: str) -> None:
    assert convert_examples_to_text(coerce_examples(data), None) == HEAD + body + TAIL


CALL_AND_RESPONSE = [
    {
        "input": U(T("Roll a die")),
        "output": [
            M(FC("roll_die", {"sides": 6})),
            U(FR("roll_die", {"result": 4})),
            M(T("I rolled a 4.")),
        ],
    }
]
PLAIN = (
    "EXAMPLE 1:\nBegin example\n[user]\nRoll a die\n[model]\n```\nroll_die(sides=6)\n```\n"
    "[user]\n```\n{'name': 'roll_die', 'response': {'result': 4}}\n```\n[model]\n"
    "I rolled a 4.\nEnd example\n\n"
)
TOOL_CODE = (
    "EXAMPLE 1:\nBegin example\n[user]\nRoll a die\n[model]\n```tool_code\nroll_die(sides=6)\n```\n"
    "[user]\n```tool_outputs\n{'name': 'roll_die', 'response': {'result': 4}}\n```\n[model]\n"
    "I rolled a 4.\nEnd example\n\n"
)


@pytest.mark.parametrize(
    ("model", "body"),
    [
        (None, PLAIN),
        ("gemini-2.5-flash", PLAIN),
        ("gemini-2.0-flash", PLAIN),
        ("gemini-3-pro-preview", PLAIN),
        ("gemini-1.5-pro", PLAIN),
        ("google.gemini-2.5-flash", PLAIN),
        ("vertex_ai/gemini-2.5-pro", PLAIN),
        ("claude-3-5-sonnet", TOOL_CODE),
        ("gpt-4o", TOOL_CODE),
        ("scripted", TOOL_CODE),
        ("", TOOL_CODE),
        ("gemini", TOOL_CODE),
    ],
)
def test_fences_per_model_family(model: str | None, body: str) -> None:
    assert convert_examples_to_text(coerce_examples(CALL_AND_RESPONSE), model) == (
        HEAD + body + TAIL
    )


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        (None, True),
        ("gemini-2.5-flash", True),
        ("gemini-3-pro", True),
        ("gemini-1.5-pro", True),
        ("models/gemini-2.0-flash", True),
        ("gemini", False),
        ("claude-sonnet-4", False),
        ("", False),
    ],
)
def test_is_gemini_model(model: str | None, expected: bool) -> None:
    assert is_gemini_model(model) is expected


@pytest.mark.parametrize(
    ("response", "rendered"),
    [
        (FunctionResponse(name="f", response={}), "{'name': 'f', 'response': {}}"),
        (
            FunctionResponse(id="call-1", name="lookup", response={"status": "shipped", "n": 2}),
            "{'name': 'lookup', 'response': {'status': 'shipped', 'n': 2}}",
        ),
    ],
)
def test_function_response_has_only_name_and_response(
    response: FunctionResponse, rendered: str
) -> None:
    example = Example(
        input=Content(role="user", parts=[Part(text="q")]),
        output=[Content(role="user", parts=[Part(function_response=response)])],
    )
    assert convert_examples_to_text([example], "gpt-4o") == (
        HEAD
        + "EXAMPLE 1:\nBegin example\n[user]\nq\n[user]\n```tool_outputs\n"
        + rendered
        + "\n```\nEnd example\n\n"
        + TAIL
    )


def test_accepts_any_iterable_of_examples() -> None:
    examples = coerce_examples([{"input": U(T("a")), "output": [M(T("b"))]}])
    assert convert_examples_to_text(iter(examples), None) == convert_examples_to_text(
        examples, None
    )

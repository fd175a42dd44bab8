"""Rendering few-shot examples as the ``<EXAMPLES>`` block appended to the system instruction.

The layout is google-adk's, byte for byte, so prompts tuned against ADK behave the same, with one
deliberate difference: a function response renders as ``{'name': ..., 'response': ...}`` instead
of a dump of every field of the underlying object (``'will_continue': None, 'scheduling': None``,
...), which is noise the model has to read past.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from yadk.examples._example import Example
from yadk.types import Part

__all__ = ["convert_examples_to_text", "is_gemini_model"]

_INTRO = (
    "<EXAMPLES>\nBegin few-shot\nThe following are examples of user queries and"
    " model responses using the available tools.\n\n"
)
_OUTRO = "End few-shot\n<EXAMPLES>"
_EXAMPLE_HEADER = "EXAMPLE {}:\nBegin example\n"
_EXAMPLE_FOOTER = "End example\n\n"
_USER = "[user]\n"
_MODEL = "[model]\n"
_PLAIN_FENCE = "```\n"
_CALL_FENCE = "```tool_code\n"
_RESPONSE_FENCE = "```tool_outputs\n"
_FENCE_END = "\n```\n"


def is_gemini_model(model: str | None) -> bool:
    """Whether ``model`` gets plain fences: any Gemini generation (``gemini-`` anywhere in the
    name, so vendor-prefixed ids count too), or no model at all."""
    return model is None or "gemini-" in model


def convert_examples_to_text(examples: Iterable[Example], model: str | None) -> str:
    """Render ``examples`` as the block appended to the system instruction for ``model``.

    Role headers (``[user]``/``[model]``) are written only when the role changes within an example;
    function calls render as ``name(k='v', n=2)``; Gemini models (and ``model=None``) get plain
    fences, any other model ``tool_code``/``tool_outputs`` fences.
    """
    if is_gemini_model(model):
        call_fence = response_fence = _PLAIN_FENCE
    else:
        call_fence, response_fence = _CALL_FENCE, _RESPONSE_FENCE
    out = [_INTRO]
    for number, example in enumerate(examples, start=1):
        out.append(_EXAMPLE_HEADER.format(number))
        out.append(_USER)
        input_parts = example.input.parts
        if input_parts:
            out.append("\n".join([p.text for p in input_parts if p.text]))
            out.append("\n")
        previous = None
        for content in example.output:
            header = _MODEL if content.role == "model" else _USER
            if header != previous:
                out.append(header)
                previous = header
            for part in content.parts:
                _render_part(part, out, call_fence, response_fence)
        out.append(_EXAMPLE_FOOTER)
    out.append(_OUTRO)
    return "".join(out)


def _render_part(part: Part, out: list[str], call_fence: str, response_fence: str) -> None:
    # A part carrying several payloads renders the first of call, response, text (ADK's order).
    call = part.function_call
    if call is not None:
        out.append(call_fence)
        out.append(call.name)
        out.append("(")
        out.append(", ".join([_render_arg(k, v) for k, v in _as_dict(call.args).items()]))
        out.append(")")
        out.append(_FENCE_END)
        return
    response = part.function_response
    if response is not None:
        out.append(response_fence)
        out.append(str({"name": response.name, "response": response.response}))
        out.append(_FENCE_END)
        return
    if part.text:
        out.append(part.text)
        out.append("\n")


def _render_arg(key: str, value: Any) -> str:
    # Strings are quoted without escaping (as ADK does): the block is prose for the model, not code.
    if isinstance(value, str):
        return f"{key}='{value}'"
    return f"{key}={value}"


def _as_dict(args: Any) -> Mapping[str, Any]:
    return args if isinstance(args, Mapping) else {}

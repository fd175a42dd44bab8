"""``LlmRequest.config``: a mapping for backends, attributes for callbacks written for
google-adk (``llm_request.config.temperature``, ``config.system_instruction``)."""

from __future__ import annotations

import copy

import pytest

from yadk.models import LlmRequest
from yadk.types import Content, Part


def test_settings_read_and_write_as_attributes_and_keys() -> None:
    request = LlmRequest(config={"temperature": 0.1})
    assert (request.config.temperature, request.config.top_p) == (0.1, None)
    request.config.max_output_tokens = 64
    assert dict(request.config) == {"temperature": 0.1, "max_output_tokens": 64}
    del request.config.temperature
    assert dict(request.config) == {"max_output_tokens": 64}
    request.config = {"seed": 3}  # a plain mapping assigned is wrapped again
    assert request.config.seed == 3


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Be brief.", "Be brief."),
        (Content(role="system", parts=[Part(text="One."), Part(text="Two.")]), "One.\n\nTwo."),
        ([Part(text="A"), "B"], "A\n\nB"),
        (None, ""),
    ],
)
def test_system_instruction_is_the_requests(value: object, text: str) -> None:
    request = LlmRequest()
    request.append_instructions("Old.")
    assert request.config.system_instruction == "Old."
    request.config.system_instruction = value
    assert request.system_instruction == text
    assert "system_instruction" not in request.config


def test_a_copied_request_keeps_its_own_settings() -> None:
    request = LlmRequest(config={"temperature": 0.1})
    copied = copy.deepcopy(request)
    copied.config.system_instruction = "Copied."
    copied.config.temperature = 0.9
    assert (request.system_instruction, request.config.temperature) == ("", 0.1)
    assert (copied.system_instruction, copied.config.temperature) == ("Copied.", 0.9)

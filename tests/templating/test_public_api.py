"""The public face of ``yadk.templating``."""

from __future__ import annotations

import inspect

import yadk.templating
from yadk.agents import InstructionProvider as AgentsInstructionProvider


def test_all_is_sorted_and_complete() -> None:
    names = yadk.templating.__all__
    assert names == sorted(names)
    for name in names:
        assert hasattr(yadk.templating, name), name
    assert {"InstructionProvider", "find_placeholders", "inject_session_state"} <= set(names)


def test_inject_session_state_signature_matches_google_adk() -> None:
    signature = inspect.signature(yadk.templating.inject_session_state)
    assert list(signature.parameters) == ["template", "readonly_context", "use_jinja2"]
    assert signature.parameters["use_jinja2"].default is False
    assert inspect.iscoroutinefunction(yadk.templating.inject_session_state)


def test_instruction_provider_is_shared_with_agents() -> None:
    assert AgentsInstructionProvider is yadk.templating.InstructionProvider
